// HTTP answers of the public read API: JSON with ETag validators, cache tags, and no-store previews.
import { hash } from "node:crypto";
import type { Context } from "hono";
import { corsAnswerHeaders } from "./browser_origins.ts";
import { PUBLIC_API_SECURITY_HEADERS } from "../web/csp.ts";
import type { AppEnv } from "../web/env.ts";
import { noneMatchHits } from "../web/etag.ts";
import { finalAnswer } from "../web/final_answers.ts";
import type { PublicAnswer } from "./read_answer.ts";

/** How long shared caches and browsers may reuse a public answer before revalidating. */
export const PUBLIC_MAX_AGE_SECONDS = 30;
const MAX_TAGS = 120;

/** An answer as it goes on the wire: computed once, whoever serves it. */
export interface SerializedAnswer {
  text: string;
  /** Strong validator: SHA-256 of `text`. */
  etag: string;
  /** The `Cache-Tag` header value. */
  cacheTag: string;
}

/**
 * `tags` with each tag once, in first-seen order. Only answers whose tags can repeat pay for it:
 * a tag made by concatenation is flattened and hashed to go in a set, about 3.75 us for a list's
 * 22 tags under load (docs/benchmarks.md).
 */
export function uniqueTags(tags: string[]): string[] {
  return [...new Set(tags)];
}

/** Serializes `answer` and computes its validator and cache tags. */
export function serializeAnswer(answer: PublicAnswer): SerializedAnswer {
  const text = JSON.stringify(answer.body);
  // SHA-256 of the body through `node:crypto`: synchronous and several times cheaper per answer
  // than `crypto.subtle.digest`, same validator; the one-shot `hash` makes one native call where
  // a `createHash` object makes four.
  const etag = `"${hash("sha256", text, "base64url").slice(0, 27)}"`;
  const tags = answer.tags;
  // Header size stays bounded: past the cap the model tag still purges the answer.
  const cacheTag =
    (tags.length > MAX_TAGS
      ? tags.filter((t) => !t.startsWith("instance:"))
      : tags).join(",");
  return { text, etag, cacheTag };
}

/** Answers `answer` as JSON: cacheable with an ETag (304 on a match), or never stored. */
export function publicJson(
  c: Context<AppEnv>,
  answer: PublicAnswer,
  options: { cache: "public" | "private" | "none" },
): Response {
  if (options.cache === "none") {
    return finalAnswer(
      c,
      new Response(JSON.stringify(answer.body), {
        status: 200,
        headers: answerHeaders(c, [["Cache-Control", "no-store, private"]]),
      }),
    );
  }
  return serializedJson(c, serializeAnswer(answer), options.cache);
}

/** Answers an already serialized cacheable answer, `304` when the client holds its validator. */
export function serializedJson(
  c: Context<AppEnv>,
  answer: SerializedAnswer,
  cache: "public" | "private",
  headers: [string, string][] = cacheableHeaders(c, answer, cache),
): Response {
  if (noneMatchHits(c.req.header("if-none-match"), answer.etag)) {
    return finalAnswer(c, new Response(null, { status: 304, headers }));
  }
  return finalAnswer(
    c,
    new Response(c.req.method === "HEAD" ? null : answer.text, {
      status: 200,
      headers,
    }),
  );
}

/** Every header {@link serializedJson} answers `answer` with to this request. */
export function cacheableHeaders(
  c: Context<AppEnv>,
  answer: SerializedAnswer,
  cache: "public" | "private",
): [string, string][] {
  return answerHeaders(c, [
    ["ETag", answer.etag],
    [
      "Cache-Control",
      cache === "public"
        ? `public, max-age=${PUBLIC_MAX_AGE_SECONDS}, must-revalidate`
        : "private, no-cache",
    ],
    ["Cache-Tag", answer.cacheTag],
  ]);
}

const SECURITY_HEADER_PAIRS = Object.entries(PUBLIC_API_SECURITY_HEADERS);

/**
 * Every header of a public JSON answer, in one list the Response is built from: its own, then
 * what the /v1 middleware would add (CORS, security headers), so the answer is final.
 */
function answerHeaders(
  c: Context<AppEnv>,
  own: [string, string][],
): [string, string][] {
  return [
    ["Content-Type", "application/json; charset=UTF-8"],
    // One field line: a repeated header name costs Deno a slower conversion of the whole list
    // when the Response is built (about 6 us of a list read's CPU, docs/benchmarks.md).
    ["Vary", "Authorization, Origin"],
    ...own,
    ...corsAnswerHeaders(c),
    ...SECURITY_HEADER_PAIRS,
  ];
}
