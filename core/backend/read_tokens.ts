// Deployed API read tokens (Settings → Source & delivery, site:infra): `sv_art_` + 43 base64url
// characters, answered once; only the SHA-256 digest is kept. A token reads the models its scope
// names from a generated backend, and only once the backend is regenerated and deployed: the
// service never serves these tokens itself. Scopes are model ids, never `*` (GACC-010..013).
import { personHolding } from "../access/person_authority.ts";
import { randomToken, sha256Hex } from "../auth/secrets.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { UUID } from "../models/field_types.ts";
import type { ReadToken } from "./generate/template/src/access.ts";

/** Every deployed read token starts with this prefix, so leaked ones are easy to scan for. */
export const READ_TOKEN_PREFIX = "sv_art_";
/** The shape of a deployed read token. */
export const READ_TOKEN = /^sv_art_[A-Za-z0-9_-]{43}$/;
/** The longest name. */
export const READ_TOKEN_NAME_MAX = 100;
/** The most models one token may name. */
export const READ_TOKEN_MODELS_MAX = 100;

/** A signed-in person acting on one site. */
export interface ReadTokenContext {
  db: Db;
  clock: Clock;
  siteId: string;
  personId: string;
}

/** A token as listed: never its secret or digest. */
export interface ReadTokenRow {
  id: string;
  name: string;
  model_ids: string[];
  replaces: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** Refusals; nothing changes on any of them. */
export type ReadTokenRefusal =
  | { ok: false; code: "missing_permission" }
  | { ok: false; code: "input_invalid"; message: string }
  | { ok: false; code: "not_found" };

async function mayManage(ctx: ReadTokenContext): Promise<boolean> {
  const held = await personHolding(ctx.db, {
    siteId: ctx.siteId,
    personId: ctx.personId,
    permission: "site:infra",
  });
  return held.ok;
}

const DENIED = { ok: false, code: "missing_permission" } as const;

/** Every token of the site, newest first, live and revoked. */
export async function listReadTokens(
  ctx: ReadTokenContext,
): Promise<{ ok: true; tokens: ReadTokenRow[] } | ReadTokenRefusal> {
  if (!await mayManage(ctx)) return DENIED;
  const rows = await ctx.db.selectFrom("deployed_read_tokens")
    .select(["id", "name", "model_ids", "replaces", "created_at", "revoked_at"])
    .where("site_id", "=", ctx.siteId).orderBy("created_at", "desc")
    .orderBy("id").execute();
  return {
    ok: true,
    tokens: rows.map((r) => ({
      id: r.id,
      name: r.name,
      model_ids: r.model_ids as string[],
      replaces: r.replaces,
      created_at: r.created_at.toISOString(),
      revoked_at: r.revoked_at?.toISOString() ?? null,
    })),
  };
}

/** Checks a name and a scope: 1..100 characters; 1..100 live model ids of this site. */
async function checkInput(
  db: Db,
  siteId: string,
  input: { name: string; modelIds: string[] },
): Promise<
  { ok: true; name: string; modelIds: string[] } | ReadTokenRefusal
> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > READ_TOKEN_NAME_MAX) {
    return {
      ok: false,
      code: "input_invalid",
      message: `Name must be 1 to ${READ_TOKEN_NAME_MAX} characters`,
    };
  }
  const wanted = [...new Set(input.modelIds.map((id) => id.toLowerCase()))];
  // GACC-011: a wildcard would also open the API description and any model added later.
  if (wanted.includes("*")) {
    return {
      ok: false,
      code: "input_invalid",
      message: "A read token names its models; it cannot read every model",
    };
  }
  if (wanted.length < 1 || wanted.length > READ_TOKEN_MODELS_MAX) {
    return {
      ok: false,
      code: "input_invalid",
      message: `Choose 1 to ${READ_TOKEN_MODELS_MAX} models the token may read`,
    };
  }
  const found = wanted.every((id) => UUID.test(id))
    ? await db.selectFrom("models").select("id")
      .where("site_id", "=", siteId).where("deleted_at", "is", null)
      // Shared row locks: a model being removed now waits, or is seen removed (GACC-013).
      .where("id", "in", wanted).forShare().execute()
    : [];
  if (found.length !== wanted.length) {
    return {
      ok: false,
      code: "input_invalid",
      message: "Every model must be a model of this site",
    };
  }
  return { ok: true, name, modelIds: wanted };
}

/** An audit entry naming the token by id and name: never its secret or digest. */
async function audit(
  ctx: ReadTokenContext,
  db: Db,
  action: "read_token.issue" | "read_token.rotate" | "read_token.revoke",
  token: { id: string; name: string; modelIds?: string[] },
  extra: Record<string, unknown> = {},
): Promise<void> {
  const actor = await snapshotActor(db, ctx.siteId, {
    kind: "person",
    userId: ctx.personId,
  });
  await db.insertInto("audit_entries").values({
    id: crypto.randomUUID(),
    site_id: ctx.siteId,
    actor: JSON.stringify(actor),
    action,
    target: JSON.stringify({ kind: "deployed_read_token", id: token.id }),
    details: JSON.stringify({
      name: token.name,
      ...(token.modelIds ? { model_ids: token.modelIds } : {}),
      ...extra,
    }),
    created_at: ctx.clock.now(),
  }).execute();
}

async function insertToken(
  ctx: ReadTokenContext,
  db: Db,
  values: { name: string; modelIds: string[]; replaces: string | null },
): Promise<{ ok: true; id: string; token: string }> {
  const token = randomToken(READ_TOKEN_PREFIX);
  const id = crypto.randomUUID();
  await db.insertInto("deployed_read_tokens").values({
    id,
    site_id: ctx.siteId,
    name: values.name,
    model_ids: JSON.stringify(values.modelIds),
    digest: await sha256Hex(token),
    replaces: values.replaces,
    created_by: ctx.personId,
    created_at: ctx.clock.now(),
    revoked_at: null,
    revoked_by: null,
  }).execute();
  return { ok: true, id, token };
}

/** Issues a token scoped to models; the secret is answered once and never stored. */
export async function issueReadToken(
  ctx: ReadTokenContext,
  input: { name: string; modelIds: string[] },
): Promise<{ ok: true; id: string; token: string } | ReadTokenRefusal> {
  if (!await mayManage(ctx)) return DENIED;
  return await ctx.db.transaction().execute(async (trx) => {
    const checked = await checkInput(trx, ctx.siteId, input);
    if (!checked.ok) return checked;
    const issued = await insertToken(ctx, trx, { ...checked, replaces: null });
    await audit(ctx, trx, "read_token.issue", { id: issued.id, ...checked });
    return issued;
  });
}

/**
 * The first step of rotation: a new secret with the live token's name and scope. The old one
 * stays live so callers keep working until the backend holding the new one is deployed and they
 * have moved; then it is revoked (GACC-012).
 */
export async function rotateReadToken(
  ctx: ReadTokenContext,
  id: string,
): Promise<{ ok: true; id: string; token: string } | ReadTokenRefusal> {
  if (!await mayManage(ctx)) return DENIED;
  if (!UUID.test(id)) return { ok: false, code: "not_found" };
  return await ctx.db.transaction().execute(async (trx) => {
    const old = await trx.selectFrom("deployed_read_tokens")
      .select(["id", "name", "model_ids"]).where("site_id", "=", ctx.siteId)
      .where("id", "=", id.toLowerCase()).where("revoked_at", "is", null)
      .forUpdate().executeTakeFirst();
    if (!old) return { ok: false, code: "not_found" } as const;
    const values = {
      name: old.name,
      modelIds: old.model_ids as string[],
      replaces: old.id,
    };
    const issued = await insertToken(ctx, trx, values);
    await audit(ctx, trx, "read_token.rotate", { id: issued.id, ...values }, {
      replaces: old.id,
    });
    return issued;
  });
}

/** Revokes a live token here; a deployed backend keeps it until regenerated and deployed. */
export async function revokeReadToken(
  ctx: ReadTokenContext,
  id: string,
): Promise<{ ok: true } | ReadTokenRefusal> {
  if (!await mayManage(ctx)) return DENIED;
  if (!UUID.test(id)) return { ok: false, code: "not_found" };
  return await ctx.db.transaction().execute(async (trx) => {
    const revoked = await trx.updateTable("deployed_read_tokens")
      .set({ revoked_at: ctx.clock.now(), revoked_by: ctx.personId })
      .where("site_id", "=", ctx.siteId).where("id", "=", id.toLowerCase())
      .where("revoked_at", "is", null).returning(["id", "name"])
      .executeTakeFirst();
    if (!revoked) return { ok: false, code: "not_found" } as const;
    await audit(ctx, trx, "read_token.revoke", revoked);
    return { ok: true } as const;
  });
}

/**
 * Takes a removed model out of every live token's scope, in the removal's transaction; a
 * token left with no model is revoked (GACC-013).
 */
export async function pruneModelFromReadTokens(
  trx: Db,
  siteId: string,
  modelId: string,
  now: Date,
): Promise<void> {
  const rows = await trx.selectFrom("deployed_read_tokens")
    .select(["id", "model_ids"]).where("site_id", "=", siteId)
    .where("revoked_at", "is", null).forUpdate().execute();
  for (const row of rows) {
    const models = row.model_ids as string[];
    if (!models.includes(modelId)) continue;
    const left = models.filter((m) => m !== modelId);
    await trx.updateTable("deployed_read_tokens")
      .set(
        left.length > 0
          ? { model_ids: JSON.stringify(left) }
          : { model_ids: JSON.stringify(left), revoked_at: now },
      )
      .where("id", "=", row.id).execute();
  }
}

/** The site's live tokens as the generated backend's access configuration lists them. */
export async function liveReadTokens(
  db: Db,
  siteId: string,
): Promise<ReadToken[]> {
  const rows = await db.selectFrom("deployed_read_tokens")
    .select(["id", "digest", "model_ids"]).where("site_id", "=", siteId)
    .where("revoked_at", "is", null).orderBy("created_at").orderBy("id")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    site_id: siteId,
    digest: r.digest,
    models: r.model_ids as string[],
    capabilities: ["read"],
  }));
}
