// This module is browser compatible.
// The small value schemas a plugin manifest is built from: keys, labels, ids, versions, URLs
// and origins, tones, and the duplicate-key check every list of the manifest shares.
import { z } from "zod";

/** A lowercase identifier used for ids inside a manifest (views, actions, operations, fields…). */
export const keySchema = z.string().regex(
  /^[a-z][a-z0-9_-]{0,63}$/,
  "expected a lowercase key: a letter, then letters, digits, _ or -, at most 64 characters",
);

export const label = z.string().trim().min(1).max(80);
export const description = z.string().trim().min(1).max(500);

/** A reverse-domain plugin id such as `com.example.scheduling`. */
export const pluginIdSchema = z.string().max(128).regex(
  /^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$/,
  'expected a reverse-domain id such as "com.example.scheduling"',
);

export const versionSchema = z.string().max(64).regex(
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$/,
  'expected a semantic version such as "0.1.0"',
);

/**
 * An absolute plugin URL: http(s), no credentials, no fragment. Whether http is allowed
 * and that it shares the manifest's origin are checked by parseManifest().
 */
export const pluginUrlSchema = z.string().max(2048).refine((value) => {
  const url = safeUrl(value);
  return url !== null &&
    (url.protocol === "https:" || url.protocol === "http:") &&
    url.username === "" && url.password === "" && url.hash === "" &&
    !value.includes("#");
}, "expected an absolute http(s) URL without credentials or fragment");

/** An https URL (result `links`). */
export const httpsUrlSchema = z.string().max(2048).refine((value) => {
  const url = safeUrl(value);
  return url !== null && url.protocol === "https:" && url.username === "" &&
    url.password === "";
}, "expected an https URL without credentials");

/** A bare https origin such as `https://cdn.example.com` (media delivery origins). */
export const httpsOriginSchema = z.string().max(255).refine((value) => {
  const url = safeUrl(value);
  return url !== null && url.protocol === "https:" && url.origin === value;
}, 'expected a bare https origin such as "https://cdn.example.com"');

/** The tone of a badge or text block. */
export const toneSchema = z.enum([
  "neutral",
  "info",
  "success",
  "warning",
  "danger",
]);

export function safeUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

export function addDuplicateIssues(
  ctx: z.RefinementCtx,
  values: readonly unknown[],
  path: (string | number)[],
): void {
  const seen = new Set<unknown>();
  values.forEach((value, i) => {
    if (seen.has(value)) {
      ctx.addIssue({
        code: "custom",
        path: [...path, i],
        message: `Duplicate value "${String(value)}"`,
      });
    }
    seen.add(value);
  });
}
