// POST /api/managed-templates/candidates/{versionId}/preview (site:infra): body `{ fixture }` or
// `{ page_id, locale }`; answers the drawn HTML under the admin's display policy: no scripts,
// frames, forms or base links, pictures only from this service and the transform hosts
// (spec 3 part 4.8 rule 2). Nothing is stored; the answer is never cached.
import type { Context } from "hono";
import { z } from "zod";
import { FIXTURE_NAMES } from "../../../../../core/templates/fixtures.ts";
import {
  refuseTemplate,
  templateContext,
} from "../../../../../core/templates/http.ts";
import { previewCandidate } from "../../../../../core/templates/preview.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";
import { refuse } from "../../../../../core/web/errors.ts";
import { readJsonBody } from "../../../../../core/web/json_body.ts";

const body = z.union([
  z.strictObject({ fixture: z.enum(FIXTURE_NAMES) }),
  z.strictObject({
    page_id: z.string().uuid(),
    locale: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  }),
]);

/** The admin's display policy for a preview. */
export function previewPolicy(imageOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: ${imageOrigins.join(" ")}`.trim(),
    "font-src 'self'",
    "script-src 'none'",
    "frame-src 'none'",
    "child-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
    "sandbox",
  ].join("; ");
}

export const handler = {
  async POST(c: Context<AppEnv>) {
    const ctx = await templateContext(c, ["site:infra"]);
    const parsed = body.safeParse(await readJsonBody(c.req.raw));
    if (!parsed.success) {
      return refuse(
        400,
        "invalid_request",
        "Send { fixture } (ordinary, long, sparse, no_images, error) or { page_id, locale }",
      );
    }
    const id = c.req.param("versionId") ?? "";
    const { config } = c.var.services;
    const host = c.var.site.domain;
    const drawn = await previewCandidate(ctx, {
      candidateId: id,
      choice: parsed.data,
      assetBase: `/api/managed-templates/candidates/${id}/site/`,
      // The page's lists come from this site's public API, as a visitor's renderer reads them.
      readList: async (path) => {
        try {
          const res = await fetch(`${config.publicUrl}${path}`, {
            headers: { host },
            signal: AbortSignal.timeout(10_000),
          });
          return res.status === 200
            ? await res.text()
            : (await res.body?.cancel(), null);
        } catch {
          return null;
        }
      },
    });
    if (!drawn.ok) refuseTemplate(drawn);
    const origins =
      (config.templateSettings.MANAGED_IMAGE_TRANSFORM_ORIGINS ?? "")
        .split(",").map((o) => o.trim()).filter((o) =>
          /^https:\/\/[^/]+$/.test(o)
        );
    return new Response(drawn.html, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": previewPolicy(origins),
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
      },
    });
  },
};
