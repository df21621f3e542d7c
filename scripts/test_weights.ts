// Records how long each test file took, from a JUnit report of `deno test`, in
// tests/suite/weights.json: the parts of `deno task test` are balanced by these seconds.
//
//   deno task test --reporter=junit --junit-path=/tmp/junit.xml
//   deno task test:weights /tmp/junit.xml
const report = Deno.args[0];
if (!report) {
  console.error("usage: deno task test:weights <junit.xml>");
  Deno.exit(2);
}
const xml = await Deno.readTextFile(report);
const seconds: Record<string, number> = {};
// Deno's reporter names each test case's file in `classname`, whichever part loaded it.
for (
  const [, file, time] of xml.matchAll(
    /<testcase\b[^>]*\bclassname="\.\/([^"]+)"[^>]*\btime="([\d.]+)"/g,
  )
) {
  seconds[file] = (seconds[file] ?? 0) + Number(time);
}
const files = Object.keys(seconds).sort();
if (files.length === 0) {
  console.error(`${report}: no test cases with a file and a time`);
  Deno.exit(1);
}
const rounded = Object.fromEntries(
  files.map((file) => [file, Math.round(seconds[file] * 10) / 10]),
);
const out = new URL("../tests/suite/weights.json", import.meta.url);
await Deno.writeTextFile(out, JSON.stringify(rounded, null, 2) + "\n");
console.log(`${files.length} test files recorded in tests/suite/weights.json`);
