// GET /api/plugin-schemas/{manifest-v1,protocol-v1}.schema.json: the published plugin schemas (spec 1 part 9), public and site-independent.
import type { Context } from "hono";
import type { AppEnv } from "../../../core/web/env.ts";
import { noneMatchHits } from "../../../core/web/etag.ts";
import manifestSchema from "../../../generated/manifest-v1.schema.json" with {
  type: "json",
};
import protocolSchema from "../../../generated/protocol-v1.schema.json" with {
  type: "json",
};

async function published(
  doc: unknown,
): Promise<{ text: string; etag: string }> {
  const text = JSON.stringify(doc);
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  const hex = Array.from(
    new Uint8Array(digest).slice(0, 12),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  return { text, etag: `"${hex}"` };
}

// The documents never change while the service runs: digest them once.
const FILES: Record<string, { text: string; etag: string }> = {
  "manifest-v1.schema.json": await published(manifestSchema),
  "protocol-v1.schema.json": await published(protocolSchema),
};

export const handler = {
  GET(c: Context<AppEnv>) {
    const name = c.req.param("file") ?? "";
    const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
    if (file === undefined) {
      return c.json({
        error: {
          code: "not_found",
          message:
            `No plugin schema "${name}": manifest-v1.schema.json and protocol-v1.schema.json are published`,
        },
      }, 404);
    }
    const headers = {
      "Content-Type": "application/schema+json; charset=utf-8",
      "Cache-Control": "public, max-age=300",
      ETag: file.etag,
      // A public document: plugin tooling in a browser may read it.
      "Access-Control-Allow-Origin": "*",
    };
    if (noneMatchHits(c.req.header("if-none-match"), file.etag)) {
      return c.body(null, 304, headers);
    }
    return c.body(file.text, 200, headers);
  },
};
