// Working drafts: one person's unsaved work on one language of an entry; never a version, never audited.
import { actingPersonId, type Actor } from "../access/actor.ts";
import { type Authority, loadAuthority } from "../access/authority.ts";
import { decide } from "../access/decide.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { type GroupRow, readGroup } from "../entries/store.ts";
import type { Problem } from "../models/problems.ts";
import {
  type DraftRow,
  holderOf,
  type Person,
  presentDraft,
  readDraftRow,
  type WorkingDraft,
} from "./draft_rows.ts";

export type { Person, WorkingDraft } from "./draft_rows.ts";

/** Limit of one working draft: UTF-8 bytes of its values written as JSON. */
export const DRAFT_LIMITS = { bytes: 1024 * 1024 } as const;

/** What draft commands need. No audit writer: drafts are not audited (spec 1 part 2.9). */
export interface DraftContext {
  db: Db;
  clock: Clock;
  /** The site, taken from the credential or Host, never from a request field. */
  siteId: string;
  actor: Actor;
  /** Id source, injectable for tests; defaults to `crypto.randomUUID`. */
  newId?: () => string;
}

/** One language of one entry. */
export interface DraftTarget {
  group_id: string;
  locale: string;
}

/** A draft write, pinned to the draft revision the writer read (null: none yet). */
export interface SaveDraftOptions extends DraftTarget {
  fields: unknown;
  /** The saved version the work started from; null for a language not saved yet. */
  base_version_id: string | null;
  expected_revision: number | null;
}

/** A discard or takeover; `expected_revision` pins the draft as read when given. */
export interface DraftCommandOptions extends DraftTarget {
  expected_revision?: number;
}

/** Every refusal code of a draft command. */
export type DraftRefusalCode =
  | "site_access_denied"
  | "creator_unauthorized"
  | "credential_revoked"
  | "credential_not_found"
  | "requester_unauthorized"
  | "not_found"
  | "unknown_locale"
  | "missing_permission"
  | "locale_denied"
  | "field_denied"
  | "invalid_request"
  | "draft_conflict"
  | "draft_held"
  | "forbidden";

/** A typed refusal of a draft command; nothing was written. */
export interface DraftRefusal {
  ok: false;
  code: DraftRefusalCode;
  missing?: string[];
  languages?: string[];
  fields?: string[];
  problems?: Problem[];
  /** Who holds the draft (`draft_held`). */
  held_by?: Person;
}

/** The editing state of one entry language as the actor may see it. */
export interface EditingState {
  ok: true;
  group_id: string;
  locale: string;
  /** The actor's own draft; null when the actor holds none. */
  draft: WorkingDraft | null;
  /** Who else holds a draft here; always null for a plugin, which sees only its person's work. */
  held_by: Person | null;
}

/** A draft after a command. */
export interface DraftResult {
  ok: true;
  draft: WorkingDraft;
}

interface Checked {
  authority: Authority;
  group: GroupRow;
  row: DraftRow | undefined;
  personId: string;
}

async function check(
  ctx: DraftContext,
  target: DraftTarget,
  action: "entries.read" | "entries.update",
  db: Db = ctx.db,
): Promise<Checked | DraftRefusal> {
  const loaded = await loadAuthority(db, {
    siteId: ctx.siteId,
    actor: ctx.actor,
  });
  if (!loaded.ok) return { ok: false, code: loaded.code };
  const group = await readGroup(db, ctx.siteId, target.group_id);
  if (!group) return { ok: false, code: "not_found" };
  const language = await db.selectFrom("site_languages").select("code")
    .where("site_id", "=", ctx.siteId).where("code", "=", target.locale)
    .executeTakeFirst();
  if (!language) {
    return { ok: false, code: "unknown_locale", languages: [target.locale] };
  }
  const decision = decide(loaded.authority, {
    action,
    model: group.model_id,
    owner: group.created_by,
    languages: [target.locale],
  });
  if (!decision.ok) return decision;
  return {
    authority: loaded.authority,
    group,
    row: await readDraftRow(db, ctx.siteId, group.id, target.locale),
    personId: actingPersonId(ctx.actor),
  };
}

function held(holder: Person): DraftRefusal {
  return { ok: false, code: "draft_held", held_by: holder };
}

/**
 * Reads the editing state of one entry language (ENT-017, PAPI-021): the actor's own
 * draft, and for people and credentials who else holds one. A plugin acting for a person
 * sees only that person's draft (PAPI-023). Needs `read` on the model in that language.
 */
export async function getEditing(
  ctx: DraftContext,
  target: DraftTarget,
): Promise<EditingState | DraftRefusal> {
  const checked = await check(ctx, target, "entries.read");
  if ("ok" in checked) return checked;
  const { row, personId, group } = checked;
  const mine = row?.holder_id === personId;
  return {
    ok: true,
    group_id: group.id,
    locale: target.locale,
    draft: row && mine ? await presentDraft(ctx.db, row) : null,
    held_by: row && !mine && ctx.actor.kind !== "plugin"
      ? await holderOf(ctx.db, row.holder_id)
      : null,
  };
}

function checkFields(
  fields: unknown,
): { ok: true; fields: Record<string, unknown> } | DraftRefusal {
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    return {
      ok: false,
      code: "invalid_request",
      problems: [{
        path: "fields",
        code: "invalid_request",
        message: "Expected an object of field keys to values",
      }],
    };
  }
  const bytes = new TextEncoder().encode(JSON.stringify(fields)).length;
  if (bytes > DRAFT_LIMITS.bytes) {
    return {
      ok: false,
      code: "invalid_request",
      problems: [{
        path: "fields",
        code: "invalid_request",
        message: `Expected at most ${DRAFT_LIMITS.bytes} bytes, got ${bytes}`,
      }],
    };
  }
  return { ok: true, fields: fields as Record<string, unknown> };
}

/**
 * Writes the actor's working draft of one entry language (ENT-019, PAPI-021), pinned to
 * the draft revision read (`expected_revision`, null when there is none yet); a stale pin
 * is `draft_conflict`, another person's draft is `draft_held`. Writes no version, no
 * workflow event and no audit entry. Needs `update` on the model in that language.
 */
export async function saveDraft(
  ctx: DraftContext,
  options: SaveDraftOptions,
): Promise<DraftResult | DraftRefusal> {
  const values = checkFields(options.fields);
  if (!values.ok) return values;
  const checked = await check(ctx, options, "entries.update");
  if ("ok" in checked) return checked;
  const { row, personId, group } = checked;
  if (options.base_version_id !== null) {
    const base = await ctx.db.selectFrom("entry_versions").select("id")
      .where("site_id", "=", ctx.siteId).where("group_id", "=", group.id)
      .where("locale", "=", options.locale)
      .where("id", "=", options.base_version_id).executeTakeFirst();
    if (!base) {
      return {
        ok: false,
        code: "invalid_request",
        problems: [{
          path: "base_version_id",
          code: "invalid_request",
          message:
            `No version "${options.base_version_id}" of this entry in "${options.locale}"`,
        }],
      };
    }
  }
  const now = ctx.clock.now();
  const fields = JSON.stringify(values.fields);
  if (!row) {
    if (options.expected_revision !== null) {
      return { ok: false, code: "draft_conflict" };
    }
    const id = (ctx.newId ?? (() => crypto.randomUUID()))();
    const inserted = await ctx.db.insertInto("entry_drafts").values({
      id,
      site_id: ctx.siteId,
      group_id: group.id,
      locale: options.locale,
      holder_id: personId,
      fields,
      base_version_id: options.base_version_id,
      revision: 1,
      taken_over_from: null,
      taken_over_at: null,
      created_at: now,
      updated_at: now,
    }).onConflict((oc) =>
      oc.columns(["site_id", "group_id", "locale"]).doNothing()
    ).executeTakeFirst();
    // Someone wrote the first draft a moment earlier: the pin "no draft" is stale.
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) !== 1) {
      return { ok: false, code: "draft_conflict" };
    }
  } else {
    if (row.holder_id !== personId) {
      return held(await holderOf(ctx.db, row.holder_id));
    }
    if (options.expected_revision !== row.revision) {
      return { ok: false, code: "draft_conflict" };
    }
    const updated = await ctx.db.updateTable("entry_drafts").set({
      fields,
      base_version_id: options.base_version_id,
      revision: row.revision + 1,
      updated_at: now,
    }).where("id", "=", row.id).where("revision", "=", row.revision)
      .where("holder_id", "=", personId).executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) {
      return { ok: false, code: "draft_conflict" };
    }
  }
  const after = await readDraftRow(
    ctx.db,
    ctx.siteId,
    group.id,
    options.locale,
  );
  return { ok: true, draft: await presentDraft(ctx.db, after!) };
}

/**
 * Discards the actor's own draft of one entry language (ENT-019, PAPI-022); `discarded`
 * is false when there was none. Another person's draft is `draft_held`; a stale
 * `expected_revision` is `draft_conflict`. Needs `update` on the model in that language.
 */
export async function discardDraft(
  ctx: DraftContext,
  options: DraftCommandOptions,
): Promise<{ ok: true; discarded: boolean } | DraftRefusal> {
  const checked = await check(ctx, options, "entries.update");
  if ("ok" in checked) return checked;
  const { row, personId } = checked;
  if (!row) return { ok: true, discarded: false };
  if (row.holder_id !== personId) {
    return held(await holderOf(ctx.db, row.holder_id));
  }
  if (
    options.expected_revision !== undefined &&
    options.expected_revision !== row.revision
  ) {
    return { ok: false, code: "draft_conflict" };
  }
  const deleted = await ctx.db.deleteFrom("entry_drafts")
    .where("id", "=", row.id).where("revision", "=", row.revision)
    .where("holder_id", "=", personId).executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1) {
    return { ok: false, code: "draft_conflict" };
  }
  return { ok: true, discarded: true };
}

/**
 * Takes over another person's draft of one entry language (ENT-018): an explicit act of
 * a person (or a credential, as its creator) that moves the draft, its values kept, to
 * the actor and records who held it. A plugin may not take over (`forbidden`). No draft
 * is `not_found`; a stale `expected_revision` is `draft_conflict`. Taking over one's own
 * draft changes nothing. Needs `update` on the model in that language.
 */
export async function takeOverDraft(
  ctx: DraftContext,
  options: DraftCommandOptions,
): Promise<DraftResult | DraftRefusal> {
  if (ctx.actor.kind === "plugin") return { ok: false, code: "forbidden" };
  const checked = await check(ctx, options, "entries.update");
  if ("ok" in checked) return checked;
  const { row, personId } = checked;
  if (!row) return { ok: false, code: "not_found" };
  if (
    options.expected_revision !== undefined &&
    options.expected_revision !== row.revision
  ) {
    return { ok: false, code: "draft_conflict" };
  }
  if (row.holder_id === personId) {
    return { ok: true, draft: await presentDraft(ctx.db, row) };
  }
  const previous = await holderOf(ctx.db, row.holder_id);
  const now = ctx.clock.now();
  const updated = await ctx.db.updateTable("entry_drafts").set({
    holder_id: personId,
    revision: row.revision + 1,
    taken_over_from: JSON.stringify(previous),
    taken_over_at: now,
    updated_at: now,
  }).where("id", "=", row.id).where("revision", "=", row.revision)
    .where("holder_id", "=", row.holder_id).executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) {
    return { ok: false, code: "draft_conflict" };
  }
  const after = await readDraftRow(
    ctx.db,
    ctx.siteId,
    row.group_id,
    row.locale,
  );
  return { ok: true, draft: await presentDraft(ctx.db, after!) };
}
