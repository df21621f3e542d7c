// GET /media/{site}/{object}.{format}: a public media object, served with immutable caching, ETag and ranges.
import type { Context } from "hono";
import { deliver, findDeliverable } from "../../../core/media/delivery.ts";
import { mediaStorageOf } from "../../../core/media/storage_of.ts";
import type { AppEnv } from "../../../core/web/env.ts";

async function serve(c: Context<AppEnv>) {
  const services = c.var.services;
  const file = c.req.param("file") ?? "";
  const object = await findDeliverable(
    services.db,
    c.req.param("site") ?? "",
    file,
  );
  if (!object) {
    return c.text("Not found", 404, { "cache-control": "no-store" });
  }
  return await deliver(mediaStorageOf(services), object, {
    method: c.req.method,
    headers: c.req.raw.headers,
    etag: `"${file.slice(0, 36)}"`,
  });
}

export const handler = { GET: serve, HEAD: serve };
