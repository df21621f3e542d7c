// Rich text of a post: the service's checked HTML as is, except plugin blocks, whose vendor
// markup runs only inside a sandboxed frame with an opaque origin (no parent-document access),
// and library images, drawn from the media objects the public answer carries for the field.
import type { MediaObject } from "../../mod.ts";
import {
  IMAGE_WIDTHS,
  type ImageSource,
  librarySrcset,
  transformUrl,
} from "./image.tsx";

// Attribute values are quoted and may hold ">" (a block's JSON values), so they are read whole.
const FIGURE = /<figure((?:\s+[a-z-]+="[^"]*")*)\s*>\s*<\/figure>/g;

function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/([a-z-]+)="([^"]*)"/g)) {
    out[m[1]] = decodeEntities(m[2]);
  }
  return out;
}

function decodeEntities(text: string): string {
  return text.replace(
    /&(quot|amp|lt|gt|#39|#x27|apos);/g,
    (_, e: string) =>
      ({
        quot: '"',
        amp: "&",
        lt: "<",
        gt: ">",
        "#39": "'",
        "#x27": "'",
        apos: "'",
      })[e] ?? "",
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The document a block's frame shows: its vendor markup (`html` value) when it has one, else its
 * text values. It runs with scripts allowed but never with the page's origin.
 */
export function blockDocument(values: Record<string, unknown>): string {
  const vendor = typeof values.html === "string" ? values.html : null;
  const rest = Object.entries(values).filter(([k, v]) =>
    k !== "html" && typeof v === "string"
  )
    .map(([, v]) => `<p>${escapeHtml(v as string)}</p>`).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1f2328}</style></head><body>${
    vendor ?? rest
  }</body></html>`;
}

/** The frame that holds one plugin block. */
export function blockFrame(attrs: Record<string, string>): string {
  let values: Record<string, unknown> = {};
  try {
    values = JSON.parse(attrs["data-values"] ?? "{}");
  } catch { /* the service checked it; an unreadable one shows empty */ }
  const title = typeof values.title === "string"
    ? values.title
    : `${attrs["data-type"] ?? "Plugin"} block`;
  return `<figure class="block-frame"><iframe sandbox="allow-scripts" referrerpolicy="no-referrer" loading="lazy" title="${
    escapeHtml(title)
  }" srcdoc="${escapeHtml(blockDocument(values))}"></iframe></figure>`;
}

// A media figure's opening tag, and a gallery's image (both name a library item by id).
const MEDIA_FIGURE = /<figure((?:\s+[a-z-]+="[^"]*")*)\s*>/g;
const MEDIA_IMG = /<img((?:\s+[a-z-]+="[^"]*")*)\s*\/?>/g;

/** How rich-text images are drawn: the field's media objects and the transform hosts. */
export interface RichTextMedia {
  media?: readonly MediaObject[] | null;
  origins?: readonly string[];
  /** The `sizes` attribute of body images. */
  sizes?: string;
}

/**
 * An `<img>` for a library image, with `srcset` from the first transform host or the library's
 * own variants, and its width and height so the page does not shift while it loads.
 */
export function imageTag(
  media: MediaObject,
  alt: string | null,
  options: RichTextMedia,
): string {
  const source: ImageSource = {
    url: media.url,
    width: media.width,
    height: media.height,
    focal: media.focal,
  };
  const host = options.origins?.[0];
  const own = host ? null : librarySrcset(source);
  const src = host ? transformUrl(host, source, 1280) : own?.src ?? media.url;
  const srcset = host
    ? IMAGE_WIDTHS.map((w) => `${transformUrl(host, source, w)} ${w}w`).join(
      ", ",
    )
    : own?.srcset;
  const attrs: [string, string | number | null | undefined][] = [
    ["src", src],
    ["srcset", srcset],
    [
      "sizes",
      srcset ? options.sizes ?? "(min-width: 48rem) 44rem, 100vw" : null,
    ],
    ["width", media.width],
    ["height", media.height],
    ["alt", alt ?? media.alt ?? ""],
    ["loading", "lazy"],
    ["decoding", "async"],
  ];
  return `<img ${
    attrs.filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `${k}="${escapeHtml(String(v))}"`).join(" ")
  }>`;
}

/** The body's HTML with plugin blocks in sandboxed frames and library images drawn. */
export function richTextHtml(
  html: string,
  options: RichTextMedia = {},
): string {
  const framed = html.replace(FIGURE, (whole, text: string) => {
    const attrs = attributes(text);
    return "data-block" in attrs ? blockFrame(attrs) : whole;
  });
  const byId = new Map(
    (options.media ?? []).filter((m) => m && m.kind === "image").map((
      m,
    ) => [m.id, m]),
  );
  if (byId.size === 0) return framed;
  return framed.replace(MEDIA_FIGURE, (whole, text: string) => {
    const attrs = attributes(text);
    const media = attrs["data-figure"] === "media"
      ? byId.get((attrs["data-media"] ?? "").toLowerCase())
      : undefined;
    return media ? `${whole}${imageTag(media, null, options)}` : whole;
  }).replace(MEDIA_IMG, (whole, text: string) => {
    const attrs = attributes(text);
    const media = byId.get((attrs["data-media"] ?? "").toLowerCase());
    return media ? imageTag(media, attrs.alt || null, options) : whole;
  });
}

/** A rich-text field; `media` are the library items the public answer carries for it. */
export function RichText(
  { html, ...options }: { html: string } & RichTextMedia,
) {
  return (
    <div
      class="prose"
      dangerouslySetInnerHTML={{ __html: richTextHtml(html, options) }}
    />
  );
}
