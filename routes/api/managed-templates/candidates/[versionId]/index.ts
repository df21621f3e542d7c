// GET /api/managed-templates/candidates/{versionId} (site:infra): one candidate and its report.
import type { Context } from "hono";
import { findCandidate } from "../../../../../core/templates/candidates.ts";
import { readReport } from "../../../../../core/templates/accept.ts";
import {
  refuseTemplate,
  templateContext,
} from "../../../../../core/templates/http.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const ctx = await templateContext(c, ["site:infra"]);
    const candidate = await findCandidate(ctx, c.req.param("versionId") ?? "");
    if (!candidate) return refuseTemplate({ ok: false, code: "not_found" });
    return c.json({
      data: candidate,
      report: await readReport(ctx, candidate.id),
    });
  },
};
