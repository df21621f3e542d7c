// Admin sessions in Postgres: a random token goes to the browser, only its SHA-256 digest is stored.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { SignedInUser } from "../web/env.ts";
import { randomToken, sha256Hex } from "./secrets.ts";

/** Absolute lifetime of a session: it ends this long after sign-in, however busy. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

/** The only shape `randomToken()` produces; anything else is refused before hashing. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** What session functions need: the database and the clock that decides expiry. */
export interface SessionContext {
  db: Db;
  clock: Clock;
}

/** A session just created; `token` is shown to the browser once and never stored. */
export interface CreatedSession {
  id: string;
  token: string;
  expiresAt: Date;
}

/** Creates a session for `userId` that ends {@link SESSION_LIFETIME_MS} from now. */
export async function createSession(
  ctx: SessionContext,
  userId: string,
): Promise<CreatedSession> {
  const token = randomToken();
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  const id = crypto.randomUUID();
  await ctx.db.insertInto("sessions").values({
    id,
    token_digest: await sha256Hex(token),
    user_id: userId,
    created_at: now,
    expires_at: expiresAt,
  }).execute();
  return { id, token, expiresAt };
}

/** Options of {@link findSessionUser}. */
export interface FindSessionUserOptions {
  /** The token the browser sent. */
  token: string;
  /** The site of this request: the person must still be a member of it. */
  siteId: string;
}

/**
 * Answers the person a session token names, or null when the token is unknown or malformed,
 * the session has expired (checked against the clock on every read), the person is
 * deactivated, or the person has no access to `siteId`.
 */
export async function findSessionUser(
  ctx: SessionContext,
  options: FindSessionUserOptions,
): Promise<SignedInUser | null> {
  if (!TOKEN_SHAPE.test(options.token)) return null;
  const row = await ctx.db.selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .innerJoin(
      "site_members",
      (join) =>
        join.onRef("site_members.user_id", "=", "users.id")
          .on("site_members.site_id", "=", options.siteId),
    )
    .select([
      "sessions.id as session_id",
      "sessions.expires_at",
      "users.id as user_id",
      "users.email",
      "users.display_name",
      "users.status",
    ])
    .where("sessions.token_digest", "=", await sha256Hex(options.token))
    .executeTakeFirst();
  if (!row || row.status !== "active") return null;
  // Compared here rather than in SQL so the injected clock alone decides, to the millisecond.
  if (ctx.clock.now().getTime() >= new Date(row.expires_at).getTime()) {
    return null;
  }
  return {
    id: row.user_id,
    email: row.email,
    displayName: row.display_name,
    sessionId: row.session_id,
  };
}

/** Deletes one session by id; deleting an absent one is not an error. */
export async function deleteSession(db: Db, sessionId: string): Promise<void> {
  await db.deleteFrom("sessions").where("id", "=", sessionId).execute();
}

/** Deletes the session a token names, whatever its state; a malformed token deletes nothing. */
export async function deleteSessionByToken(
  db: Db,
  token: string,
): Promise<void> {
  if (!TOKEN_SHAPE.test(token)) return;
  await db.deleteFrom("sessions")
    .where("token_digest", "=", await sha256Hex(token)).execute();
}

/** Deletes every session that has expired by the clock; answers how many. */
export async function deleteExpiredSessions(
  ctx: SessionContext,
): Promise<number> {
  const result = await ctx.db.deleteFrom("sessions")
    .where("expires_at", "<=", ctx.clock.now()).executeTakeFirst();
  return Number(result.numDeletedRows);
}
