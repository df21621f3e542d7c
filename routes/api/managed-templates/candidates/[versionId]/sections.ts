// GET /api/managed-templates/candidates/{versionId}/sections (site:infra): per registered key the
// version accepting would give, its difference from the newest promoted version and how many
// pages still pin an older one (spec 3 part 4.8, TPL-016).
import type { Context } from "hono";
import { sectionDiff } from "../../../../../core/templates/accept.ts";
import {
  refuseTemplate,
  templateContext,
} from "../../../../../core/templates/http.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const ctx = await templateContext(c, ["site:infra"]);
    const diff = await sectionDiff(ctx, c.req.param("versionId") ?? "");
    if (!diff.ok) refuseTemplate(diff);
    return c.json({ data: diff.data });
  },
};
