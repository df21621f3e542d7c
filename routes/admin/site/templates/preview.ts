// GET /admin/site/templates/preview?candidate=…&with=fixture:<name>|page:<id>:<locale>
// (site:infra): a candidate's preview in its own tab, under the admin's display policy.
import type { Context } from "hono";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import {
  FIXTURE_NAMES,
  type FixtureName,
} from "../../../../core/templates/fixtures.ts";
import {
  refuseTemplate,
  templateContext,
} from "../../../../core/templates/http.ts";
import {
  previewCandidate,
  type PreviewChoice,
} from "../../../../core/templates/preview.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";
import { previewPolicy } from "../../../api/managed-templates/candidates/[versionId]/preview.ts";

export const middleware = requireSignedIn;

export const handler = {
  async GET(c: Context<AppEnv>) {
    const ctx = await templateContext(c, ["site:infra"]);
    const id = c.req.query("candidate") ?? "";
    const [kind, a, b] = (c.req.query("with") ?? "").split(":");
    let choice: PreviewChoice;
    if (kind === "fixture" && FIXTURE_NAMES.includes(a as FixtureName)) {
      choice = { fixture: a as FixtureName };
    } else if (kind === "page" && a && b) {
      choice = { page_id: a, locale: b };
    } else {
      return refuse(
        400,
        "invalid_request",
        "Choose a sample page or a saved page",
      );
    }
    const drawn = await previewCandidate(ctx, {
      candidateId: id,
      choice,
      assetBase: `/api/managed-templates/candidates/${id}/site/`,
      readList: async (path) => {
        try {
          const res = await fetch(`${c.var.services.config.publicUrl}${path}`, {
            headers: { host: c.var.site.domain },
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
    return new Response(drawn.html, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": previewPolicy([]),
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
      },
    });
  },
};
