// Opens Deno KV: a file path locally (shared safely by several processes), `null` for an in-memory store in tests.
import { SharedKvFile } from "./shared_file.ts";

/**
 * Opens the KV store at `path`, creating its folder; `null` opens a private in-memory store.
 * A file may be shared by several service processes (PostgreSQL deployments, docs/deploy.md):
 * its operations retry while another process holds SQLite's write lock.
 */
export async function openKvStore(path: string | null): Promise<Deno.Kv> {
  if (path === null) return await Deno.openKv(":memory:");
  const folder = path.replace(/[^/]*$/, "");
  if (folder) await Deno.mkdir(folder, { recursive: true });
  // The stores use only the methods SharedKvFile lists; another Deno.Kv method (enqueue,
  // watch) must be added there before use, or it throws at run time (docs/kv.md).
  return new SharedKvFile(await Deno.openKv(path)) as unknown as Deno.Kv;
}
