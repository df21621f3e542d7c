// POST /api/plugin/v1/drafts/discard: discards the delegated person's draft.
import type { Context } from "hono";
import { postDiscardDraft } from "../../../../../core/plugins/writes_api.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

export const handler = {
  POST: (c: Context<AppEnv>) => postDiscardDraft(c),
};
