// GET /media/{site}/{object}.{format}: a public media object, served with immutable caching, ETag and ranges; with a variant query (width, height, fit, quality, format, preset) a resized copy.
import type { Context } from "hono";
import {
  deliver,
  findDeliverable,
  findStoredObject,
} from "../../../core/media/delivery.ts";
import { mediaStorageOf } from "../../../core/media/storage_of.ts";
import { deliverVariant } from "../../../core/media/variant_delivery.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";

async function serve(c: Context<AppEnv>) {
  const services = c.var.services;
  const file = c.req.param("file") ?? "";
  const site = c.req.param("site") ?? "";
  const storage = mediaStorageOf(services);
  const url = new URL(c.req.url);
  if (url.search !== "") {
    const variant = await deliverVariant({
      db: services.db,
      storage,
      options: { library: services.config.mediaImageLibrary },
    }, {
      site,
      file,
      query: url.searchParams,
      method: c.req.method,
      headers: c.req.raw.headers,
      originalUrl: url.pathname,
    });
    if (variant instanceof Response) return variant;
    if (variant !== null) {
      if (variant.status === 404) {
        return c.text("Not found", 404, { "cache-control": "no-store" });
      }
      if (variant.status === 307) {
        return c.body(null, 307, {
          location: variant.location,
          "cache-control": "public, max-age=300",
        });
      }
      const { status, code, message, ...details } = variant;
      refuse(status, code, message, details, { "cache-control": "no-store" });
    }
  }
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
