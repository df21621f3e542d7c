// A cacheable JSON answer with a strong ETag; a matching If-None-Match answers 304.
import { sha256Hex } from "../auth/secrets.ts";
import { noneMatchHits } from "../web/etag.ts";

/** Answers `body` with `Cache-Control`, `ETag` and `Cache-Tag`, or 304 when the client has it. */
export async function cachedJson(
  ifNoneMatch: string | undefined,
  body: unknown,
  cacheTag: string,
): Promise<Response> {
  const text = JSON.stringify(body);
  const etag = `"${(await sha256Hex(text)).slice(0, 32)}"`;
  const headers = {
    "Cache-Control": "public, max-age=30",
    ETag: etag,
    "Cache-Tag": cacheTag,
  };
  if (noneMatchHits(ifNoneMatch, etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(text, {
    status: 200,
    headers: { ...headers, "Content-Type": "application/json" },
  });
}
