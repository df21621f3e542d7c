// SHA-256 hex digests: secrets, codes and request fingerprints are stored only as digests.
import { createHash } from "node:crypto";

/**
 * The SHA-256 digest of `data` (a string is hashed as UTF-8) as 64 lowercase hex characters,
 * synchronously: `node:crypto` costs a few microseconds here where `crypto.subtle` is an async
 * op of 40–55 µs, which showed in the public read path's profile.
 */
export function sha256HexSync(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** {@link sha256HexSync} for callers written against the asynchronous signature. */
export function sha256Hex(data: string | Uint8Array): Promise<string> {
  return Promise.resolve(sha256HexSync(data));
}

/**
 * The SHA-256 hex digest of `parts` joined with NUL separators (strings as UTF-8), without
 * building the joined bytes: names and file contents of a prepared cache's sources.
 */
export function sha256HexOfParts(parts: (string | Uint8Array)[]): string {
  const hash = createHash("sha256");
  parts.forEach((part, i) => {
    if (i > 0) hash.update("\0");
    hash.update(part);
  });
  return hash.digest("hex");
}
