// Installations as the plugin keeps them: site, service URL and the token sealed under
// TOKEN_KEY; and the one-time activation and rotation codes (15 minutes, single use, only
// their SHA-256 stored, in the plugin's KV).
import { type ActivationHandoff, sha256Hex } from "../../sdk/mod.ts";
import type { SchedulerDb } from "./db.ts";
import type { TokenBox } from "./token_box.ts";

export const CODE_TTL_MS = 15 * 60_000;

interface StoredCode {
  purpose: "activate" | "rotate";
  installationId: string | null;
  expiresAt: number;
}

function randomCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

/** Issues a code; only its digest is written. */
export async function issueCode(
  kv: Deno.Kv,
  purpose: "activate" | "rotate",
  installationId: string | null,
  now: number,
): Promise<{ code: string; expiresAt: number }> {
  const code = randomCode();
  const expiresAt = now + CODE_TTL_MS;
  const stored: StoredCode = { purpose, installationId, expiresAt };
  await kv.set(["scheduling", "code", await sha256Hex(code)], stored, {
    expireIn: CODE_TTL_MS,
  });
  return { code, expiresAt };
}

/**
 * Consumes a code for a hand-off: it must exist, be unexpired (the stored expiry is checked,
 * KV expiry being lazy), match the purpose and installation, and is deleted atomically so
 * that two hand-offs with one code cannot both pass.
 */
export async function consumeCode(
  kv: Deno.Kv,
  handoff: Pick<ActivationHandoff, "code" | "kind" | "installation_id">,
  now: number,
): Promise<boolean> {
  const key = ["scheduling", "code", await sha256Hex(handoff.code)];
  const entry = await kv.get<StoredCode>(key);
  const stored = entry.value;
  if (
    !stored || stored.expiresAt <= now || stored.purpose !== handoff.kind ||
    (stored.installationId !== null &&
      stored.installationId !== handoff.installation_id)
  ) {
    return false;
  }
  const done = await kv.atomic().check(entry).delete(key).commit();
  return done.ok;
}

/** A stored installation. */
export interface PluginInstallation {
  id: string;
  siteId: string;
  serviceUrl: string;
}

/** Creates (`activate`) or re-keys (`rotate`) an installation; false when the state is wrong. */
export async function storeHandoff(
  db: SchedulerDb,
  box: TokenBox,
  handoff: ActivationHandoff & { service_url: string },
  now: Date,
): Promise<"stored" | "exists" | "missing"> {
  const sealed = await box.seal(handoff.token);
  if (handoff.kind === "activate") {
    const inserted = await db.insertInto("installations").values({
      id: handoff.installation_id,
      site_id: handoff.site_id,
      service_url: handoff.service_url,
      token_sealed: sealed,
      created_at: now,
      updated_at: now,
    }).onConflict((oc) => oc.column("id").doNothing()).executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1
      ? "stored"
      : "exists";
  }
  const updated = await db.updateTable("installations")
    .set({ token_sealed: sealed, updated_at: now })
    .where("id", "=", handoff.installation_id)
    .where("site_id", "=", handoff.site_id).executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1 ? "stored" : "missing";
}

/** An installation by id. */
export async function readInstallation(
  db: SchedulerDb,
  id: string,
): Promise<PluginInstallation | undefined> {
  const row = await db.selectFrom("installations")
    .select(["id", "site_id", "service_url"]).where("id", "=", id)
    .executeTakeFirst();
  return row &&
    { id: row.id, siteId: row.site_id, serviceUrl: row.service_url };
}

/** The installation's token, read fresh (a rotation is seen at once); null when unreadable. */
export async function readToken(
  db: SchedulerDb,
  box: TokenBox,
  id: string,
): Promise<string | null> {
  const row = await db.selectFrom("installations").select("token_sealed")
    .where("id", "=", id).executeTakeFirst();
  return row ? await box.open(row.token_sealed) : null;
}

/** Deletes every row the plugin keeps for an installation. */
export async function deleteInstallationData(
  db: SchedulerDb,
  id: string,
): Promise<"deleted" | "missing" | "running"> {
  return await db.transaction().execute(async (tx) => {
    const running = await tx.selectFrom("schedules").select("id")
      .where("installation_id", "=", id).where("status", "=", "running")
      .executeTakeFirst();
    const releasing = await tx.selectFrom("releases").select("id")
      .where("installation_id", "=", id).where("state", "=", "running")
      .executeTakeFirst();
    if (running || releasing) return "running";
    await tx.deleteFrom("release_items").where("installation_id", "=", id)
      .execute();
    await tx.deleteFrom("releases").where("installation_id", "=", id).execute();
    await tx.deleteFrom("schedule_attempts").where("installation_id", "=", id)
      .execute();
    await tx.deleteFrom("schedules").where("installation_id", "=", id)
      .execute();
    const gone = await tx.deleteFrom("installations").where("id", "=", id)
      .executeTakeFirst();
    return Number(gone.numDeletedRows) === 1 ? "deleted" : "missing";
  });
}
