// This module is browser compatible.
// Where a site's pages are served by its renderer, and the address an item has there, so the
// admin can open the rendered page ("View on site", previews) and say where the site is served.

/** The address the built-in template gives an item: pages at the root, posts under /posts. */
export function renderedPath(
  item: { model: string; slug: string; locale: string },
  defaultLocale: string,
): string | null {
  if (item.model !== "pages" && item.model !== "posts") return null;
  const prefix = item.locale === defaultLocale ? "" : `/${item.locale}`;
  if (item.model === "posts") {
    return `${prefix}/posts/${encodeURIComponent(item.slug)}`;
  }
  return item.slug === "home"
    ? prefix || "/"
    : `${prefix}/${encodeURIComponent(item.slug)}`;
}

/** Reads `SITE_RENDERER_URLS`: comma-separated `<domain>=<origin>` pairs. */
export function parseSiteRenderers(
  value: string,
): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const pair of value.split(",").map((p) => p.trim()).filter(Boolean)) {
    const m = /^([a-z0-9.-]+)=(https?:\/\/[^/\s]+)\/?$/.exec(pair);
    if (!m) return null;
    try {
      if (new URL(m[2]).origin !== m[2].replace(/\/$/, "")) return null;
    } catch {
      return null;
    }
    out[m[1]] = m[2].replace(/\/$/, "");
  }
  return out;
}
