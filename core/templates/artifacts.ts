// The three stored files of a candidate (source, compiled output, report) under
// TEMPLATE_ARTIFACTS, at keys for its site and candidate. Written once; read back and checked
// against the digests the database holds, so a changed file is noticed (rule 1, TPL-012).
import { canonicalJson } from "../pages/mod.ts";
import { sha256HexSync } from "../kv/digest.ts";

/** The files of one candidate. */
export type ArtifactName = "source.json" | "compiled.json" | "report.json";

/** The key of one file: `<site>/<candidate>/<name>`. */
export function artifactKey(
  siteId: string,
  candidateId: string,
  name: ArtifactName,
): string {
  return `${siteId}/${candidateId}/${name}`;
}

/** The text stored for a value and its digest. */
export function artifactText(value: unknown): { text: string; digest: string } {
  const text = canonicalJson(value);
  return { text, digest: sha256HexSync(text) };
}

/** Writes a file once: a second write of the same key is refused by the file system. */
export async function writeArtifact(
  dir: string,
  key: string,
  text: string,
): Promise<void> {
  const path = `${dir}/${key}`;
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  try {
    await Deno.writeTextFile(path, text, { createNew: true });
  } catch (e) {
    // The same candidate stored by a racing upload: its bytes are the same or it is caught below.
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
  }
}

/** Reads a file and answers its value only when its digest is `digest`. */
export async function readArtifact(
  dir: string,
  key: string,
  digest: string,
): Promise<{ ok: true; value: unknown } | { ok: false; reason: string }> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${dir}/${key}`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return { ok: false, reason: `${key} is missing` };
    }
    throw e;
  }
  if (sha256HexSync(text) !== digest) {
    return { ok: false, reason: `${key} changed since it was stored` };
  }
  return { ok: true, value: JSON.parse(text) };
}
