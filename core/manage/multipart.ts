// Reads a multipart/form-data body of a Management API upload: exactly one `file` part and text parts.
import { sha256HexSync } from "../kv/digest.ts";
import { refuse } from "../web/errors.ts";
import { textProblem } from "../web/request_text.ts";

/** What a multipart body held. */
export interface MultipartBody {
  /** Text parts by name (the operation's closed schema reads them). */
  fields: Record<string, string>;
  file: { bytes: Uint8Array; fileName: string };
  /** Stable text naming the parts and the file's digest, for the idempotency fingerprint. */
  fingerprint: string;
}

/** Parses `raw` (already bounded by the route's body limit); a missing or doubled part is `invalid_request`. */
export async function decodeMultipart(
  contentType: string,
  raw: Uint8Array,
): Promise<MultipartBody> {
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    refuse(
      400,
      "invalid_request",
      "This route takes a multipart/form-data body with a file part",
    );
  }
  let form: FormData;
  try {
    form = await new Response(raw as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": contentType },
    }).formData();
  } catch {
    refuse(400, "invalid_request", "The multipart body cannot be read");
  }
  const fields: Record<string, string> = {};
  let file: { bytes: Uint8Array; fileName: string } | null = null;
  for (const [name, value] of form.entries()) {
    // Part names, text parts and file names reach PostgreSQL like JSON text does.
    const problem = textProblem(name) ??
      textProblem(typeof value === "string" ? value : value.name);
    if (problem) {
      refuse(400, "invalid_request", `Invalid body.${name}: ${problem}`, {
        issues: [{ path: `body.${name}`, message: problem }],
      });
    }
    const seen = name === "file" ? file !== null : Object.hasOwn(fields, name);
    if (seen) {
      refuse(400, "invalid_request", `Part "${name}" is given twice`, {
        issues: [{ path: `body.${name}`, message: "given twice" }],
      });
    }
    if (name === "file") {
      if (typeof value === "string") {
        refuse(400, "invalid_request", 'Part "file" must be a file', {
          issues: [{ path: "body.file", message: "expected a file" }],
        });
      }
      file = {
        bytes: new Uint8Array(await value.arrayBuffer()),
        fileName: value.name,
      };
    } else if (typeof value !== "string") {
      refuse(400, "invalid_request", `Part "${name}" must be text`, {
        issues: [{ path: `body.${name}`, message: "expected text" }],
      });
    } else {
      fields[name] = value;
    }
  }
  if (!file) {
    refuse(400, "invalid_request", 'Part "file" is missing', {
      issues: [{ path: "body.file", message: "required" }],
    });
  }
  const fingerprint = JSON.stringify({
    fields: Object.fromEntries(Object.entries(fields).sort()),
    file_name: file.fileName,
    file_sha256: sha256HexSync(file.bytes),
  });
  return { fields, file, fingerprint };
}
