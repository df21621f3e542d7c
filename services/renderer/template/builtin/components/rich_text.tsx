// Rich text of a post: the service's checked HTML as is, except plugin blocks, whose vendor
// markup runs only inside a sandboxed frame with an opaque origin (no parent-document access).

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

/** The body's HTML with every plugin block moved into its own sandboxed frame. */
export function richTextHtml(html: string): string {
  return html.replace(FIGURE, (whole, text: string) => {
    const attrs = attributes(text);
    return "data-block" in attrs ? blockFrame(attrs) : whole;
  });
}

/** A rich-text field. */
export function RichText({ html }: { html: string }) {
  return (
    <div
      class="prose"
      dangerouslySetInnerHTML={{ __html: richTextHtml(html) }}
    />
  );
}
