// This module is browser compatible.
// Variant addresses of library images: the delivery URL with a width (and format) query.

const DELIVERY =
  /\/media\/[0-9a-f-]{36}\/[0-9a-f-]{36}\.(png|jpg|gif|webp|avif|tif)$/;

/**
 * The address of `url` resized to `width` (one of the listed variant sizes), or `url` itself
 * when it is not a library image the service resizes (another kind, a plugin's reference).
 */
export function variantUrl(
  url: string,
  width: number,
  options: { height?: number; fit?: "cover" | "contain" | "inside" } = {},
): string {
  if (!DELIVERY.test(url.split("?")[0])) return url;
  const query = new URLSearchParams({ width: String(width) });
  if (options.height) query.set("height", String(options.height));
  if (options.fit) query.set("fit", options.fit);
  return `${url.split("?")[0]}?${query}`;
}

/** A `srcset` of `url` at 1× and 2× `width` (both listed sizes), or undefined for non-resizable URLs. */
export function variantSrcset(url: string, width: number): string | undefined {
  const one = variantUrl(url, width);
  if (one === url) return undefined;
  return `${one} 1x, ${variantUrl(url, width * 2)} 2x`;
}
