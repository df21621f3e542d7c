// Finds import circles among the project's own modules: groups of files that import each other,
// directly or through others (type-only imports included, since they tie the files' meaning
// together just the same). `deno task circles` lists them; the test beside it fails on any.

/** Folders that hold no source of ours. */
const SKIPPED = new Set([
  ".cache",
  ".git",
  "data",
  "node_modules",
  "static",
  "test-output",
]);

/** Relative `import … from "./x.ts"` and `export … from "./x.ts"`, over several lines too. */
const RELATIVE_IMPORT =
  /^\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.\.?\/[^"']+)["']/gms;

/** Every source module under `root` (tests left out: nothing imports a test), by absolute path. */
async function sourceFiles(root: string): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) {
        if (!SKIPPED.has(entry.name) && !entry.name.startsWith(".")) {
          await walk(path);
        }
      } else if (
        /\.tsx?$/.test(entry.name) && !/_test\.tsx?$/.test(entry.name)
      ) found.push(path);
    }
  }
  await walk(root);
  return found.sort();
}

/** The modules each module imports, from the text of its import lines. */
export function importsOf(path: string, source: string): string[] {
  const imported: string[] = [];
  for (const m of source.matchAll(RELATIVE_IMPORT)) {
    imported.push(new URL(m[1], `file://${path}`).pathname);
  }
  return imported;
}

/** The groups of two or more modules that reach each other (Tarjan's strongly connected parts). */
export function circlesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    order.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, order.get(next)!));
      }
    }
    if (low.get(node) !== order.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) circles.push(group.sort());
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return circles.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The import circles of the project under `root`, as paths relative to it. */
export async function projectCircles(root = "."): Promise<string[][]> {
  const base = Deno.realPathSync(root);
  const graph = new Map<string, string[]>();
  for (const path of await sourceFiles(base)) {
    graph.set(path, importsOf(path, await Deno.readTextFile(path)));
  }
  return circlesOf(graph).map((group) =>
    group.map((path) => path.slice(base.length + 1))
  );
}

if (import.meta.main) {
  const circles = await projectCircles();
  for (const group of circles) console.log(group.join("  ↔  "));
  console.log(`${circles.length} import circles`);
}
