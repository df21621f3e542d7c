// GET /docs/openapi-public-v1.json: the public read API's OpenAPI 3.1 document, as generated from core/public.
import type { Context } from "hono";
import document from "../../generated/openapi-public-v1.json" with {
  type: "json",
};
import type { AppEnv } from "../../core/web/env.ts";

export const handler = {
  GET(c: Context<AppEnv>) {
    return c.json(document, 200, {
      "cache-control": "public, max-age=300",
      "access-control-allow-origin": "*",
    });
  },
};
