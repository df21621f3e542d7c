// The Content-Security-Policy of every page the service answers, in one place: the app applies it
// to all answers, and a page that frames a plugin's reviewed origin (spec 1 part 1, PEXT-003)
// answers the same policy with those origins added to `frame-src`. Public API answers are data,
// never documents, and carry a shorter set (publicApiHeaders).
import type { MiddlewareHandler } from "hono";
import { isFinalAnswer } from "./final_answers.ts";

/** The directives every answer carries (the app's `secureHeaders`). */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", "data:", "https:"],
  frameAncestors: ["'none'"],
};

function directive(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The policy as a header value, each directive of `extra` widened (a new one goes last). */
function policyWith(extra: Record<string, readonly string[]>): string {
  const directives: Record<string, readonly string[]> = {
    ...CONTENT_SECURITY_POLICY,
  };
  for (const [name, values] of Object.entries(extra)) {
    if (values.length === 0) continue;
    directives[name] = [...(directives[name] ?? []), ...new Set(values)];
  }
  return Object.entries(directives).map(([name, values]) =>
    `${directive(name)} ${values.join(" ")}`
  ).join("; ");
}

/** The policy as a header value, with `frameOrigins` (exact https or dev origins) framable. */
export function cspAllowingFrames(frameOrigins: readonly string[]): string {
  return policyWith({ frameSrc: frameOrigins });
}

/**
 * The policy as a header value with `imageOrigins` added to `img-src`: a plugin media source's
 * thumbnails on a development origin (plain http) show in the admin; https is allowed already.
 */
export function cspAllowingImages(imageOrigins: readonly string[]): string {
  return policyWith({ imgSrc: imageOrigins });
}

/**
 * What a public `/v1` answer needs against browsers that open it as a document: nothing may load
 * or run (`default-src 'none'`), nothing may frame it, no type sniffing, HTTPS kept. The eight
 * other headers pages carry (referrer, opener, DNS prefetch and the like) guard documents that
 * link, navigate and run scripts; on the hottest answers they cost about 500 bytes and the
 * server's time to set them (docs/benchmarks.md).
 */
export const PUBLIC_API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Strict-Transport-Security": "max-age=15552000; includeSubDomains",
};

/**
 * Sets {@link PUBLIC_API_SECURITY_HEADERS} on an answer that has not set them itself; a final
 * answer carries them already.
 */
export const publicApiHeaders: MiddlewareHandler =
  async function publicApiHeaders(
    c,
    next,
  ) {
    await next();
    if (isFinalAnswer(c)) return;
    const headers = c.res.headers;
    for (const [name, value] of Object.entries(PUBLIC_API_SECURITY_HEADERS)) {
      if (!headers.has(name)) headers.set(name, value);
    }
  };
