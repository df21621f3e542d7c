// The digest of a candidate's compiled files: what the build service reports and acceptance
// checks, kept apart from the build pipeline so the service loads no browser tooling for it.

/** Canonical JSON of compiled files for their digest (keys sorted). */
export async function compiledDigest(
  files: Record<string, string>,
): Promise<string> {
  const text = JSON.stringify(
    Object.fromEntries(Object.keys(files).sort().map((k) => [k, files[k]])),
  );
  const hash = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return Array.from(
    new Uint8Array(hash),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
