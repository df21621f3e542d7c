// Reads a Management API upload's multipart body while it arrives: text parts whole, the file part straight to storage.
import type { MediaRefusal, StagedFile } from "../media/upload.ts";
import { refuse } from "../web/errors.ts";
import { textProblem } from "../web/request_text.ts";
import { formParts, FormUnreadable } from "../web/streamed_form.ts";

/** What a streamed multipart body held. */
export interface StreamedMultipart {
  /** Text parts by name (the operation's closed schema reads them). */
  fields: Record<string, string>;
  /** The file, already in storage (or refused while it was written). */
  file: StagedFile;
  /** Stable text naming the parts and the file's digest, for the idempotency fingerprint. */
  fingerprint: string;
}

/** What staging a file part gave: the staged file with its digest, or a file over its limit. */
export type StageOutcome =
  | { staged: StagedFile["staged"]; digest: string }
  | { tooLarge: MediaRefusal };

/** Options of {@link readStreamedMultipart}. */
export interface ReadStreamedMultipartOptions {
  /** Writes the file part to storage while it arrives (`stageFile` of core/media/upload.ts). */
  stage(stream: ReadableStream<Uint8Array>): Promise<StageOutcome>;
  /** Removes a staged file's object when the request is refused after it was written. */
  discard(file: StagedFile): Promise<void>;
}

/** Room for the text parts of an upload (alt texts in every language, ids, choices). */
const FIELD_BYTES = 64 * 1024;
/** Most parts of an upload body. */
const MAX_PARTS = 64;

/**
 * Reads `body` part by part (RFC 7578): exactly one `file` part, which goes to storage through
 * `stage` while it arrives (never held whole), and text parts, which may come before or after
 * it. A missing, doubled or mistyped part is `400 invalid_request`, as for a buffered body; a
 * file over its limit is `413 media_too_large`. The fingerprint names the text parts, the file
 * name and the file's SHA-256, not the boundary a client happened to choose.
 */
export async function readStreamedMultipart(
  body: ReadableStream<Uint8Array> | null,
  contentType: string,
  options: ReadStreamedMultipartOptions,
): Promise<StreamedMultipart> {
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    refuse(
      400,
      "invalid_request",
      "This route takes a multipart/form-data body with a file part",
    );
  }
  if (!/;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.test(contentType)) {
    refuse(400, "invalid_request", "The multipart body has no boundary");
  }
  if (!body) {
    refuse(400, "invalid_request", "The multipart body cannot be read");
  }
  const fields: Record<string, string> = {};
  let file: StagedFile | null = null;
  let digest = "";
  try {
    for await (
      const part of formParts(body, contentType, {
        fieldBytes: FIELD_BYTES,
        parts: MAX_PARTS,
      })
    ) {
      const { name } = part;
      const fileName = part.kind === "file" ? part.fileName : null;
      // Part names, text parts and file names reach PostgreSQL like JSON text does.
      const nameProblem = textProblem(name) ??
        (fileName === null ? null : textProblem(fileName));
      if (nameProblem) refuseText(name, nameProblem);
      const seen = name === "file"
        ? file !== null
        : Object.hasOwn(fields, name);
      if (seen) {
        refuse(400, "invalid_request", `Part "${name}" is given twice`, {
          issues: [{ path: `body.${name}`, message: "given twice" }],
        });
      }
      if (part.kind === "file") {
        if (name !== "file") {
          refuse(400, "invalid_request", `Part "${name}" must be text`, {
            issues: [{ path: `body.${name}`, message: "expected text" }],
          });
        }
        const outcome = await options.stage(part.stream);
        if ("tooLarge" in outcome) {
          const { ok: _ok, code, ...details } = outcome.tooLarge;
          refuse(
            413,
            code,
            "The file is larger than this site accepts",
            details,
          );
        }
        file = {
          staged: outcome.staged,
          fileName: part.fileName,
          taken: false,
        };
        digest = outcome.digest;
        continue;
      }
      if (name === "file") {
        refuse(400, "invalid_request", 'Part "file" must be a file', {
          issues: [{ path: "body.file", message: "expected a file" }],
        });
      }
      const problem = textProblem(part.value);
      if (problem) refuseText(name, problem);
      fields[name] = part.value;
    }
  } catch (error) {
    if (file) await options.discard(file);
    if (error instanceof FormUnreadable) {
      refuse(400, "invalid_request", error.message);
    }
    throw error;
  }
  if (!file) {
    refuse(400, "invalid_request", 'Part "file" is missing', {
      issues: [{ path: "body.file", message: "required" }],
    });
  }
  const fingerprint = JSON.stringify({
    fields: Object.fromEntries(Object.entries(fields).sort()),
    file_name: file.fileName,
    file_sha256: digest,
  });
  return { fields, file, fingerprint };
}

function refuseText(name: string, problem: string): never {
  return refuse(400, "invalid_request", `Invalid body.${name}: ${problem}`, {
    issues: [{ path: `body.${name}`, message: problem }],
  });
}
