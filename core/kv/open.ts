// Opens Deno KV: a file path locally, `null` for an in-memory store in tests.

/** Opens the KV store at `path`, creating its folder; `null` opens a private in-memory store. */
export async function openKvStore(path: string | null): Promise<Deno.Kv> {
  if (path === null) return await Deno.openKv(":memory:");
  const folder = path.replace(/[^/]*$/, "");
  if (folder) await Deno.mkdir(folder, { recursive: true });
  return await Deno.openKv(path);
}
