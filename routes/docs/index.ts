// GET /docs: the API docs page, both OpenAPI documents rendered by Swagger UI served from this service.
import type { Context } from "hono";
import type { AppEnv } from "../../core/web/env.ts";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API docs · Stave</title>
<link rel="stylesheet" href="/docs/viewer/swagger-ui.css">
<style>body { margin: 0; } .swagger-ui .topbar .download-url-wrapper { flex-wrap: wrap; }</style>
</head>
<body>
<main id="docs">
<noscript>
<h1>Stave API docs</h1>
<p>This page needs JavaScript. The documents themselves:
<a href="/docs/openapi-public-v1.json">public read API</a> and
<a href="/docs/openapi-v1.json">Management API</a> (OpenAPI 3.1).</p>
</noscript>
</main>
<script src="/docs/viewer/swagger-ui-bundle.js"></script>
<script src="/docs/viewer/swagger-ui-standalone-preset.js"></script>
<script src="/_static/docs.js"></script>
</body>
</html>
`;

export const handler = {
  GET(c: Context<AppEnv>) {
    return c.html(PAGE, 200, { "cache-control": "public, max-age=300" });
  },
};
