// The suite in a few parts instead of one isolate per test file. Deno's test runner gives each
// file it is handed an isolate of its own, which evaluates the whole module graph again (about
// 0.9 s of CPU per file on the 2-core machine) and starts its own PGlite engines from their dumps
// (about 0.8 s each). `deno task test` hands it the few `part_N.ts` files of this folder instead:
// each imports its share of the project's test files, so their tests register in one isolate,
// share the loaded graph and the engine pools of tests/support/db.ts, and still run one at a time
// as in a file of their own. A test file stays runnable alone (`deno test -A … path_test.ts`),
// and failures name the file and line they come from.
//
// Shares are balanced by the seconds each file took in a recorded run on the same engine
// (weights.json, written by `deno task test:weights`): the two engines differ, and CI's PostgreSQL
// run skips the browser tests. A file missing from its engine's record weighs what it took on the
// other engine, and one missing from both counts as the median.
import weights from "./weights.json" with { type: "json" };

const ROOT = new URL("../../", import.meta.url);
const HERE = new URL("./", import.meta.url);
/** Folders that hold no test of ours: data, caches, dependencies, built files. */
const SKIPPED = new Set([
  ".cache",
  ".git",
  ".test-data",
  "data",
  "node_modules",
  "static",
  "test-output",
]);
/**
 * Files that do the same work whichever engine the service runs on, so CI runs them once. CI runs
 * the suite on PostgreSQL first, then on the embedded engine with `ENGINE_FREE_TESTS=skip`, which
 * leaves these out; any other run (`deno task test` on the embedded default, or on PostgreSQL
 * alone) runs them. They stay in the PostgreSQL run because there they take less time, and the
 * two runs take turns, so CI's length is their sum.
 *
 * - The scheduling plugin's tests drive the plugin on its own in-memory PGlite, and the plugin API
 *   they call on the service has its own tests on both engines (tests/plugins/); the files that
 *   put the plugin itself on PostgreSQL run in both runs.
 * - The plugin SDK's embedded-engine tests open their own PGlite, and the WebAssembly image
 *   codecs' time is spent on pixels (the variants' SQL runs on both engines in
 *   tests/media/variants_test.ts).
 * - `svc-manage.mjs`'s export and import helpers test the command-line tool over HTTP; the
 *   import parts and export pages they call are tested on both engines in tests/data/.
 * - The renderer process reads the CMS process over HTTP only; the public reads it calls are
 *   tested on both engines in tests/public/.
 *
 * Browser tests are never among them: CI's PostgreSQL run skips those (`BROWSER_TESTS=skip`).
 */
export const ENGINE_FREE = (file: string): boolean =>
  !BROWSER_TEST.test(file) &&
  (((file.startsWith("tests/scheduling/") ||
    file.startsWith("plugins/scheduling/")) &&
    !SCHEDULING_ON_BOTH.includes(file)) ||
    SAME_ON_EITHER_ENGINE.includes(file));

/** Test files that drive Chromium, by this project's naming. */
const BROWSER_TEST = /(^|\/|_)browser_test\.tsx?$/;

/** The scheduling tests that put the plugin's own store on PostgreSQL. */
const SCHEDULING_ON_BOTH = [
  "tests/scheduling/db_faults_test.ts",
  "tests/scheduling/two_process_test.ts",
];

/** Test files outside the scheduling plugin that do the same work on either engine. */
export const SAME_ON_EITHER_ENGINE = [
  "plugins/sdk/pglite_dialect_test.ts",
  "plugins/sdk/pglite_upkeep_test.ts",
  "tests/cli/svc_manage_data_test.ts",
  "tests/media/variants_wasm_test.ts",
  "tests/renderer/process_test.ts",
];

/** The file names Deno's test runner picks up by default that this project uses. */
const TEST_FILE = /_test\.tsx?$/;

/** Every test file of the project, as paths from its root with `/`, sorted. */
export async function testFiles(): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(new URL(dir || ".", ROOT))) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory && !SKIPPED.has(path)) await walk(path);
      else if (entry.isFile && TEST_FILE.test(entry.name)) found.push(path);
    }
  }
  await walk("");
  return found.sort();
}

/** A part's file name, with its number. */
const PART_FILE = /^part_(\d+)\.ts$/;

/** How many parts the suite is split into: the `part_N.ts` files beside this one. */
export async function partCount(): Promise<number> {
  let count = 0;
  for await (const entry of Deno.readDir(HERE)) {
    if (PART_FILE.test(entry.name)) count++;
  }
  return count;
}

/** The recorded seconds a run on this engine is split by: its own record over the other's. */
export function recordedSeconds(
  engine: "postgres" | "embedded",
): Record<string, number> {
  const other = engine === "postgres" ? "embedded" : "postgres";
  return { ...weights[other], ...weights[engine] };
}

/** What a file weighs in a split: its recorded seconds, or the median of the record when new. */
export function weigher(
  seconds: Record<string, number>,
): (file: string) => number {
  const known = Object.values(seconds).sort((a, b) => a - b);
  const median = known.length ? known[Math.floor(known.length / 2)] : 1;
  return (file) => Object.hasOwn(seconds, file) ? seconds[file] : median;
}

/**
 * `files` split into `count` shares of about equal recorded seconds: the longest file first into
 * the lightest share, so no part waits long on another at the end of a run.
 */
export function splitFiles(
  files: string[],
  count: number,
  seconds: Record<string, number>,
): string[][] {
  const weigh = weigher(seconds);
  const weighed = files.map((file) => ({ file, weight: weigh(file) })).sort((
    a,
    b,
  ) => b.weight - a.weight || a.file.localeCompare(b.file));
  const shares = Array.from({ length: count }, () => ({
    total: 0,
    files: [] as string[],
  }));
  for (const { file, weight } of weighed) {
    const lightest = shares.reduce((a, b) => b.total < a.total ? b : a);
    lightest.total += weight;
    lightest.files.push(file);
  }
  return shares.map((share) => share.files.sort());
}

/** Imports the test files of part `partUrl` (a `part_N.ts` module's `import.meta.url`). */
export async function loadPart(partUrl: string): Promise<void> {
  const number = Number(
    PART_FILE.exec(new URL(partUrl).pathname.split("/").at(-1)!)?.[1],
  );
  const count = await partCount();
  if (!(number >= 1 && number <= count)) {
    throw new Error(`${partUrl} is not one of the ${count} parts`);
  }
  const seconds = recordedSeconds(
    Deno.env.get("DATABASE_URL") ? "postgres" : "embedded",
  );
  const skipEngineFree = Deno.env.get("ENGINE_FREE_TESTS") === "skip";
  const files = (await testFiles()).filter((file) =>
    !(skipEngineFree && ENGINE_FREE(file))
  );
  const share = splitFiles(files, count, seconds)[number - 1];
  for (const file of share) {
    try {
      await import(new URL(file, ROOT).href);
    } catch (error) {
      // Otherwise the report names only the part, not which of its files failed to load.
      throw new Error(`${file} failed to load`, { cause: error });
    }
  }
}
