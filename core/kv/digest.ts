// SHA-256 hex digests for the KV stores: codes and request fingerprints are stored only as digests.

const encoder = new TextEncoder();

/** Answers the SHA-256 digest of `data` (a string is hashed as UTF-8) as 64 lowercase hex characters. */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  const hash = await crypto.subtle.digest(
    "SHA-256",
    bytes as Uint8Array<ArrayBuffer>,
  );
  return Array.from(
    new Uint8Array(hash),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
