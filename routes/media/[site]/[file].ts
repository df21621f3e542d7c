// GET /media/{site}/{object}.{format}: a public media object, served with immutable caching, ETag and ranges.
import type { Context } from "hono";
import {
  deliver,
  findDeliverable,
  findStoredObject,
} from "../../../core/media/delivery.ts";
import { mediaStorageOf } from "../../../core/media/storage_of.ts";
import type { AppEnv } from "../../../core/web/env.ts";

async function serve(c: Context<AppEnv>) {
  const services = c.var.services;
  const file = c.req.param("file") ?? "";
  const site = c.req.param("site") ?? "";
  const storage = mediaStorageOf(services);
  const stored = await findStoredObject(storage, site, file);
  const object = stored === undefined
    ? await findDeliverable(services.db, site, file)
    : stored;
  if (!object) {
    return c.text("Not found", 404, { "cache-control": "no-store" });
  }
  return await deliver(storage, object, {
    method: c.req.method,
    headers: c.req.raw.headers,
    etag: `"${file.slice(0, 36)}"`,
  });
}

export const handler = { GET: serve, HEAD: serve };
