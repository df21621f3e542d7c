// Public reads from PostgreSQL read replicas (DATABASE_READ_URL): a GET under /v1 runs on a replica
// that is up and within the lag bound; previews, which show drafts just saved, and every write
// run on the primary, as do the admin, the Management API and the plugin API (docs/deploy.md).
import type { Context, Next } from "hono";
import { mediaStorageOf } from "../media/storage_of.ts";
import type { AppEnv } from "../web/env.ts";

/** Gives the rest of a public read a replica's handle as `services.db` when one may answer it. */
export async function readFromReplica(
  c: Context<AppEnv>,
  next: Next,
): Promise<void> {
  const services = c.get("services");
  const reads = services.reads;
  const method = c.req.method;
  if (
    !reads || (method !== "GET" && method !== "HEAD") ||
    new URL(c.req.url).searchParams.has("preview")
  ) return await next();
  const db = await reads.reader();
  if (db !== services.db) {
    // Made once on the shared container, so each request's copy carries the same storage.
    mediaStorageOf(services);
    c.set("services", { ...services, db });
  }
  await next();
}
