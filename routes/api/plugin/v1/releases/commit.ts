// POST /api/plugin/v1/releases/commit: one atomic same-site publication command (spec 1 part 4.1).
import type { Context } from "hono";
import { releaseCommitRoute } from "../../../../../core/plugins/release_route.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

export const handler = {
  POST(c: Context<AppEnv>) {
    return releaseCommitRoute(c);
  },
};
