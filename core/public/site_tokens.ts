// Site API tokens: `sv_site_` + 43 base64url characters (256 random bits), stored as SHA-256 digests, scoped to models.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { randomToken, sha256Hex } from "../auth/secrets.ts";

/** Every site API token starts with this prefix, so leaked tokens are easy to scan for. */
export const SITE_TOKEN_PREFIX = "sv_site_";
/** The shape of a site API token. */
export const SITE_TOKEN = /^sv_site_[A-Za-z0-9_-]{43}$/;

/** What a verified token may read beyond public models. */
export interface SiteTokenScope {
  id: string;
  /** Model ids the token's scope names. */
  modelIds: string[];
}

/** Options of {@link issueSiteToken}. */
export interface IssueSiteTokenOptions {
  siteId: string;
  name: string;
  /** Ids of the site's models the token may read (public or private). */
  modelIds: string[];
  expiresAt?: Date | null;
}

/** Issues a token; the clear text is answered once and never stored. */
export async function issueSiteToken(
  ctx: { db: Db; clock: Clock },
  options: IssueSiteTokenOptions,
): Promise<
  | { ok: true; id: string; token: string }
  | { ok: false; code: "input_invalid"; message: string }
> {
  const name = options.name.trim();
  if (name.length < 1 || name.length > 100) {
    return {
      ok: false,
      code: "input_invalid",
      message: "Name must be 1 to 100 characters",
    };
  }
  const wanted = [...new Set(options.modelIds.map((id) => id.toLowerCase()))];
  if (wanted.length > 0) {
    const found = await ctx.db.selectFrom("models").select("id")
      .where("site_id", "=", options.siteId).where("deleted_at", "is", null)
      .where("id", "in", wanted).execute();
    if (found.length !== wanted.length) {
      return {
        ok: false,
        code: "input_invalid",
        message: "Every model id must name a model of this site",
      };
    }
  }
  const token = randomToken(SITE_TOKEN_PREFIX);
  const id = crypto.randomUUID();
  await ctx.db.insertInto("site_api_tokens").values({
    id,
    site_id: options.siteId,
    name,
    model_ids: JSON.stringify(wanted),
    digest: await sha256Hex(token),
    created_at: ctx.clock.now(),
    expires_at: options.expiresAt ?? null,
    revoked_at: null,
  }).execute();
  return { ok: true, id, token };
}

/** Revokes a token of the site; answers false when there was none to revoke. */
export async function revokeSiteToken(
  ctx: { db: Db; clock: Clock },
  siteId: string,
  id: string,
): Promise<boolean> {
  const result = await ctx.db.updateTable("site_api_tokens")
    .set({ revoked_at: ctx.clock.now() })
    .where("site_id", "=", siteId).where("id", "=", id)
    .where("revoked_at", "is", null).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The scope of a live token of this site, or null (unknown, other site, expired, revoked, malformed). */
export async function verifySiteToken(
  ctx: { db: Db; clock: Clock },
  siteId: string,
  token: string,
): Promise<SiteTokenScope | null> {
  if (!SITE_TOKEN.test(token)) return null;
  const row = await ctx.db.selectFrom("site_api_tokens")
    .select(["id", "site_id", "model_ids", "expires_at", "revoked_at"])
    .where("digest", "=", await sha256Hex(token)).executeTakeFirst();
  return tokenScope(row ?? null, siteId, ctx.clock.now());
}

/** The scope of a stored token row if it is live and of this site, or null. */
export function tokenScope(
  row: {
    id: string;
    site_id: string;
    model_ids: unknown;
    expires_at: Date | null;
    revoked_at: Date | null;
  } | null,
  siteId: string,
  now: Date,
): SiteTokenScope | null {
  if (!row || row.site_id !== siteId || row.revoked_at !== null) return null;
  if (row.expires_at !== null && row.expires_at <= now) return null;
  return { id: row.id, modelIds: row.model_ids as string[] };
}
