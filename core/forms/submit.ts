// `form.submit`: a visitor's answer to a page's form section, checked against the published form
// and stored once per key (spec 3 part 2.2 "Visitor submissions", FORM-002 to FORM-010).
import { sql } from "kysely";
import { z } from "zod";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { RateWindow } from "../kv/rate_window.ts";
import {
  canonicalJson,
  EMAIL_PATTERN,
  FILE_CATALOGUE,
  FILE_LIMITS,
  parsePageDocument,
  PHONE_PATTERN,
} from "../pages/mod.ts";
import type { AttachmentStore } from "./attachment_store.ts";

/** Limits of visitor submissions (spec 3 part 8; the rest Stave's, docs/forms.md). */
export const FORM_LIMITS = {
  files: 5,
  filesBytes: 10_485_760,
  bodyOverhead: 65_536,
  scalarBytes: 16_384,
  /** Submissions one visitor address may send per window. */
  perAddress: 10,
  /** Submissions one form (page, language, section) accepts per window. */
  perForm: 200,
  windowMs: 10 * 60_000,
  /** Days a submission and its attachments are kept. */
  retentionDays: 180,
} as const;

/** The closed envelope (FORM-002). */
export const Envelope = z.strictObject({
  action: z.literal("form.submit"),
  page: z.uuid(),
  locale: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  section: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  key: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/),
  values: z.record(z.string(), z.union([z.string(), z.boolean()])),
  consent: z.boolean().default(false),
  website: z.string().max(FORM_LIMITS.scalarBytes).default(""),
});

/** A file a multipart submission carries. */
export interface SentFile {
  field: string;
  name: string;
  type: string;
  bytes: Uint8Array;
}

/** What a submission needs. */
export interface SubmitContext {
  db: Db;
  kv: Deno.Kv;
  clock: Clock;
  siteId: string;
  store: AttachmentStore;
  /** The visitor's network address, for the per-address window. */
  address: string;
}

/** The receipt a visitor gets (the first one again on a replay). */
export interface Receipt {
  id: string;
  received_at: string;
  message: string;
}

/** A refusal of a submission. */
export type SubmitRefusal =
  | {
    ok: false;
    code: "interaction_invalid";
    problems: { path: string; message: string }[];
  }
  | { ok: false; code: "form_not_found" }
  | { ok: false; code: "form_key_reused" }
  | { ok: false; code: "rate_limited"; retryAfterSeconds: number }
  | { ok: false; code: "payload_too_large"; message: string };

type FormField = {
  name: string;
  kind: string;
  required: boolean;
  options: string[];
  accept?: string[];
  max_files?: number;
  max_bytes?: number;
};

function invalid(path: string, message: string): SubmitRefusal {
  return {
    ok: false,
    code: "interaction_invalid",
    problems: [{ path, message }],
  };
}

/** Checks and stores one submission; a filled honeypot answers a receipt and stores nothing. */
export async function submitForm(
  ctx: SubmitContext,
  envelope: z.output<typeof Envelope>,
  files: SentFile[] = [],
): Promise<{ ok: true; receipt: Receipt; replayed: boolean } | SubmitRefusal> {
  const form = await publishedForm(ctx, envelope);
  if (!form) return { ok: false, code: "form_not_found" };
  const fields = new Map(form.fields.map((f) => [f.name, f]));
  const values: Record<string, string | boolean> = {};
  for (const [name, value] of Object.entries(envelope.values)) {
    const field = fields.get(name);
    if (!field || field.kind === "file") {
      return invalid(`values.${name}`, `The form has no field "${name}"`);
    }
    if (typeof value === "string" && value.length > FORM_LIMITS.scalarBytes) {
      return invalid(`values.${name}`, "A value holds at most 16 KiB");
    }
    values[name] = value;
  }
  for (const field of form.fields) {
    const at = `values.${field.name}`;
    if (field.kind === "file") {
      const sent = files.filter((f) => f.field === field.name);
      const problem = checkFiles(field, sent);
      if (problem) return invalid(`files.${field.name}`, problem);
      continue;
    }
    const value = values[field.name];
    if (field.kind === "checkbox") {
      if (value !== undefined && typeof value !== "boolean") {
        return invalid(at, "A checkbox is true or false");
      }
      if (field.required && value !== true) {
        return invalid(at, "This box must be ticked");
      }
      continue;
    }
    if (value !== undefined && typeof value !== "string") {
      return invalid(at, "Expected text");
    }
    const text = (value ?? "").trim();
    if (text === "") {
      if (field.required) return invalid(at, "This field is required");
      delete values[field.name];
      continue;
    }
    values[field.name] = text;
    if (field.kind === "email" && !new RegExp(EMAIL_PATTERN).test(text)) {
      return invalid(at, "Expected one email address");
    }
    if (field.kind === "phone" && !new RegExp(PHONE_PATTERN).test(text)) {
      return invalid(at, "Expected a phone number");
    }
    if (field.kind === "select" && !field.options.includes(text)) {
      return invalid(at, "Expected one of the field's options");
    }
  }
  for (const file of files) {
    if (!fields.has(file.field) || fields.get(file.field)!.kind !== "file") {
      return invalid(
        `files.${file.field}`,
        `The form has no file field "${file.field}"`,
      );
    }
  }
  if (files.length > FORM_LIMITS.files) {
    return invalid("files", `At most ${FORM_LIMITS.files} files in all`);
  }
  if (files.reduce((n, f) => n + f.bytes.length, 0) > FORM_LIMITS.filesBytes) {
    return {
      ok: false,
      code: "payload_too_large",
      message: "Files hold at most 10485760 bytes in all",
    };
  }
  if (form.consent !== null && !envelope.consent) {
    return invalid("consent", "The form's consent statement must be accepted");
  }

  const keyDigest = await sha256Hex(
    canonicalJson(["form", ctx.siteId, envelope.key]),
  );
  const valuesDigest = await sha256Hex(canonicalJson({
    page: envelope.page,
    locale: envelope.locale,
    section: envelope.section,
    values,
    consent: envelope.consent,
    files: await Promise.all(files.map(async (f) => ({
      field: f.field,
      name: f.name,
      type: f.type,
      digest: await sha256Hex(f.bytes),
    }))),
  }));
  const first = await ctx.db.selectFrom("form_submissions").select([
    "id",
    "values_digest",
    "created_at",
  ]).where("site_id", "=", ctx.siteId).where("key_digest", "=", keyDigest)
    .executeTakeFirst();
  if (first) {
    if (first.values_digest !== valuesDigest) {
      return { ok: false, code: "form_key_reused" };
    }
    return {
      ok: true,
      replayed: true,
      receipt: {
        id: first.id,
        received_at: first.created_at.toISOString(),
        message: form.successText,
      },
    };
  }

  const limited = await throttle(ctx, envelope);
  if (limited) return limited;
  const now = ctx.clock.now();
  const id = crypto.randomUUID();
  const receipt = {
    id,
    received_at: now.toISOString(),
    message: form.successText,
  };
  // A bot that filled the hidden field gets an ordinary receipt; nothing is kept.
  if (envelope.website.trim() !== "") {
    return { ok: true, replayed: false, receipt };
  }
  const stored = files.map((f, i) => ({
    id: crypto.randomUUID(),
    file: f,
    position: i,
  }));
  for (const s of stored) {
    await ctx.store.put(`${ctx.siteId}/${s.id}`, s.file.bytes);
  }
  try {
    await ctx.db.transaction().execute(async (tx) => {
      await tx.insertInto("form_submissions").values({
        id,
        site_id: ctx.siteId,
        page_id: envelope.page,
        locale: envelope.locale,
        section: envelope.section,
        key_digest: keyDigest,
        values_digest: valuesDigest,
        values: JSON.stringify(values),
        consent: envelope.consent,
        created_at: now,
        expires_at: new Date(
          now.getTime() + FORM_LIMITS.retentionDays * 86_400_000,
        ),
      }).execute();
      for (const s of stored) {
        await tx.insertInto("form_attachments").values({
          id: s.id,
          site_id: ctx.siteId,
          submission_id: id,
          field: s.file.field,
          position: s.position,
          name: s.file.name,
          type: s.file.type,
          size: s.file.bytes.length,
          storage_key: `${ctx.siteId}/${s.id}`,
        }).execute();
      }
    });
  } catch (e) {
    // Nothing half-stored: bytes written for a submission that did not commit are removed.
    for (const s of stored) await ctx.store.delete(`${ctx.siteId}/${s.id}`);
    const again = await ctx.db.selectFrom("form_submissions").select([
      "id",
      "values_digest",
      "created_at",
    ]).where("site_id", "=", ctx.siteId).where("key_digest", "=", keyDigest)
      .executeTakeFirst();
    // A concurrent first submission with the same key won the race.
    if (again) {
      return again.values_digest === valuesDigest
        ? {
          ok: true,
          replayed: true,
          receipt: {
            id: again.id,
            received_at: again.created_at.toISOString(),
            message: form.successText,
          },
        }
        : { ok: false, code: "form_key_reused" };
    }
    throw e;
  }
  return { ok: true, replayed: false, receipt };
}

function checkFiles(field: FormField, sent: SentFile[]): string | null {
  const maxFiles = field.max_files ?? 1;
  const maxBytes = field.max_bytes ?? FILE_LIMITS.maxBytes;
  if (field.required && sent.length === 0) return "This field needs a file";
  if (sent.length > maxFiles) return `At most ${maxFiles} files`;
  const accept = field.accept && field.accept.length > 0
    ? field.accept
    : FILE_CATALOGUE.flatMap((f) => [f.type, ...f.extensions]);
  for (const f of sent) {
    if (f.bytes.length > maxBytes) {
      return `"${f.name}" is larger than ${maxBytes} bytes`;
    }
    const dot = f.name.lastIndexOf(".");
    const ext = dot >= 0 ? f.name.slice(dot).toLowerCase() : "";
    const entry = FILE_CATALOGUE.find((c) => c.type === f.type);
    // The type must be one the catalogue knows, agree with the name, and be accepted.
    if (!entry || !entry.extensions.includes(ext)) {
      return `"${f.name}" is not a supported file type`;
    }
    if (!accept.includes(f.type) && !accept.includes(ext)) {
      return `"${f.name}" is not a type this field accepts`;
    }
  }
  return null;
}

async function throttle(
  ctx: SubmitContext,
  envelope: { page: string; locale: string; section: string },
): Promise<SubmitRefusal | null> {
  const rate = new RateWindow(ctx.kv, { clock: ctx.clock });
  for (
    const [key, limit] of [
      [["form-address", ctx.siteId, ctx.address], FORM_LIMITS.perAddress],
      [
        ["form", ctx.siteId, envelope.page, envelope.locale, envelope.section],
        FORM_LIMITS.perForm,
      ],
    ] as const
  ) {
    const decision = await rate.hit(
      key.join("\n"),
      limit,
      FORM_LIMITS.windowMs,
    );
    if (!decision.allowed) {
      return {
        ok: false,
        code: "rate_limited",
        retryAfterSeconds: decision.retryAfterSeconds,
      };
    }
  }
  return null;
}

async function publishedForm(
  ctx: SubmitContext,
  envelope: { page: string; locale: string; section: string },
): Promise<
  | {
    fields: FormField[];
    consent: string | null;
    successText: string;
  }
  | null
> {
  const row = await sql<{ slides: unknown }>`
    select p.fields -> 'slides' as slides from public_items p
    where p.site_id = ${ctx.siteId} and p.group_id = ${envelope.page}
      and p.requested_locale = ${envelope.locale}
  `.execute(ctx.db);
  if (row.rows.length === 0) return null;
  const parsed = parsePageDocument(row.rows[0].slides ?? null);
  if (!parsed.ok) return null;
  const section = parsed.value.sections.find((s) =>
    s.id === envelope.section && s.type === "form"
  );
  if (!section) return null;
  const props = parsed.value.props[section.id];
  return {
    fields: props.fields as FormField[],
    consent: props.consent as string | null,
    successText: props.success_text as string,
  };
}
