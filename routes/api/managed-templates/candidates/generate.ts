// POST /api/managed-templates/candidates/generate (site:deploy and ai:generate): a candidate
// written by a model follows the upload's path once an inference connection and the site's
// generation model are set; this service has no inference client of its own, so until one is
// connected it answers what is missing (spec 3 part 4.8 rules 1 and 5).
import type { Context } from "hono";
import {
  type Unavailable,
  unavailable,
} from "../../../../core/templates/candidates.ts";
import {
  refuseTemplate,
  templateContext,
} from "../../../../core/templates/http.ts";
import type { AppEnv } from "../../../../core/web/env.ts";

export const handler = {
  async POST(c: Context<AppEnv>) {
    const ctx = await templateContext(c, ["site:deploy", "ai:generate"]);
    const noClient: Unavailable = {
      ok: false,
      code: "template_operation_unavailable",
      operation: "generate",
      missing: ["inference connection"],
    };
    refuseTemplate(unavailable(ctx.settings, "generate") ?? noClient);
  },
};
