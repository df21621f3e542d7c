// This module is browser compatible.
// `If-None-Match` as RFC 9110 section 13.1.2 reads it: `*` or a list of entity tags, compared weakly.

/**
 * The entity tags of an `If-None-Match` (or `If-Match`) value, each without its `W/` prefix
 * (`"abc"`), or `"*"` for the wildcard. An opaque tag may hold commas, so the list is read
 * tag by tag rather than split; anything unreadable ends the list.
 */
export function entityTags(header: string): string[] | "*" {
  const value = header.trim();
  if (value === "*") return "*";
  const tags: string[] = [];
  let at = 0;
  while (at < value.length) {
    while (at < value.length && /[\s,]/.test(value[at])) at++;
    if (at >= value.length) break;
    if (value.startsWith("W/", at)) at += 2;
    if (value[at] !== '"') break;
    const close = value.indexOf('"', at + 1);
    if (close < 0) break;
    tags.push(value.slice(at, close + 1));
    at = close + 1;
  }
  return tags;
}

/**
 * True when `If-None-Match` names the current representation: `*`, or any listed tag equal to
 * `etag` by weak comparison (RFC 9110: a `W/` prefix on either side is ignored), so a cache or
 * proxy that weakened the validator still gets its 304.
 */
export function noneMatchHits(
  header: string | null | undefined,
  etag: string,
): boolean {
  if (!header) return false;
  const tags = entityTags(header);
  if (tags === "*") return true;
  const current = etag.startsWith("W/") ? etag.slice(2) : etag;
  return tags.includes(current);
}
