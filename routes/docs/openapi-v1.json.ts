// GET /docs/openapi-v1.json: the Management API's OpenAPI 3.1 document, as generated from its contract.
import type { Context } from "hono";
import document from "../../generated/openapi-v1.json" with { type: "json" };
import type { AppEnv } from "../../core/web/env.ts";

export const handler = {
  GET(c: Context<AppEnv>) {
    return c.json(document, 200, {
      "cache-control": "public, max-age=300",
      "access-control-allow-origin": "*",
    });
  },
};
