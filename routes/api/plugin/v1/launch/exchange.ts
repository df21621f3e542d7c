// POST /api/plugin/v1/launch/exchange: a launch code for a delegation record (spec 1 part 2.4).
import type { Context } from "hono";
import { z } from "zod";
import {
  dataResponse,
  installationOf,
  parseBody,
  refusalResponse,
} from "../../../../../core/plugins/api_support.ts";
import { exchangeLaunch } from "../../../../../core/plugins/delegations.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

const body = z.strictObject({ code: z.string().min(1).max(128) });

export const handler = {
  async POST(c: Context<AppEnv>) {
    const installation = installationOf(c);
    const parsed = await parseBody(c, body);
    if (!parsed.ok) return refusalResponse(parsed);
    const { db, kv, clock } = c.var.services;
    const exchanged = await exchangeLaunch(
      { db, kv, clock, installation },
      parsed.value.code,
    );
    if (!exchanged.ok) return refusalResponse(exchanged);
    return dataResponse(exchanged.delegation);
  },
};
