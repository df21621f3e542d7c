// Which rows of the capability inventory a test asserts, area by area. The inventory lives
// beside the specification, outside this repository, so this is a tool for the team rather
// than a CI check: `deno task inventory [path/to/inventory.md]`.
//
// A row counts as tested only where a test says it asserts it: in a test's name
// (`Deno.test("…", …)`, `Deno.test({ name: "…" })`, `t.step("…", …)`) or in a comment on an
// assertion (on the assertion's own lines, or in the comment block that opens the paragraph
// holding it). A file's header comment, or any comment no assertion follows, credits nothing:
// a header that says "MOD-018..MOD-023" describes the file, it does not prove each row.
// Rows named only by browser tests are listed apart, since a browser-less machine skips them.
// `--check` exits 1 when a row of a built area is asserted by no test.

const NOT_BUILT: Record<string, string> = {};

const RENDERER = "a managed renderer or generated site (TPL, DLV)";

/** Rows of built areas that wait for an unbuilt part, with the part they wait for. */
const WAITING: Record<string, string> = {
  "SRCH-030": RENDERER,
};

export interface InventoryRow {
  id: string;
  area: string;
  text: string;
}

/** The table rows of `inventory.md`: `| ABC-123 | capability | test idea |`. */
export function parseInventory(markdown: string): InventoryRow[] {
  const rows: InventoryRow[] = [];
  for (const line of markdown.split("\n")) {
    const m = /^\| ([A-Z]+)-(\d{3}) \| ([^|]*)\|/.exec(line);
    if (m) rows.push({ id: `${m[1]}-${m[2]}`, area: m[1], text: m[3].trim() });
  }
  return rows;
}

async function* testFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      yield* testFiles(path);
    } else if (/_test\.tsx?$/.test(entry.name)) yield path;
  }
}

/**
 * The row IDs a text names. A range such as "MOD-018..MOD-023" or "PEXT-015 to PEXT-023"
 * names every row between its ends.
 */
export function idsNamedIn(text: string): string[] {
  const ids: string[] = [];
  const pattern =
    /\b([A-Z]+)-(\d{3})(?:\s*(?:\.\.|to|–)\s*(?:\1-)?(\d{3}))?\b/g;
  for (const m of text.matchAll(pattern)) {
    const from = Number(m[2]);
    // A bound keeps a typo such as "ENT-001 to ENT-900" from naming a whole area.
    const to = Math.min(Number(m[3] ?? m[2]), from + 100);
    for (let n = from; n <= to; n++) {
      ids.push(`${m[1]}-${String(n).padStart(3, "0")}`);
    }
  }
  return ids;
}

/** A test declaration whose first argument (or `name:`) is the test's name. */
const TEST_CALL =
  /\b(?:Deno\.test|t\.step|\w+Test|test|it|describe)\s*\(\s*(?:\{\s*name\s*:\s*)?(["'`])/g;

/**
 * A call that asserts: node:assert's functions (bare or as `assert.x`), and the suite's own
 * helpers, which by convention are named `assert…` or `expect…`.
 */
const ASSERTION =
  /(?<![.\w])(?:assert(?:\.\w+)?|equal|deepEqual|strictEqual|deepStrictEqual|notEqual|notDeepEqual|notStrictEqual|match|doesNotMatch|ok|rejects|doesNotReject|throws|doesNotThrow|fail|(?:assert|expect)[A-Z]\w*)\s*\(/;

/** The text of the string literal that starts at `open` (its quote), escapes kept as written. */
function literalAt(source: string, open: number): string {
  const quote = source[open];
  let i = open + 1;
  while (i < source.length && source[i] !== quote) {
    i += source[i] === "\\" ? 2 : 1;
  }
  return source.slice(open + 1, i);
}

/** Row IDs named in test names. */
export function idsInTestNames(source: string): string[] {
  const ids: string[] = [];
  for (const m of source.matchAll(TEST_CALL)) {
    ids.push(...idsNamedIn(literalAt(source, m.index + m[0].length - 1)));
  }
  return ids;
}

/** The `//` comment of a line, or "" (a `//` inside a string such as a URL is not one). */
function commentOf(line: string): string {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = "";
    } else if (ch === '"' || ch === "'" || ch === "`") quote = ch;
    else if (ch === "/" && line[i + 1] === "/") return line.slice(i + 2);
  }
  return "";
}

/** Whether a line is nothing but a comment. */
function isCommentLine(line: string): boolean {
  return /^\s*(\/\/|\/\*|\*)/.test(line);
}

/** The net change in open brackets on a line, strings and comments left out. */
function bracketDepth(line: string): number {
  let depth = 0;
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = "";
    } else if (ch === '"' || ch === "'" || ch === "`") quote = ch;
    else if (ch === "/" && line[i + 1] === "/") break;
    else if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
  }
  return depth;
}

/**
 * Row IDs named in comments on assertions: a comment on any line of an assertion's call, and
 * the comment block that opens the paragraph (lines up to a blank line) holding an assertion.
 */
export function idsInAssertionComments(source: string): string[] {
  const lines = source.split("\n");
  const ids: string[] = [];
  // The comment block opening the current paragraph, credited once an assertion follows.
  let pending: string[] = [];
  let inParagraphCode = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "") {
      pending = [];
      inParagraphCode = false;
      continue;
    }
    if (isCommentLine(line)) {
      // A comment after code in the same paragraph opens a new block of its own.
      if (inParagraphCode) pending = [];
      inParagraphCode = false;
      pending.push(line);
      continue;
    }
    inParagraphCode = true;
    if (!ASSERTION.test(line)) continue;
    ids.push(...pending.flatMap((c) => idsNamedIn(c)));
    pending = [];
    // The assertion's own lines: from its call to the line closing its brackets.
    let depth = 0;
    let j = i;
    do {
      ids.push(...idsNamedIn(commentOf(lines[j])));
      depth += bracketDepth(lines[j]);
      j++;
    } while (depth > 0 && j < lines.length);
  }
  return ids;
}

/** Whether a test file drives a browser (it is skipped where Chromium is missing). */
function isBrowserTest(path: string, source: string): boolean {
  return /browser/.test(path.split("/").pop() ?? "") ||
    /support\/browser\.ts["']/.test(source);
}

/** Where the project's tests assert each row: in browser tests, other tests, or both. */
export interface NamedRows {
  /** Rows some test that runs without a browser asserts. */
  plain: Set<string>;
  /** Rows only browser tests assert. */
  browserOnly: Set<string>;
}

/** The rows the test files under `root` assert, by the rules at the top of this file. */
export async function namedRows(root = "."): Promise<NamedRows> {
  const plain = new Set<string>();
  const browser = new Set<string>();
  for await (const path of testFiles(root)) {
    const source = await Deno.readTextFile(path);
    const ids = [
      ...idsInTestNames(source),
      ...idsInAssertionComments(source),
    ];
    const into = isBrowserTest(path, source) ? browser : plain;
    for (const id of ids) into.add(id);
  }
  const browserOnly = new Set([...browser].filter((id) => !plain.has(id)));
  return { plain, browserOnly };
}

if (import.meta.main) {
  const args = Deno.args.filter((a) => a !== "--check");
  const path = args[0] ?? "../shared/spec/inventory.md";
  const rows = parseInventory(await Deno.readTextFile(path));
  const { plain, browserOnly } = await namedRows();
  const asserted = (id: string) => plain.has(id) || browserOnly.has(id);
  const areas = [...new Set(rows.map((r) => r.area))];
  let missing = 0;
  console.log("area   rows  tested  browser-only");
  for (const area of areas) {
    const own = rows.filter((r) => r.area === area);
    const unnamed = own.filter((r) => !asserted(r.id));
    const viaBrowser = own.filter((r) => browserOnly.has(r.id)).length;
    console.log(
      `${area.padEnd(6)}${String(own.length).padStart(5)}${
        String(own.length - unnamed.length).padStart(8)
      }${String(viaBrowser).padStart(14)}  ${
        NOT_BUILT[area] ? `(not built: ${NOT_BUILT[area]})` : ""
      }`,
    );
    if (NOT_BUILT[area]) continue;
    for (const row of unnamed) {
      const why = WAITING[row.id];
      console.log(`         ${row.id} ${why ? `(waits: ${why})` : row.text}`);
      if (!why) missing++;
    }
  }
  const total = rows.filter((r) => asserted(r.id)).length;
  const onlyBrowser = rows.filter((r) => browserOnly.has(r.id));
  console.log(`\nRows asserted only by browser tests (${onlyBrowser.length}):`);
  for (const row of onlyBrowser) console.log(`  ${row.id} ${row.text}`);
  console.log(
    `\n${total} of ${rows.length} rows asserted by a test (${onlyBrowser.length} only in a browser)`,
  );
  if (Deno.args.includes("--check") && missing > 0) {
    console.log(`${missing} rows of built areas are asserted by no test`);
    Deno.exit(1);
  }
}
