// The HTML shell around every page; a page names its document title with `data.title`.
import type { LayoutProps } from "../core/web/manifest.ts";
import { adminStylesheetHref } from "../core/web/static_files.ts";

// A page without its own title is named by the last crumb of its admin shell, so no signed-in
// page is a bare "Stave" among a person's tabs.
function titleOf(data: unknown): string {
  if (data && typeof data === "object") {
    const d = data as {
      title?: unknown;
      shell?: { crumbs?: { label?: unknown }[] };
    };
    if (typeof d.title === "string" && d.title !== "") {
      return `${d.title} · Stave`;
    }
    const crumb = d.shell?.crumbs?.at(-1)?.label;
    if (typeof crumb === "string" && crumb !== "") return `${crumb} · Stave`;
  }
  return "Stave";
}

export default function App({ children, data }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{titleOf(data)}</title>
        <link rel="stylesheet" href={adminStylesheetHref()} />
      </head>
      <body>{children}</body>
    </html>
  );
}
