// Management credentials created, listed and revoked by a person holding site:settings (spec 2 part 5.1).
import { personHolding } from "../access/person_authority.ts";
import { checkGrantHeld, type NotHeld } from "../access/grants.ts";
import { type Scope, SCOPES } from "../access/scopes.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import {
  AuditFailure,
  auditWriteError,
  type AuditWriter,
  ledgerAuditWriter,
} from "../entries/audit.ts";
import { type CredentialRecord, insertCredential } from "./credential_store.ts";

/** Who acts: a signed-in person of the site. */
export interface CredentialContext {
  db: Db;
  clock: Clock;
  siteId: string;
  personId: string;
  audit?: AuditWriter;
}

/** What a person asks for. */
export interface CredentialRequest {
  name: string;
  scopes: string[];
  /** Model ids the credential may touch; null means every model the creator reaches. */
  models: string[] | null;
}

/** Refusals of credential commands; nothing changes on any of them. */
export type CredentialRefusal =
  | { ok: false; code: "missing_permission"; missing?: string[] }
  | {
    ok: false;
    code: "invalid_request";
    problems: { path: string; message: string }[];
  }
  | { ok: false; code: "grant_not_held"; not_held: NotHeld[] }
  | { ok: false; code: "not_found" }
  | { ok: false; code: "audit_unavailable" }
  | { ok: false; code: string };

function authorize(ctx: CredentialContext) {
  return personHolding(ctx.db, {
    siteId: ctx.siteId,
    personId: ctx.personId,
    permission: "site:settings",
  });
}

async function requestProblems(
  ctx: CredentialContext,
  input: CredentialRequest,
) {
  const problems: { path: string; message: string }[] = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200) {
    problems.push({
      path: "name",
      message: "Name must be 1 to 200 characters",
    });
  }
  if (input.scopes.length === 0) {
    problems.push({ path: "scopes", message: "Choose at least one scope" });
  }
  input.scopes.forEach((scope, i) => {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      problems.push({
        path: `scopes.${i}`,
        message: `Unknown scope "${scope}"`,
      });
    }
  });
  if (input.models !== null) {
    const known = new Set(
      (await ctx.db.selectFrom("models").select("id").where(
        "site_id",
        "=",
        ctx.siteId,
      )
        .where("deleted_at", "is", null).execute()).map((m) => m.id),
    );
    input.models.forEach((model, i) => {
      if (!known.has(model)) {
        problems.push({
          path: `models.${i}`,
          message: `Unknown model "${model}"`,
        });
      }
    });
  }
  return problems;
}

/** Creates a credential acting as the person; they may grant only what they hold now. */
export async function createCredential(
  ctx: CredentialContext,
  input: CredentialRequest,
): Promise<
  { ok: true; credential: CredentialRecord; secret: string } | CredentialRefusal
> {
  const authorized = await authorize(ctx);
  if (!authorized.ok) return authorized;
  const problems = await requestProblems(ctx, input);
  if (problems.length > 0) {
    return { ok: false, code: "invalid_request", problems };
  }
  const grant = checkGrantHeld(
    authorized.authority,
    input.scopes as Scope[],
    input.models,
  );
  if (!grant.ok) return grant;
  try {
    return await ctx.db.transaction().execute(async (tx) => {
      const created = await insertCredential(tx, ctx.clock, {
        siteId: ctx.siteId,
        creatorId: ctx.personId,
        name: input.name.trim(),
        scopes: [...new Set(input.scopes)],
        models: input.models,
      });
      await audit(ctx, tx, "credential.create", created.credential, {
        scopes: created.credential.scopes,
        models: created.credential.models,
      });
      return { ok: true as const, ...created };
    });
  } catch (error) {
    if (error instanceof AuditFailure) {
      return { ok: false, code: "audit_unavailable" };
    }
    throw error;
  }
}

/** Revokes a credential of the site; its secret fails on its next request. */
export async function revokeCredential(
  ctx: CredentialContext,
  credentialId: string,
): Promise<{ ok: true } | CredentialRefusal> {
  const authorized = await authorize(ctx);
  if (!authorized.ok) return authorized;
  try {
    return await ctx.db.transaction().execute(async (tx) => {
      const row = await tx.updateTable("management_credentials").set({
        revoked_at: ctx.clock.now(),
      })
        .where("site_id", "=", ctx.siteId).where("id", "=", credentialId).where(
          "revoked_at",
          "is",
          null,
        )
        .returning(["id", "name"]).executeTakeFirst();
      if (!row) return { ok: false as const, code: "not_found" as const };
      await audit(
        ctx,
        tx,
        "credential.revoke",
        { id: row.id, name: row.name },
        {},
      );
      return { ok: true as const };
    });
  } catch (error) {
    if (error instanceof AuditFailure) {
      return { ok: false, code: "audit_unavailable" };
    }
    throw error;
  }
}

/** The site's credentials, newest first, never with a secret or digest. */
export async function listCredentials(
  ctx: CredentialContext,
): Promise<{ ok: true; credentials: CredentialRecord[] } | CredentialRefusal> {
  const authorized = await authorize(ctx);
  if (!authorized.ok) return authorized;
  const rows = await ctx.db.selectFrom("management_credentials")
    .select([
      "id",
      "site_id",
      "creator_id",
      "name",
      "scopes",
      "models",
      "created_at",
      "revoked_at",
    ])
    .where("site_id", "=", ctx.siteId).orderBy("created_at", "desc").orderBy(
      "id",
    ).execute();
  return {
    ok: true,
    credentials: rows.map((r) => ({
      id: r.id,
      siteId: r.site_id,
      creatorId: r.creator_id,
      name: r.name,
      scopes: r.scopes as string[],
      models: r.models as string[] | null,
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
    })),
  };
}

async function audit(
  ctx: CredentialContext,
  tx: Db,
  action: string,
  credential: { id: string; name: string },
  details: Record<string, unknown>,
): Promise<void> {
  const actor = await snapshotActor(tx, ctx.siteId, {
    kind: "person",
    userId: ctx.personId,
  });
  try {
    await (ctx.audit ?? ledgerAuditWriter).write(tx, {
      id: crypto.randomUUID(),
      siteId: ctx.siteId,
      actor,
      action,
      target: {
        kind: "credential",
        credential_id: credential.id,
        name: credential.name,
      },
      details,
      at: ctx.clock.now(),
    });
  } catch (error) {
    throw auditWriteError(error);
  }
}
