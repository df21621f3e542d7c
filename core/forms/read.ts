// Reading submissions and their private attachments (site:infra), and retention.
import { sql } from "kysely";
import { personHolding } from "../access/person_authority.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { AttachmentStore } from "./attachment_store.ts";
import { isId } from "../entries/store.ts";

/** Who reads: a person of the site. */
export interface SubmissionReadContext {
  db: Db;
  clock: Clock;
  siteId: string;
  personId: string;
  store: AttachmentStore;
}

/** A submission as an administrator reads it (FORM-010); no storage key, no honeypot. */
export interface SubmissionDetail {
  id: string;
  page_id: string;
  page_title: string | null;
  locale: string;
  section: string;
  values: Record<string, unknown>;
  consent: boolean;
  received_at: string;
  expires_at: string;
  attachments: Record<
    string,
    { id: string; name: string; type: string; size: number }[]
  >;
}

async function mayRead(ctx: SubmissionReadContext): Promise<boolean> {
  const held = await personHolding(ctx.db, {
    siteId: ctx.siteId,
    personId: ctx.personId,
    permission: "site:infra",
  });
  return held.ok;
}

/** The newest live submissions of the site (at most `limit`), or a refusal without site:infra. */
export async function listSubmissions(
  ctx: SubmissionReadContext,
  limit = 50,
): Promise<
  | { ok: true; data: SubmissionDetail[] }
  | { ok: false; code: "missing_permission" }
> {
  if (!(await mayRead(ctx))) return { ok: false, code: "missing_permission" };
  const now = ctx.clock.now();
  const rows = await ctx.db.selectFrom("form_submissions as s")
    .select([
      "s.id",
      "s.page_id",
      "s.locale",
      "s.section",
      "s.values",
      "s.consent",
      "s.created_at",
      "s.expires_at",
    ])
    .select(sql<string | null>`(select v.fields ->> 'title' from entries e
      join entry_versions v on v.site_id = e.site_id and v.id = e.current_version_id
      where e.site_id = s.site_id and e.group_id = s.page_id and e.locale = s.locale
      limit 1)`.as("page_title"))
    .where("s.site_id", "=", ctx.siteId).where("s.expires_at", ">", now)
    .orderBy("s.created_at", "desc").orderBy("s.id").limit(limit).execute();
  const ids = rows.map((r) => r.id);
  const files = ids.length === 0
    ? []
    : await ctx.db.selectFrom("form_attachments").select([
      "id",
      "submission_id",
      "field",
      "name",
      "type",
      "size",
    ]).where("site_id", "=", ctx.siteId).where("submission_id", "in", ids)
      .orderBy("field").orderBy("position").execute();
  return {
    ok: true,
    data: rows.map((r) => {
      const attachments: SubmissionDetail["attachments"] = {};
      for (const f of files.filter((f) => f.submission_id === r.id)) {
        (attachments[f.field] ??= []).push({
          id: f.id,
          name: f.name,
          type: f.type,
          size: f.size,
        });
      }
      return {
        id: r.id,
        page_id: r.page_id,
        page_title: (r.page_title as string | null) ?? null,
        locale: r.locale,
        section: r.section,
        values: (typeof r.values === "string"
          ? JSON.parse(r.values)
          : r.values) as Record<string, unknown>,
        consent: r.consent,
        received_at: r.created_at.toISOString(),
        expires_at: r.expires_at.toISOString(),
        attachments,
      };
    }),
  };
}

/**
 * The bytes of one attachment of a live submission of this site (FORM-011, FORM-012); expired,
 * erased, missing and other sites' attachments are all `not_found`.
 */
export async function readAttachment(
  ctx: SubmissionReadContext,
  ids: { submissionId: string; attachmentId: string },
): Promise<
  | { ok: true; name: string; type: string; bytes: Uint8Array }
  | { ok: false; code: "missing_permission" | "not_found" }
> {
  if (!(await mayRead(ctx))) return { ok: false, code: "missing_permission" };
  if (!isId(ids.submissionId) || !isId(ids.attachmentId)) {
    return { ok: false, code: "not_found" };
  }
  const row = await ctx.db.selectFrom("form_attachments as a")
    .innerJoin("form_submissions as s", "s.id", "a.submission_id")
    .select(["a.name", "a.type", "a.storage_key"])
    .where("a.site_id", "=", ctx.siteId).where("s.site_id", "=", ctx.siteId)
    .where("a.id", "=", ids.attachmentId)
    .where("a.submission_id", "=", ids.submissionId)
    .where("s.expires_at", ">", ctx.clock.now()).executeTakeFirst();
  if (!row) return { ok: false, code: "not_found" };
  const bytes = await ctx.store.get(row.storage_key);
  if (!bytes) return { ok: false, code: "not_found" };
  return { ok: true, name: row.name, type: row.type, bytes };
}

/** Erases submissions past their retention, with their attachments' bytes; answers how many. */
export async function purgeExpiredSubmissions(
  ctx: { db: Db; clock: Clock; store: AttachmentStore },
): Promise<number> {
  const now = ctx.clock.now();
  const files = await ctx.db.selectFrom("form_attachments as a")
    .innerJoin("form_submissions as s", "s.id", "a.submission_id")
    .select("a.storage_key").where("s.expires_at", "<=", now).execute();
  for (const f of files) await ctx.store.delete(f.storage_key);
  const gone = await ctx.db.deleteFrom("form_submissions")
    .where("expires_at", "<=", now).executeTakeFirst();
  return Number(gone.numDeletedRows);
}
