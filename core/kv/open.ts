// Opens Deno KV: a file path locally (shared safely by several processes), a KV server's URL, the
// deployment's own store on Deno Deploy, or `null` for an in-memory store in tests and benches.
import { SharedKvFile } from "./shared_file.ts";

/**
 * Opens the KV store at `path`, creating its folder; `null` opens a private in-memory store.
 * A file may be shared by several service processes (PostgreSQL deployments, docs/deploy.md):
 * its operations retry while another process holds SQLite's write lock. Both share commits
 * between concurrent atomic operations (the in-memory store too, so tests run the commit path
 * a file has). An `http(s)://` URL names a `denokv` server (its token in
 * `DENO_KV_ACCESS_TOKEN`), used as it is.
 */
export async function openKvStore(path: string | null): Promise<Deno.Kv> {
  if (path !== null && /^https?:\/\//.test(path)) {
    return await Deno.openKv(path);
  }
  const folder = path?.replace(/[^/]*$/, "");
  if (folder) await Deno.mkdir(folder, { recursive: true });
  // The stores use only the methods SharedKvFile lists; another Deno.Kv method (enqueue,
  // watch) must be added there before use, or it throws at run time (docs/kv.md).
  const kv = await Deno.openKv(path ?? ":memory:");
  return new SharedKvFile(kv) as unknown as Deno.Kv;
}

/**
 * The deployment's own KV on Deno Deploy (`Deno.openKv()` without a path): one store shared by
 * every isolate and region, strongly consistent for the atomic checks the stores make. Off
 * Deploy the same call opens a file Deno keeps per entry module (what `deno task deploy:check`
 * relies on), so the service itself writes nothing.
 */
export async function openDeploymentKv(): Promise<Deno.Kv> {
  return await Deno.openKv();
}
