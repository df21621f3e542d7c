// POST /v1/interactions/{action}: visitor interactions (spec 3 part 4.1). `form.submit` takes the
// closed envelope as JSON, or multipart/form-data with `values.<name>`, `checks.<name>` and
// repeated `files.<name>` parts (FORM-001 to FORM-009). `comment.submit` and `comment.react` take
// JSON (FORM-015, core/comments).
import type { Context } from "hono";
import type { z } from "zod";
import {
  CommentEnvelope,
  type CommentRefusal,
  ReactionEnvelope,
  reactToComment,
  submitComment,
} from "../../../core/comments/mod.ts";
import {
  Envelope,
  FORM_LIMITS,
  formAttachmentStore,
  type SentFile,
  submitForm,
} from "../../../core/forms/mod.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { HttpError } from "../../../core/web/errors.ts";
import type { RouteConfig } from "../../../core/web/manifest.ts";
import { visitorAddress } from "../../../core/public/visitor_address.ts";

const BODY_LIMIT = FORM_LIMITS.filesBytes + FORM_LIMITS.bodyOverhead;

/** Without it the app's 1 MiB default would refuse files the forms allow (5 MiB each). */
export const config: RouteConfig = { bodyLimit: BODY_LIMIT };

async function readLimited(
  c: Context<AppEnv>,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > BODY_LIMIT) throw tooLarge();
  const body = c.req.raw.body;
  if (!body) return new Uint8Array(new ArrayBuffer(0));
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw tooLarge();
    chunks.push(chunk);
  }
  const all = new Uint8Array(new ArrayBuffer(size));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

function tooLarge(
  message = "The body holds at most 10 MiB of files and 64 KiB besides",
) {
  return new HttpError(413, "payload_too_large", message);
}

function invalid(message: string, path = ""): HttpError {
  return new HttpError(400, "interaction_invalid", message, {
    problems: [{ path, message }],
  });
}

/** The envelope and files of a multipart body. */
async function fromMultipart(
  c: Context<AppEnv>,
  bytes: Uint8Array,
): Promise<{ raw: Record<string, unknown>; files: SentFile[] }> {
  let form: FormData;
  try {
    form = await new Request("http://form.invalid/", {
      method: "POST",
      headers: { "content-type": c.req.header("content-type")! },
      body: bytes as Uint8Array<ArrayBuffer>,
    }).formData();
  } catch {
    throw invalid("The multipart body cannot be read");
  }
  const raw: Record<string, unknown> = {};
  const values: Record<string, string | boolean> = {};
  const files: SentFile[] = [];
  for (const [name, part] of form.entries()) {
    if (typeof part !== "string") {
      const m = /^files\.([a-z][a-z0-9_]{0,31})$/.exec(name);
      if (!m) throw invalid(`Unknown file part "${name}"`, name);
      files.push({
        field: m[1],
        name: part.name,
        type: part.type,
        bytes: new Uint8Array(await part.arrayBuffer()),
      });
      continue;
    }
    if (new TextEncoder().encode(part).length > FORM_LIMITS.scalarBytes) {
      throw tooLarge(`Part "${name}" holds more than 16 KiB`);
    }
    const value = /^values\.(.+)$/.exec(name);
    const check = /^checks\.(.+)$/.exec(name);
    if (value) values[value[1]] = part;
    else if (check) values[check[1]] = part !== "" && part !== "false";
    else if (name === "consent") raw.consent = part !== "" && part !== "false";
    else if (name in raw) throw invalid(`Part "${name}" is repeated`, name);
    else raw[name] = part;
  }
  raw.values = values;
  return { raw, files };
}

/** The envelope parsed closed, or `400 interaction_invalid` with every problem's path. */
function parseEnvelope<T extends z.ZodType>(
  schema: T,
  raw: unknown,
): z.output<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => ({
    path: [...i.path, ...(i.code === "unrecognized_keys" ? i.keys : [])]
      .join("."),
    message: i.message,
  }));
  throw new HttpError(
    400,
    "interaction_invalid",
    "The submission is not valid",
    { problems },
  );
}

async function jsonBody(c: Context<AppEnv>): Promise<unknown> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim()
    .toLowerCase();
  if (type !== "application/json") {
    throw new HttpError(415, "unsupported_media_type", "Send application/json");
  }
  const bytes = await readLimited(c);
  if (bytes.length > FORM_LIMITS.bodyOverhead) throw tooLarge();
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw invalid("The body is not JSON");
  }
}

function refuseComment(refusal: CommentRefusal): never {
  switch (refusal.code) {
    case "interaction_invalid":
      throw invalid(refusal.message, refusal.path);
    case "comment_target_not_found":
      throw new HttpError(
        404,
        refusal.code,
        "No published item takes comments here",
      );
    case "comment_not_found":
      throw new HttpError(404, refusal.code, "No approved comment has this id");
    case "comments_closed":
      throw new HttpError(403, refusal.code, "This item takes no comments");
    case "comment_key_reused":
      throw new HttpError(
        409,
        refusal.code,
        "This key was already used for a comment with other values",
      );
    case "rate_limited":
      throw new HttpError(
        429,
        refusal.code,
        "Too many comments: try again later",
        {},
        { "Retry-After": String(refusal.retryAfterSeconds) },
      );
  }
}

async function comment(c: Context<AppEnv>, action: string): Promise<Response> {
  const raw = await jsonBody(c);
  const { db, kv, clock } = c.var.services;
  const ctx = {
    db,
    kv,
    clock,
    siteId: c.var.site.id,
    address: await visitorAddress(c),
  };
  c.header("Cache-Control", "no-store");
  if (action === "comment.submit") {
    const result = await submitComment(
      ctx,
      parseEnvelope(CommentEnvelope, raw),
    );
    if (!result.ok) refuseComment(result);
    return c.json(
      { data: result.receipt, replayed: result.replayed },
      result.replayed ? 200 : 201,
    );
  }
  const result = await reactToComment(
    ctx,
    parseEnvelope(ReactionEnvelope, raw),
  );
  if (!result.ok) refuseComment(result);
  return c.json({ data: result.reaction });
}

export const handler = {
  async POST(c: Context<AppEnv>) {
    const action = c.req.param("action");
    if (action === "comment.submit" || action === "comment.react") {
      return await comment(c, action);
    }
    if (action !== "form.submit") {
      throw new HttpError(404, "not_found", `No interaction "${action}"`);
    }
    const type = (c.req.header("content-type") ?? "").split(";")[0].trim()
      .toLowerCase();
    const bytes = await readLimited(c);
    let raw: unknown;
    let files: SentFile[] = [];
    if (type === "multipart/form-data") {
      ({ raw, files } = await fromMultipart(c, bytes));
    } else if (type === "application/json") {
      if (bytes.length > FORM_LIMITS.bodyOverhead) throw tooLarge();
      try {
        raw = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        throw invalid("The body is not JSON");
      }
    } else {
      throw new HttpError(
        415,
        "unsupported_media_type",
        "Send application/json or multipart/form-data",
      );
    }
    const envelope = parseEnvelope(Envelope, raw);
    const { db, kv, clock } = c.var.services;
    const result = await submitForm(
      {
        db,
        kv,
        clock,
        siteId: c.var.site.id,
        store: formAttachmentStore(c.var.services),
        address: await visitorAddress(c),
      },
      envelope,
      files,
    );
    c.header("Cache-Control", "no-store");
    if (result.ok) {
      return c.json(
        { data: result.receipt, replayed: result.replayed },
        result.replayed ? 200 : 201,
      );
    }
    switch (result.code) {
      case "interaction_invalid":
        throw new HttpError(400, result.code, "The submission is not valid", {
          problems: result.problems,
        });
      case "form_not_found":
        throw new HttpError(404, result.code, "No published form answers here");
      case "form_key_reused":
        throw new HttpError(
          409,
          result.code,
          "This key was already used for a submission with other values",
        );
      case "rate_limited":
        throw new HttpError(
          429,
          result.code,
          "Too many submissions: try again later",
          {},
          { "Retry-After": String(result.retryAfterSeconds) },
        );
      case "payload_too_large":
        throw tooLarge(result.message);
    }
  },
};
