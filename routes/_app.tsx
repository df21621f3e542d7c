// The HTML shell around every page; a page names its document title with `data.title`.
import type { LayoutProps } from "../core/web/manifest.ts";
import { adminStylesheetHref } from "../core/web/static_files.ts";

function titleOf(data: unknown): string {
  if (data && typeof data === "object" && "title" in data) {
    const title = (data as { title: unknown }).title;
    if (typeof title === "string" && title !== "") return `${title} · Stave`;
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
