// Which rows of the capability inventory a test names, area by area. The inventory lives
// beside the specification, outside this repository, so this is a tool for the team rather
// than a CI check: `deno task inventory [path/to/inventory.md]`.
//
// A row counts as tested when a test file (`*_test.ts(x)`, or any module under `tests/`) names
// its ID; the project's rule is that a test names the rows it asserts, in its name or in a
// comment beside the assertion. `--check` exits 1 when a row of a built area is unnamed.

const NOT_BUILT: Record<string, string> = {
  TPL:
    "managed site templates (spec 3 part 4.8 rules 1-7): no issue builds them yet",
  DLV:
    "managed renderer releases and delivery (spec 3 part 4.8): no issue builds them yet",
  GEN: "generated standalone backend (spec 2 part 4.6): no issue builds it yet",
  GREL:
    "generated backend relations (spec 2 part 4.6): no issue builds them yet",
  GACC: "generated backend access (spec 2 part 5.3): no issue builds it yet",
};

const RENDERER = "a managed renderer or generated site (TPL, DLV)";
const EXTERNAL_INDEX = "the external index builder (no issue builds it yet)";

/** Rows of built areas that wait for an unbuilt part, with the part they wait for. */
const WAITING: Record<string, string> = {
  "SRCH-029": RENDERER,
  "SRCH-030": RENDERER,
  "SRCH-032": RENDERER,
  "SRCH-034": EXTERNAL_INDEX,
  "SRCH-035": EXTERNAL_INDEX,
  "SRCH-036": EXTERNAL_INDEX,
  "SRCH-037": EXTERNAL_INDEX,
  "PAUX-015": "chrome regions are declared by templates (TPL)",
  "PUB-030": "the spec never defines the related-draft grant",
  "AUTH-014": "shared-content grants between sites (no issue builds them yet)",
  "PAPI-033":
    "no plugin API route reaches comments, redirects, Trash restore, media deletion or mail templates",
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
    } else if (
      /\.tsx?$/.test(entry.name) &&
      (/_test\.tsx?$/.test(entry.name) || path.startsWith("./tests/"))
    ) yield path;
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

/** Every row ID named anywhere in the project's tests. */
export async function namedIds(root = "."): Promise<Set<string>> {
  const named = new Set<string>();
  for await (const path of testFiles(root)) {
    for (const id of idsNamedIn(await Deno.readTextFile(path))) named.add(id);
  }
  return named;
}

if (import.meta.main) {
  const args = Deno.args.filter((a) => a !== "--check");
  const path = args[0] ?? "../shared/spec/inventory.md";
  const rows = parseInventory(await Deno.readTextFile(path));
  const named = await namedIds();
  const areas = [...new Set(rows.map((r) => r.area))];
  let missing = 0;
  console.log("area   rows  named  unnamed");
  for (const area of areas) {
    const own = rows.filter((r) => r.area === area);
    const unnamed = own.filter((r) => !named.has(r.id));
    console.log(
      `${area.padEnd(6)}${String(own.length).padStart(5)}${
        String(own.length - unnamed.length).padStart(7)
      }  ${NOT_BUILT[area] ? `(not built: ${NOT_BUILT[area]})` : ""}`,
    );
    if (NOT_BUILT[area]) continue;
    for (const row of unnamed) {
      const why = WAITING[row.id];
      console.log(`         ${row.id} ${why ? `(waits: ${why})` : row.text}`);
      if (!why) missing++;
    }
  }
  const total = rows.filter((r) => named.has(r.id)).length;
  console.log(`\n${total} of ${rows.length} rows named by a test`);
  if (Deno.args.includes("--check") && missing > 0) {
    console.log(`${missing} rows of built areas are named by no test`);
    Deno.exit(1);
  }
}
