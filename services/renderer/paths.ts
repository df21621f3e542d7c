// Reads a request path into what the site serves there; a malformed path gets no lookup
// (template rule 9: undecodable, encoded slash, backslash, control character, dot segment).

/** What a path names, before the renderer asks the public API. */
export type Route =
  | { kind: "robots" }
  | { kind: "sitemap" }
  | { kind: "sitemap_chunk"; model: string; number: number }
  | { kind: "content"; segments: string[] };

/** Why a path was refused without a lookup. */
export type Malformed =
  | "undecodable"
  | "encoded_slash"
  | "backslash"
  | "control_character"
  | "dot_segment";

/** The first rule `rawPath` (as sent, still percent-encoded) breaks, or null. */
export function malformedPath(rawPath: string): Malformed | null {
  if (/%(2f|5c)/i.test(rawPath)) {
    return /%2f/i.test(rawPath) ? "encoded_slash" : "backslash";
  }
  if (rawPath.includes("\\")) return "backslash";
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return "undecodable";
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return "control_character";
  if (decoded.split("/").some((s) => s === "." || s === "..")) {
    return "dot_segment";
  }
  return null;
}

/** The route of a well-formed path. */
export function routeOf(rawPath: string): Route {
  if (rawPath === "/robots.txt") return { kind: "robots" };
  if (rawPath === "/sitemap.xml") return { kind: "sitemap" };
  const chunk = /^\/sitemap-([a-z][a-z0-9_-]{0,63})-([1-9][0-9]{0,5})\.xml$/
    .exec(rawPath);
  if (chunk) {
    return { kind: "sitemap_chunk", model: chunk[1], number: Number(chunk[2]) };
  }
  const segments = rawPath.split("/").filter((s) => s !== "").map((s) =>
    decodeURIComponent(s)
  );
  return { kind: "content", segments };
}

/** Language codes a first segment may be (`en`, `de-CH`, `pt_BR`). */
export function mayBeLocale(segment: string): boolean {
  return /^[a-z]{2,3}([_-][A-Za-z0-9]{2,8})?$/.test(segment);
}

/** The address of an item the built-in template draws (pages at the root, posts under /posts). */
export function addressOf(
  item: { model: string; slug: string; locale: string },
  defaultLocale: string,
): string {
  const prefix = item.locale === defaultLocale ? "" : `/${item.locale}`;
  if (item.model === "pages") {
    return item.slug === HOME_SLUG
      ? prefix || "/"
      : `${prefix}/${encodeURIComponent(item.slug)}`;
  }
  return `${prefix}/${item.model}/${encodeURIComponent(item.slug)}`;
}

/** The page whose address is this slug in the default language is the site's home page. */
export const HOME_SLUG = "home";

/** Every path the renderer answers, as patterns (the docs check reads them). */
export const RENDERER_PATHS = [
  "/",
  "/{page}",
  "/{locale}",
  "/{locale}/{page}",
  "/posts",
  "/posts/{slug}",
  "/{locale}/posts",
  "/{locale}/posts/{slug}",
  "/posts/{field}/{value}",
  "/{locale}/posts/{field}/{value}",
  "/search",
  "/{locale}/search",
  "/robots.txt",
  "/sitemap.xml",
  "/sitemap-{model}-{number}.xml",
  "/_site/{file}",
  "/v1/interactions/form.submit",
] as const;
