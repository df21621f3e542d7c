// The scheduling plugin is a separate program: it reaches Stave only over HTTP, so no file of
// it may import the service's code (issue: "It must not import anything from core/").
import { deepEqual } from "node:assert/strict";

Deno.test("no file of the scheduling plugin imports from the service's core/ or routes/", async () => {
  const offenders: string[] = [];
  for await (const path of walk(new URL(".", import.meta.url))) {
    if (!/\.(ts|tsx)$/.test(path)) continue;
    const text = await Deno.readTextFile(path);
    if (/from\s+["'](\.\.\/)+(core|routes|islands)\//.test(text)) {
      offenders.push(path);
    }
  }
  deepEqual(offenders, []);
});

/** Every file path under `root`, depth first. */
async function* walk(root: URL): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(root)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), root);
    if (entry.isDirectory) yield* walk(url);
    else if (entry.isFile) yield url.pathname;
  }
}
