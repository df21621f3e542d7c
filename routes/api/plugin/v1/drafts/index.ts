// PUT, GET /api/plugin/v1/drafts: the delegated person's working draft of one language.
import type { Context } from "hono";
import { getDraft, putDraft } from "../../../../../core/plugins/writes_api.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

export const handler = {
  GET: (c: Context<AppEnv>) => getDraft(c),
  PUT: (c: Context<AppEnv>) => putDraft(c),
};
