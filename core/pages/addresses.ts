// This module is browser compatible.
// Page addresses the service keeps for its own routes (`slug_reserved`, ENT-031; docs/pages.md).

/** Slugs no page may take: the service's own paths and the generated sites' fixed pages. */
export const RESERVED_PAGE_SLUGS: ReadonlySet<string> = new Set([
  "admin",
  "api",
  "v1",
  "health",
  "search",
  "robots-txt",
  "sitemap-xml",
  "static",
]);

/** True when a page may not use `slug` as its address (`sitemap-…` chunk names included). */
export function isReservedPageSlug(slug: string): boolean {
  return RESERVED_PAGE_SLUGS.has(slug) || slug.startsWith("sitemap-");
}
