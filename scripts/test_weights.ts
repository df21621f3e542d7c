// Records how long each test file took, from JUnit reports of `deno test`, in
// tests/suite/weights.json: the parts of `deno task test` are balanced by these seconds, each run
// by its own engine's record. Record the two runs CI makes (the PostgreSQL one skips the browser
// tests, the embedded one the files that do the same work on either engine):
//
//   TEST_PG_TABLESPACE=… DATABASE_URL=… BROWSER_TESTS=skip deno task test --junit-path=/tmp/postgres.xml
//   ENGINE_FREE_TESTS=skip deno task test --junit-path=/tmp/embedded.xml
//   deno task test:weights --postgres=/tmp/postgres.xml --embedded=/tmp/embedded.xml
const USAGE =
  "usage: deno task test:weights --postgres=<junit.xml> --embedded=<junit.xml>";
const reports: Record<string, string> = {};
for (const arg of Deno.args) {
  const named = /^--(postgres|embedded)=(.+)$/.exec(arg);
  if (!named) {
    console.error(`${arg}: not a report of either engine\n${USAGE}`);
    Deno.exit(2);
  }
  reports[named[1]] = named[2];
}
if (!reports.postgres || !reports.embedded) {
  console.error(USAGE);
  Deno.exit(2);
}

/** Seconds per test file in one JUnit report, rounded to tenths, by file. */
async function secondsIn(report: string): Promise<Record<string, number>> {
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
  return Object.fromEntries(
    Object.keys(inReport).sort().map((
      file,
    ) => [file, Math.round(inReport[file] * 10) / 10]),
  );
}

const recorded = {
  postgres: await secondsIn(reports.postgres),
  embedded: await secondsIn(reports.embedded),
};
const out = new URL("../tests/suite/weights.json", import.meta.url);
await Deno.writeTextFile(out, JSON.stringify(recorded, null, 2) + "\n");
console.log(
  `tests/suite/weights.json: ${
    Object.keys(recorded.postgres).length
  } test files on PostgreSQL, ${
    Object.keys(recorded.embedded).length
  } on the embedded engine`,
);
