// The parts of `deno task test` together run every test file of the project, each once.
import {
  deepEqual as assertEquals,
  equal,
  ok as assert,
} from "node:assert/strict";
import {
  ENGINE_FREE,
  partCount,
  recordedSeconds,
  SAME_ON_EITHER_ENGINE,
  splitFiles,
  testFiles,
  weigher,
} from "./parts.ts";
import weights from "./weights.json" with { type: "json" };

const ROOT = new URL("../../", import.meta.url);

Deno.test("the parts find every test file git tracks, and nothing else", async () => {
  const git = new Deno.Command("git", {
    args: ["ls-files", "*_test.ts", "*_test.tsx"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  });
  const listed = await git.output().catch(() => null);
  const tracked = listed?.success
    ? new TextDecoder().decode(listed.stdout).split("\n").filter(Boolean)
    : [];
  const found = await testFiles();
  assert(found.includes("tests/suite/parts_test.ts"));
  assert(found.some((file) => file.startsWith("core/")));
  assert(!found.some((file) => file.includes("node_modules/")));
  // Outside a git checkout (a copied tree) the walk is still checked above.
  for (const file of tracked) {
    assert(found.includes(file), `${file} is in no part`);
  }
});

Deno.test("each test file lands in exactly one part, and the parts weigh about the same on either engine", async () => {
  for (const engine of ["postgres", "embedded"] as const) {
    await partsOn(engine);
  }
});

Deno.test("a run on one engine weighs a file by its own record, then by the other engine's", () => {
  const postgres = recordedSeconds("postgres");
  const embedded = recordedSeconds("embedded");
  for (const [file, seconds] of Object.entries(weights.postgres)) {
    equal(postgres[file], seconds);
  }
  for (const [file, seconds] of Object.entries(weights.embedded)) {
    equal(embedded[file], seconds);
  }
  // CI's embedded run leaves the scheduling tests out, so only PostgreSQL's run records them.
  const onlyPostgres = Object.keys(weights.postgres).find((file) =>
    !Object.hasOwn(weights.embedded, file)
  );
  assert(onlyPostgres, "a file only the PostgreSQL run records");
  equal(
    embedded[onlyPostgres],
    (weights.postgres as Record<string, number>)[onlyPostgres],
  );
});

async function partsOn(engine: "postgres" | "embedded"): Promise<void> {
  const files = await testFiles();
  const count = await partCount();
  assert(count >= 2, "the suite runs in several parts");
  const seconds = recordedSeconds(engine);
  const shares = splitFiles(files, count, seconds);
  assertEquals(shares.length, count);
  assertEquals(shares.flat().sort(), files);
  // The split is the same in every part's isolate.
  assertEquals(splitFiles([...files].reverse(), count, seconds), shares);
  const weigh = weigher(seconds);
  const totals = shares.map((share) =>
    share.reduce((sum, file) => sum + weigh(file), 0)
  );
  const heaviestFile = Math.max(...files.map(weigh));
  // Each file joins the lightest part, so no part exceeds another by more than one file.
  assert(
    Math.max(...totals) - Math.min(...totals) <= heaviestFile,
    `unbalanced parts on ${engine}: ${totals.map(Math.round).join(", ")} s`,
  );
}

Deno.test("a split gives the longest files to different parts and counts unknown files as the median", () => {
  const shares = splitFiles(
    ["a_test.ts", "b_test.ts", "c_test.ts", "d_test.ts", "new_test.ts"],
    2,
    { "a_test.ts": 10, "b_test.ts": 9, "c_test.ts": 2, "d_test.ts": 1 },
  );
  // 10 and 9 open the two parts; "new" weighs the median (9, the upper middle of 1, 2, 9, 10) and
  // joins the lighter 9; then 2 and 1 join the lighter 10.
  assertEquals(shares, [["a_test.ts", "c_test.ts", "d_test.ts"], [
    "b_test.ts",
    "new_test.ts",
  ]]);
});

Deno.test("the scheduling plugin's tests and the files that do the same work on either engine run once in CI; those that put the plugin on PostgreSQL, and browser tests, run where they always did", async () => {
  const files = await testFiles();
  const engineFree = files.filter(ENGINE_FREE);
  assert(engineFree.includes("tests/scheduling/schedule_test.ts"));
  assert(engineFree.includes("plugins/scheduling/core/releases_test.ts"));
  assert(!engineFree.includes("tests/scheduling/db_faults_test.ts"));
  assert(!engineFree.includes("tests/scheduling/two_process_test.ts"));
  assert(!engineFree.includes("tests/plugins/operations_test.ts"));
  assert(!engineFree.includes("tests/media/variants_test.ts"));
  // CI's PostgreSQL run skips browser tests and its embedded run skips these: a browser test here
  // would never run in CI.
  assert(!engineFree.includes("tests/scheduling/browser_test.ts"));
  for (const file of engineFree) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    assert(
      !text.includes("support/browser.ts"),
      `${file} drives Chromium, which CI's PostgreSQL run skips`,
    );
  }
  // A renamed or removed file must leave the list too, or its successor would run twice unseen.
  for (const file of SAME_ON_EITHER_ENGINE) {
    assert(files.includes(file), `${file} is not a test file of the project`);
  }
  assertEquals(
    engineFree.filter((file) => !/^(tests|plugins)\/scheduling\//.test(file)),
    [...SAME_ON_EITHER_ENGINE].sort(),
  );
});
