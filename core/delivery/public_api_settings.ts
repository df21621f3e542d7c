// Settings → API for the public read API: browser origins and site API tokens, for people holding site:infra.
import { personHolding } from "../access/person_authority.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import {
  getBrowserOrigins,
  type OriginProblem,
  setBrowserOrigins,
} from "../public/browser_origins.ts";
import { issueSiteToken, revokeSiteToken } from "../public/site_tokens.ts";

/** A signed-in person acting on one site. */
export interface PublicApiContext {
  db: Db;
  clock: Clock;
  siteId: string;
  personId: string;
}

/** A site API token as listed, never with its secret. */
export interface SiteTokenRow {
  id: string;
  name: string;
  model_ids: string[];
  created_at: string;
  expires_at: string | null;
  revoked: boolean;
}

/** Refusals; nothing changes on any of them. */
export type PublicApiRefusal =
  | { ok: false; code: "missing_permission" }
  | {
    ok: false;
    code: "input_invalid";
    message: string;
    problems?: OriginProblem[];
  }
  | { ok: false; code: "not_found" };

async function mayManage(
  ctx: PublicApiContext,
): Promise<PublicApiRefusal | null> {
  const held = await personHolding(ctx.db, {
    siteId: ctx.siteId,
    personId: ctx.personId,
    permission: "site:infra",
  });
  return held.ok ? null : { ok: false, code: "missing_permission" };
}

/** The origins and tokens the page shows. */
export async function readPublicApiSettings(
  ctx: PublicApiContext,
): Promise<
  { ok: true; origins: string[]; tokens: SiteTokenRow[] } | PublicApiRefusal
> {
  const refused = await mayManage(ctx);
  if (refused) return refused;
  const rows = await ctx.db.selectFrom("site_api_tokens")
    .select([
      "id",
      "name",
      "model_ids",
      "created_at",
      "expires_at",
      "revoked_at",
    ])
    .where("site_id", "=", ctx.siteId).orderBy("created_at", "desc").orderBy(
      "id",
    ).execute();
  return {
    ok: true,
    origins: await getBrowserOrigins(ctx.db, ctx.siteId),
    tokens: rows.map((r) => ({
      id: r.id,
      name: r.name,
      model_ids: r.model_ids as string[],
      created_at: r.created_at.toISOString(),
      expires_at: r.expires_at?.toISOString() ?? null,
      revoked: r.revoked_at !== null,
    })),
  };
}

/** Replaces the browser origins (one complete origin per line, or `*`). */
export async function saveBrowserOrigins(
  ctx: PublicApiContext,
  text: string,
): Promise<{ ok: true; origins: string[] } | PublicApiRefusal> {
  const refused = await mayManage(ctx);
  if (refused) return refused;
  const saved = await setBrowserOrigins(ctx, ctx.siteId, text);
  if (!saved.ok) {
    return {
      ok: false,
      code: "input_invalid",
      message: saved.problems.map((p) => p.message).join("; "),
      problems: saved.problems,
    };
  }
  return saved;
}

/** Issues a site API token scoped to models; the token is answered once. */
export async function createSiteToken(
  ctx: PublicApiContext,
  input: { name: string; modelIds: string[] },
): Promise<{ ok: true; id: string; token: string } | PublicApiRefusal> {
  const refused = await mayManage(ctx);
  if (refused) return refused;
  return await issueSiteToken(ctx, {
    siteId: ctx.siteId,
    name: input.name,
    modelIds: input.modelIds,
  });
}

/** Revokes a site API token: it fails on its next request. */
export async function removeSiteToken(
  ctx: PublicApiContext,
  id: string,
): Promise<{ ok: true } | PublicApiRefusal> {
  const refused = await mayManage(ctx);
  if (refused) return refused;
  return await revokeSiteToken(ctx, ctx.siteId, id)
    ? { ok: true }
    : { ok: false, code: "not_found" };
}
