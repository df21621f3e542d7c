// Random tokens, SHA-256 digests and constant-time comparison for every secret the service handles.

/** Base64url text of `bytes`, without padding. */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}

/** A new secret: `prefix` plus 43 base64url characters (256 random bits). */
export function randomToken(prefix = ""): string {
  return prefix + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Lowercase hex SHA-256 digest of `text`: the only form in which secrets are stored. */
export { sha256Hex } from "../kv/digest.ts";
import { sha256Hex } from "../kv/digest.ts";

/** Compares two secrets in time that does not depend on where they differ. */
export async function secretsEqual(a: string, b: string): Promise<boolean> {
  // Hashing first gives equal-length inputs, so length differences leak nothing either.
  const [x, y] = await Promise.all([sha256Hex(a), sha256Hex(b)]);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x.charCodeAt(i) ^ y.charCodeAt(i);
  return diff === 0;
}
