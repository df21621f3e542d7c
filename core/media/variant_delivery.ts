// The answer for an image variant URL: a stored variant served like an original, made on first request.
import type { Db } from "../db/database.ts";
import { noneMatchHits } from "../web/etag.ts";
import { deliver } from "./delivery.ts";
import type { MediaStorage } from "./storage.ts";
import {
  parseVariantQuery,
  VARIANT_EXTENSION,
  VARIANT_MIME,
  type VariantSpec,
} from "./variant_params.ts";
import {
  ensureVariant,
  findVariantSource,
  type MakeVariantOptions,
  usesFocal,
  variantKey,
  variantName,
  type VariantSource,
} from "./variants.ts";

/** A variant that cannot be answered, as the route maps it. */
export type VariantRefusal =
  | {
    status: 400;
    code: "media_variant_invalid";
    parameter: string;
    message: string;
  }
  | { status: 404 }
  | {
    status: 422;
    code: "media_variant_unsupported";
    reason: "not_an_image" | "too_many_pixels" | "damaged";
    message: string;
  }
  /** sharp cannot load here (Deno Deploy): the original is sent instead. */
  | { status: 307; location: string };

/** Cache lifetime of a variant whose crop follows the item's focal point, which an editor may move. */
export const FOCAL_VARIANT_CACHE =
  "public, max-age=86400, stale-while-revalidate=604800";

/** What {@link deliverVariant} needs of the request. */
export interface VariantRequest {
  site: string;
  file: string;
  query: URLSearchParams;
  method: string;
  headers: Headers;
  /** The original's own URL (the fallback where variants cannot be made). */
  originalUrl: string;
}

/**
 * The answer for `GET /media/<site>/<object>.<format>?<variant query>`, or null when the query
 * names no variant (the caller serves the original).
 */
export async function deliverVariant(
  ctx: { db: Db; storage: MediaStorage; options?: MakeVariantOptions },
  request: VariantRequest,
): Promise<Response | VariantRefusal | null> {
  const format = /\.([a-z0-9-]{1,16})$/.exec(request.file)?.[1] ?? "";
  const spec = parseVariantQuery(request.query, {
    accept: request.headers.get("accept"),
    sourceFormat: format === "jpg" ? "jpeg" : format,
  });
  if (spec === null) return null;
  if ("parameter" in spec) {
    return { status: 400, code: "media_variant_invalid", ...spec };
  }
  const objectId = request.file.slice(0, 36);
  // A variant that does not crop does not depend on the row: a stored one is served without a
  // database round trip, like an original (the key names the object id it was made from).
  if (!usesFocal(spec) && /^[0-9a-f-]{36}$/.test(request.site)) {
    const etag = etagOf(objectId, variantName(spec, null));
    if (noneMatchHits(request.headers.get("if-none-match"), etag)) {
      return answer(
        new Response(null, { status: 304 }),
        spec,
        etag,
      );
    }
    const key = `sites/${request.site}/variants/${objectId}/${
      variantName(spec, null)
    }`;
    const found = /^[0-9a-f-]{36}\.[a-z0-9-]{1,16}$/.test(request.file)
      ? await ctx.storage.stat(key)
      : null;
    if (found) {
      return await serveStored(ctx.storage, request, spec, key, found.size);
    }
  }
  const source = await findVariantSource(ctx.db, request.site, request.file);
  if (!source) return { status: 404 };
  return await makeAndServe(ctx, request, spec, source);
}

async function makeAndServe(
  ctx: { db: Db; storage: MediaStorage; options?: MakeVariantOptions },
  request: VariantRequest,
  spec: VariantSpec,
  source: VariantSource,
): Promise<Response | VariantRefusal> {
  const name = variantName(spec, source.focal);
  const etag = etagOf(source.objectId, name);
  if (noneMatchHits(request.headers.get("if-none-match"), etag)) {
    return answer(new Response(null, { status: 304 }), spec, etag);
  }
  const made = await ensureVariant(ctx.storage, source, spec, ctx.options);
  if (!made.ok) {
    if (made.reason === "unavailable") {
      return { status: 307, location: request.originalUrl };
    }
    return {
      status: 422,
      code: "media_variant_unsupported",
      reason: made.reason,
      message: {
        not_an_image:
          `Cannot make a variant of "${request.file}": it is not an image this service can resize`,
        too_many_pixels:
          `Cannot make a variant of "${request.file}": the image has more pixels than the service decodes`,
        damaged:
          `Cannot make a variant of "${request.file}": the image could not be read`,
      }[made.reason],
    };
  }
  return await serveStored(
    ctx.storage,
    request,
    spec,
    variantKey(source, spec),
    made.size,
  );
}

function etagOf(objectId: string, name: string): string {
  return `"${objectId}.${name}"`;
}

async function serveStored(
  storage: MediaStorage,
  request: VariantRequest,
  spec: VariantSpec,
  key: string,
  size: number,
): Promise<Response> {
  const name = key.slice(key.lastIndexOf("/") + 1);
  const etag = etagOf(request.file.slice(0, 36), name);
  const base = request.file.slice(0, 36);
  const response = await deliver(storage, {
    storageKey: key,
    mimeType: VARIANT_MIME[spec.format],
    byteLength: size,
    kind: "image",
    fileName: `${base}.${VARIANT_EXTENSION[spec.format]}`,
  }, { method: request.method, headers: request.headers, etag });
  return answer(response, spec, etag);
}

function answer(response: Response, spec: VariantSpec, etag: string): Response {
  const headers = response.headers;
  headers.set("etag", etag);
  if (usesFocal(spec)) headers.set("cache-control", FOCAL_VARIANT_CACHE);
  else headers.set("cache-control", "public, max-age=31536000, immutable");
  // The format was chosen from Accept: a shared cache must keep one answer per Accept.
  if (spec.negotiated) headers.set("vary", "Accept");
  headers.set("x-content-type-options", "nosniff");
  return response;
}
