// POST /api/plugin/v1/content/{instance_id}/transitions/{target_state}: the transition command (spec 1 part 2.7).
import type { Context } from "hono";
import { transitionRoute } from "../../../../../../../core/plugins/transition_route.ts";
import type { AppEnv } from "../../../../../../../core/web/env.ts";

export const handler = {
  POST(c: Context<AppEnv>) {
    return transitionRoute(c);
  },
};
