// The site's languages: list them and add one, audited, with the proof a lost answer is settled from.
import { sql } from "kysely";
import type { Actor } from "../access/actor.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";

/** One language of a site. */
export interface SiteLanguage {
  code: string;
  is_default: boolean;
  /** Order in the admin; the default language is 0. */
  position: number;
}

/** Context of {@link addSiteLanguage}; permission checks happen before the call. */
/** What a language code looks like: `en`, `de-AT` (the API and the admin check it the same way). */
export const LANGUAGE_CODE_PATTERN = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

export interface LanguageContext {
  db: Db;
  clock: Clock;
  siteId: string;
  actor: Actor;
}

/** Options of {@link addSiteLanguage}. */
export interface AddLanguageOptions {
  code: string;
  /** Digest of the request's idempotency key, stored with the audit entry in the same transaction. */
  keyDigest?: string | null;
}

/** The audit action of an added language. */
export const LANGUAGE_ADD_ACTION = "site.language.add";

/** The site's languages, default first, then by position. */
export async function listSiteLanguages(
  db: Db,
  siteId: string,
): Promise<SiteLanguage[]> {
  const rows = await db.selectFrom("site_languages")
    .select(["code", "is_default", "position"])
    .where("site_id", "=", siteId)
    .orderBy("is_default", "desc").orderBy("position").orderBy("code")
    .execute();
  return rows.map((r) => ({
    code: r.code,
    is_default: r.is_default,
    position: r.position,
  }));
}

/**
 * Adds `code` after the site's languages, with its audit entry, in one transaction.
 * A language the site has already is refused `locale_exists` and nothing changes.
 */
export async function addSiteLanguage(
  ctx: LanguageContext,
  options: AddLanguageOptions,
): Promise<
  { ok: true; language: SiteLanguage } | { ok: false; code: "locale_exists" }
> {
  const actor = await snapshotActor(ctx.db, ctx.siteId, ctx.actor);
  return await ctx.db.transaction().execute(async (trx) => {
    // Lock the site row so two additions never take the same position.
    await trx.selectFrom("sites").select("id").where("id", "=", ctx.siteId)
      .forUpdate().executeTakeFirstOrThrow();
    const rows = await trx.selectFrom("site_languages")
      .select(["code", "position"]).where("site_id", "=", ctx.siteId).execute();
    if (rows.some((r) => r.code === options.code)) {
      return { ok: false as const, code: "locale_exists" as const };
    }
    const position = rows.reduce((max, r) => Math.max(max, r.position), -1) +
      1;
    await trx.insertInto("site_languages").values({
      site_id: ctx.siteId,
      code: options.code,
      position,
      is_default: false,
    }).execute();
    const language = { code: options.code, is_default: false, position };
    await trx.insertInto("audit_entries").values({
      id: crypto.randomUUID(),
      site_id: ctx.siteId,
      actor: JSON.stringify(actor),
      action: LANGUAGE_ADD_ACTION,
      target: JSON.stringify({ kind: "site", site_id: ctx.siteId }),
      details: JSON.stringify({
        language,
        ...(options.keyDigest
          ? { idempotency_key_digest: options.keyDigest }
          : {}),
      }),
      created_at: ctx.clock.now(),
    }).execute();
    return { ok: true as const, language };
  });
}

/** The language an earlier addition under `keyDigest` wrote, read back from its audit entry. */
export async function findLanguageAddition(
  db: Db,
  siteId: string,
  keyDigest: string,
): Promise<SiteLanguage | null> {
  const rows = await db.selectFrom("audit_entries").select("details")
    .where("site_id", "=", siteId)
    .where("action", "=", LANGUAGE_ADD_ACTION)
    .where(sql<string>`details->>'idempotency_key_digest'`, "=", keyDigest)
    .execute();
  for (const row of rows) {
    const details = (typeof row.details === "string"
      ? JSON.parse(row.details)
      : row.details) as {
        language?: SiteLanguage;
        idempotency_key_digest?: string;
      };
    if (details.idempotency_key_digest === keyDigest && details.language) {
      return details.language;
    }
  }
  return null;
}
