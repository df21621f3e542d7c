// GET /api/plugin/v1/proposals/{id}: one proposal in scope.
import type { Context } from "hono";
import { readProposal } from "../../../../../core/plugins/writes_api.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

export const handler = {
  GET: (c: Context<AppEnv>) => readProposal(c),
};
