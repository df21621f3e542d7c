// The HTML shell around every page.
import type { LayoutProps } from "../core/web/manifest.ts";

export default function App({ children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Stave</title>
        <link rel="stylesheet" href="/_static/admin.css" />
      </head>
      <body>{children}</body>
    </html>
  );
}
