// GET /api/plugin-schemas/{manifest-v1,protocol-v1}.schema.json: the published plugin schemas (spec 1 part 9), public and site-independent.
import type { Context } from "hono";
import type { AppEnv } from "../../../core/web/env.ts";
import manifestSchema from "../../../manifest-v1.schema.json" with {
  type: "json",
};
import protocolSchema from "../../../protocol-v1.schema.json" with {
  type: "json",
};

const FILES: Record<string, string> = {
  "manifest-v1.schema.json": JSON.stringify(manifestSchema),
  "protocol-v1.schema.json": JSON.stringify(protocolSchema),
};

export const handler = {
  GET(c: Context<AppEnv>) {
    const name = c.req.param("file") ?? "";
    const text = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
    if (text === undefined) {
      return c.json({
        error: {
          code: "not_found",
          message:
            `No plugin schema "${name}": manifest-v1.schema.json and protocol-v1.schema.json are published`,
        },
      }, 404);
    }
    return c.body(text, 200, {
      "Content-Type": "application/schema+json; charset=utf-8",
      "Cache-Control": "public, max-age=300",
      // A public document: plugin tooling in a browser may read it.
      "Access-Control-Allow-Origin": "*",
    });
  },
};
