// Authenticates a plugin API request by its installation token: one indexed lookup by digest.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import {
  type Installation,
  installationByDigest,
  installationOf,
} from "./installation_store.ts";
import { bearerToken, tokenDigest } from "./tokens.ts";

/** The answer of {@linkcode authenticatePlugin}: one refusal for every reason, on purpose. */
export type PluginAuthResult =
  | { ok: true; installation: Installation }
  | { ok: false; code: "plugin_unauthorized"; readDatabase: boolean };

/**
 * Reads `Authorization: Bearer svp_…`. A missing or malformed value is refused without
 * touching the database. A known digest must belong to an `active` installation; the
 * previous token works until its expiry, and the first request with the new token ends
 * that overlap at once (spec 1 part 5 item 5).
 */
export async function authenticatePlugin(
  db: Db,
  clock: Clock,
  authorization: string | undefined,
): Promise<PluginAuthResult> {
  const token = bearerToken(authorization);
  if (token === null) {
    return { ok: false, code: "plugin_unauthorized", readDatabase: false };
  }
  const digest = tokenDigest(token);
  const row = await installationByDigest(db, digest);
  const refusal = {
    ok: false,
    code: "plugin_unauthorized",
    readDatabase: true,
  } as const;
  if (!row || row.state !== "active") return refusal;
  const now = clock.now();
  if (row.token_hash !== digest) {
    const expires = row.previous_token_expires_at;
    if (expires === null || new Date(expires).getTime() <= now.getTime()) {
      return refusal;
    }
    return { ok: true, installation: installationOf(row) };
  }
  if (row.previous_token_hash !== null) {
    // Conditional on the digest still being current, so a racing rotation is never undone.
    await db.updateTable("plugin_installations")
      .set({ previous_token_hash: null, previous_token_expires_at: null })
      .where("id", "=", row.id).where("token_hash", "=", digest).execute();
  }
  return { ok: true, installation: installationOf(row) };
}
