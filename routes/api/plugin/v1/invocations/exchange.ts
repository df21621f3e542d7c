// POST /api/plugin/v1/invocations/exchange: an operation's one-time code for a delegation
// recorded with the invocation (spec 1 parts 2.4, 2.5; LAU-021 to LAU-023, PEXT-013).
import type { Context } from "hono";
import { z } from "zod";
import {
  dataResponse,
  installationOf,
  parseBody,
  refusalResponse,
} from "../../../../../core/plugins/api_support.ts";
import { exchangeInvocation } from "../../../../../core/plugins/invocations.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

const body = z.strictObject({ code: z.string().min(1).max(128) });

export const handler = {
  async POST(c: Context<AppEnv>) {
    const installation = installationOf(c);
    const parsed = await parseBody(c, body);
    if (!parsed.ok) return refusalResponse(parsed);
    const { db, kv, clock } = c.var.services;
    const exchanged = await exchangeInvocation(
      { db, kv, clock, installation },
      parsed.value.code,
    );
    if (!exchanged.ok) return refusalResponse(exchanged);
    return dataResponse(exchanged.exchange);
  },
};
