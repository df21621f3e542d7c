// POST, GET /api/plugin/v1/content/{instance_id}/proposals: create or list proposals for the delegated person.
import type { Context } from "hono";
import {
  listProposals,
  postProposal,
} from "../../../../../../core/plugins/writes_api.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";

export const handler = {
  GET: (c: Context<AppEnv>) => listProposals(c),
  POST: (c: Context<AppEnv>) => postProposal(c),
};
