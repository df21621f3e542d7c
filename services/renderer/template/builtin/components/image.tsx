// Platform image component: applies a use's crop and focal point and, with transform hosts
// (MANAGED_IMAGE_TRANSFORM_ORIGINS), draws `srcset` widths from the first host; without one,
// from the library's own image variants.

/** A media reference of a page document, or an item's image media object. */
export interface ImageSource {
  url: string;
  alt?: string | null;
  width?: number | null;
  height?: number | null;
  crop?: { x: number; y: number; width: number; height: number };
  focal?: { x: number; y: number } | null;
}

/** Widths drawn in `srcset`. */
export const IMAGE_WIDTHS = [320, 640, 960, 1280, 1920] as const;

const pct = (n: number) => `${Math.round(n * 10000) / 100}%`;

/** The transform host's address of `source` at `width`, with its crop and focal point. */
export function transformUrl(
  origin: string,
  source: ImageSource,
  width: number,
): string {
  const url = new URL("/image", origin);
  url.searchParams.set("url", source.url);
  url.searchParams.set("w", String(width));
  const c = source.crop;
  if (c) url.searchParams.set("crop", [c.x, c.y, c.width, c.height].join(","));
  if (source.focal) {
    url.searchParams.set("fx", String(source.focal.x));
    url.searchParams.set("fy", String(source.focal.y));
  }
  return url.href;
}

const LIBRARY_IMAGE =
  /\/media\/[0-9a-f-]{36}\/[0-9a-f-]{36}\.(png|jpg|gif|webp|avif|tif)$/;

/**
 * Without a transform host, a library image's own variants (`?width=`, WebP by `Accept`): the
 * `srcset` widths up to the original's, or null for any other address or a tiny image.
 */
export function librarySrcset(
  source: ImageSource,
): { src: string; srcset: string } | null {
  if (!LIBRARY_IMAGE.test(source.url)) return null;
  const widths = IMAGE_WIDTHS.filter((w) =>
    source.width == null || w <= source.width
  );
  if (widths.length === 0) return null;
  const at = (w: number) => `${source.url}?width=${w}`;
  return {
    src: at(widths.includes(1280) ? 1280 : widths[widths.length - 1]),
    srcset: widths.map((w) => `${at(w)} ${w}w`).join(", "),
  };
}

/** Props of {@link Image}. */
export interface ImageProps {
  source: ImageSource;
  origins: readonly string[];
  /** The `sizes` attribute: how wide the image is drawn. */
  sizes: string;
  /** A fixed frame such as `16 / 9` (the image covers it around its focal point). */
  ratio?: string;
  /** Above the fold: load at once with high priority. */
  priority?: boolean;
  class?: string;
}

/** An `<img>` that keeps its frame, crop and focal point. */
export function Image(props: ImageProps) {
  const { source, origins } = props;
  const host = origins[0];
  const style: Record<string, string> = {};
  if (source.focal) {
    style["object-position"] = `${pct(source.focal.x)} ${pct(source.focal.y)}`;
  }
  // Without a transform host the crop is drawn by the browser (object-view-box).
  const c = source.crop;
  if (c && !host) {
    style["object-view-box"] = `inset(${pct(c.y)} ${pct(1 - c.x - c.width)} ${
      pct(1 - c.y - c.height)
    } ${pct(c.x)})`;
  }
  if (props.ratio) style["aspect-ratio"] = props.ratio;
  const own = host ? null : librarySrcset(source);
  return (
    <img
      class={props.class}
      src={host ? transformUrl(host, source, 1280) : own?.src ?? source.url}
      srcset={host
        ? IMAGE_WIDTHS.map((w) => `${transformUrl(host, source, w)} ${w}w`)
          .join(", ")
        : own?.srcset}
      sizes={host || own ? props.sizes : undefined}
      alt={source.alt ?? ""}
      width={source.width ?? undefined}
      height={source.height ?? undefined}
      loading={props.priority ? "eager" : "lazy"}
      fetchpriority={props.priority ? "high" : undefined}
      decoding="async"
      style={style}
    />
  );
}
