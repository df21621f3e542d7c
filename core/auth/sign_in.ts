// Signing a person in to one site with email and password, throttled per email and address and per address, before any hashing.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { RateWindow } from "../kv/mod.ts";
import { PasswordHashBusyError, verifyPassword } from "./password.ts";
import { type CreatedSession, createSession } from "./session_store.ts";

/** Sign-in attempts allowed per email, client address and site in one window. */
export const SIGN_IN_LIMIT = 10;
/** Length of a sign-in rate window: 15 minutes. */
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
/**
 * Sign-in attempts allowed per client address in one window, whatever the email or site:
 * one address trying a password against many emails is throttled as a whole.
 */
export const SIGN_IN_ADDRESS_LIMIT = 30;
/** Longest email accepted (RFC 5321 path limit). */
export const MAX_EMAIL_LENGTH = 254;
/** Longest password accepted, so nobody makes the server hash megabytes. */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * A hash of a random password nobody knows, with the default scrypt cost. An unknown email
 * is verified against it so it costs the same time as a wrong password for a real person.
 */
export const DUMMY_PASSWORD_HASH =
  "scrypt$131072$8$1$lOCVF5EZU_9HCN-sPth2Ow$RBCkqYTsGbd5ry2_NelXcgxHI7rkd9ourIDEjcskLPw";

/** What {@link signIn} needs. */
export interface SignInContext {
  db: Db;
  kv: Deno.Kv;
  clock: Clock;
}

/** One sign-in attempt. */
export interface SignInInput {
  /** The site of the request (from the Host header), never from the form. */
  siteId: string;
  email: string;
  password: string;
  /** The client's address, for the rate window; any stable text when unknown. */
  clientAddress: string;
}

/** Why an attempt failed; for the server log only, never shown to the person. */
export type SignInFailure =
  | "unknown_email"
  | "wrong_password"
  | "deactivated"
  | "no_site_access";

/** The answer of {@link signIn}. */
export type SignInResult =
  | {
    ok: true;
    user: { id: string; email: string; displayName: string };
    session: CreatedSession;
  }
  | { ok: false; code: "invalid_credentials"; reason: SignInFailure }
  | { ok: false; code: "rate_limited"; retryAfterSeconds: number };

/** Lowercases and trims an email the way `users.email` stores it. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Checks the password and creates a session when the person is active and a member of the
 * site. Every failure answers the same code after one scrypt verification, so neither the
 * answer nor its time tells whether the email exists. Attempts beyond {@link SIGN_IN_LIMIT}
 * per window for one email, address and site, and beyond {@link SIGN_IN_ADDRESS_LIMIT} for
 * one address across every email, are refused before any hashing; at most
 * `MAX_CONCURRENT_HASHES` hashes run at once (password.ts).
 */
export async function signIn(
  ctx: SignInContext,
  input: SignInInput,
): Promise<SignInResult> {
  const email = normalizeEmail(input.email);
  // Both limits are checked before any hashing: a throttled try costs no scrypt.
  const rate = new RateWindow(ctx.kv, { clock: ctx.clock });
  const byAddress = await rate.hit(
    ["sign_in_address", input.clientAddress],
    SIGN_IN_ADDRESS_LIMIT,
    SIGN_IN_WINDOW_MS,
  );
  if (!byAddress.allowed) {
    return {
      ok: false,
      code: "rate_limited",
      retryAfterSeconds: byAddress.retryAfterSeconds,
    };
  }
  const decision = await rate.hit(
    ["sign_in", input.siteId, email, input.clientAddress],
    SIGN_IN_LIMIT,
    SIGN_IN_WINDOW_MS,
  );
  if (!decision.allowed) {
    return {
      ok: false,
      code: "rate_limited",
      retryAfterSeconds: decision.retryAfterSeconds,
    };
  }
  const user = await ctx.db.selectFrom("users")
    .leftJoin(
      "site_members",
      (join) =>
        join.onRef("site_members.user_id", "=", "users.id")
          .on("site_members.site_id", "=", input.siteId),
    )
    .select([
      "users.id",
      "users.email",
      "users.display_name",
      "users.password_hash",
      "users.status",
      "site_members.site_id as member_of",
    ])
    .where("users.email", "=", email)
    .executeTakeFirst();
  let passwordOk: boolean;
  try {
    passwordOk = await verifyPassword(
      input.password,
      user?.password_hash ?? DUMMY_PASSWORD_HASH,
    );
  } catch (error) {
    if (!(error instanceof PasswordHashBusyError)) throw error;
    return { ok: false, code: "rate_limited", retryAfterSeconds: 1 };
  }
  const failure: SignInFailure | null = !user
    ? "unknown_email"
    : !passwordOk
    ? "wrong_password"
    : user.status !== "active"
    ? "deactivated"
    : user.member_of === null
    ? "no_site_access"
    : null;
  if (failure || !user) {
    return {
      ok: false,
      code: "invalid_credentials",
      reason: failure ?? "unknown_email",
    };
  }
  const session = await createSession(ctx, user.id);
  return {
    ok: true,
    user: { id: user.id, email: user.email, displayName: user.display_name },
    session,
  };
}
