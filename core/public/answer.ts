// HTTP answers of the public read API: JSON with ETag validators, cache tags, and no-store previews.
import { createHash } from "node:crypto";
import type { Context } from "hono";
import type { PublicAnswer } from "./list.ts";

/** How long shared caches and browsers may reuse a public answer before revalidating. */
export const PUBLIC_MAX_AGE_SECONDS = 30;
const MAX_TAGS = 120;

/** Answers `answer` as JSON: cacheable with an ETag (304 on a match), or never stored. */
export function publicJson(
  c: Context,
  answer: PublicAnswer,
  options: { cache: "public" | "private" | "none" },
): Response {
  const text = JSON.stringify(answer.body);
  const headers = new Headers({
    "Content-Type": "application/json; charset=UTF-8",
  });
  headers.append("Vary", "Authorization");
  if (options.cache === "none") {
    headers.set("Cache-Control", "no-store, private");
    return new Response(text, { status: 200, headers });
  }
  // SHA-256 of the body as before, through `node:crypto`: synchronous and several times cheaper
  // per answer than `crypto.subtle.digest`, same validator.
  const etag = `"${
    createHash("sha256").update(text).digest("base64url").slice(0, 27)
  }"`;
  headers.set("ETag", etag);
  headers.set(
    "Cache-Control",
    options.cache === "public"
      ? `public, max-age=${PUBLIC_MAX_AGE_SECONDS}, must-revalidate`
      : "private, no-cache",
  );
  const tags = [...new Set(answer.tags)];
  // Header size stays bounded: past the cap the model tag still purges the answer.
  headers.set(
    "Cache-Tag",
    (tags.length > MAX_TAGS
      ? tags.filter((t) => !t.startsWith("instance:"))
      : tags).join(","),
  );
  const match = c.req.header("if-none-match");
  if (
    match &&
    match.split(",").some((t) =>
      t.trim().replace(/^W\//, "") === etag || t.trim() === "*"
    )
  ) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(c.req.method === "HEAD" ? null : text, {
    status: 200,
    headers,
  });
}
