// Records how long each test file took, from JUnit reports of `deno test`, in
// tests/suite/weights.json: the parts of `deno task test` are balanced by these seconds. Given
// the reports of both runs (PostgreSQL and embedded), a file weighs its longer time, so the parts
// are balanced in either run.
//
//   deno task test --junit-path=/tmp/embedded.xml
//   DATABASE_URL=… deno task test --junit-path=/tmp/postgres.xml
//   deno task test:weights /tmp/embedded.xml /tmp/postgres.xml
const reports = Deno.args;
if (reports.length === 0) {
  console.error("usage: deno task test:weights <junit.xml>...");
  Deno.exit(2);
}
const seconds: Record<string, number> = {};
for (const report of reports) {
  const xml = await Deno.readTextFile(report);
  const inReport: Record<string, number> = {};
  // Deno's reporter names each test case's file in `classname`, whichever part loaded it; a
  // test's steps are cases of their own ("test > step"), already inside the test's time.
  for (
    const [, name, file, time] of xml.matchAll(
      /<testcase\b[^>]*\bname="([^"]*)"[^>]*\bclassname="\.\/([^"]+)"[^>]*\btime="([\d.]+)"/g,
    )
  ) {
    if (name.includes("&gt;")) continue;
    inReport[file] = (inReport[file] ?? 0) + Number(time);
  }
  if (Object.keys(inReport).length === 0) {
    console.error(`${report}: no test cases with a file and a time`);
    Deno.exit(1);
  }
  for (const [file, time] of Object.entries(inReport)) {
    seconds[file] = Math.max(seconds[file] ?? 0, time);
  }
}
const files = Object.keys(seconds).sort();
const rounded = Object.fromEntries(
  files.map((file) => [file, Math.round(seconds[file] * 10) / 10]),
);
const out = new URL("../tests/suite/weights.json", import.meta.url);
await Deno.writeTextFile(out, JSON.stringify(rounded, null, 2) + "\n");
console.log(`${files.length} test files recorded in tests/suite/weights.json`);
