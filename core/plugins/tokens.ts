// Installation tokens: minting, the bearer shape checked before any database read, and their digests.
import { randomToken } from "../auth/secrets.ts";
import { sha256HexSync } from "../kv/digest.ts";

/** Prefix of an installation token (spec 1 part 2.2). */
export const TOKEN_PREFIX = "svp_";
const TOKEN_SHAPE = /^svp_[A-Za-z0-9_-]{43}$/;

/** A fresh installation token: `svp_` and 43 url-safe characters (256 random bits). */
export function mintToken(): string {
  return randomToken(TOKEN_PREFIX);
}

/** Whether `value` has the shape of an installation token. */
export function isTokenShaped(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/**
 * The token of an `Authorization: Bearer svp_…` header, or null when the header is missing
 * or malformed in any way; callers refuse null without reading the database.
 */
export function bearerToken(header: string | undefined | null): string | null {
  if (!header) return null;
  const match = /^Bearer ([^\s]+)$/.exec(header);
  if (!match || !isTokenShaped(match[1])) return null;
  return match[1];
}

/** The SHA-256 digest stored for a token: the only form the service keeps. */
export function tokenDigest(token: string): string {
  return sha256HexSync(token);
}
