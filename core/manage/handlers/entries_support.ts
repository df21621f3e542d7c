// Shared steps of the entry handlers: contexts for the services, refusal statuses, answer shapes, reads and cursors.
import { sql } from "kysely";
import type { Authority } from "../../access/authority.ts";
import { decide, readableFields, readReach } from "../../access/decide.ts";
import type { AccessRequest } from "../../access/decide.ts";
import type { Db } from "../../db/database.ts";
import {
  type LifecycleContext,
  type LifecycleResult,
  modelValidator,
} from "../../entries/mod.ts";
import {
  type GroupRow,
  type InstanceRow,
  readGroup,
} from "../../entries/store.ts";
import { refuse } from "../../web/errors.ts";
import { getModel } from "../../models/model_reads.ts";
import { ERROR_STATUS } from "../contract/errors.ts";
import type { ManageContext } from "../handler.ts";
import { ENTRIES_COLUMNS, GROUP_COLUMNS } from "../../db/row_columns.ts";

/** The lifecycle context of a command: the credential as actor, model validation, the key's digest as trace. */
export function lifecycleOf(ctx: ManageContext): LifecycleContext {
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    siteId: ctx.site.id,
    actor: ctx.actor,
    authority: ctx.authority,
    actorSnapshot: ctx.snapshot,
    validate: modelValidator(),
    trace: ctx.keyDigest
      ? { idempotency_key_digest: ctx.keyDigest }
      : undefined,
  };
}

/** A refusal value of any entry, proposal or draft service. */
export interface ServiceRefusal {
  ok: false;
  code: string;
  [detail: string]: unknown;
}

const MESSAGES: Record<string, string> = {
  not_found: "No such entry on this site, or it is not readable",
  version_conflict:
    "The entry changed: the version pin is not the current one; read it again",
  workflow_conflict:
    "The entry's workflow revision moved: read the entry again and resend the pins",
  transition_unavailable: "The entry cannot take this step now",
  field_validation_failed: "Field values are not valid",
  locale_denied: "The credential's creator may not act in these languages",
  field_denied: "The credential's creator may not write these fields",
  unknown_locale: "The site has no such language",
  slug_taken: "Another entry of this model holds the slug in this language",
  slug_reserved: "The address is reserved for the service's own routes",
  page_address_required:
    "The page has no address in this language: set one with POST /pages/{id}/address, then publish",
  single_entry_exists: "The single-entry model already holds its entry",
  unique_value_taken: "Another entry holds this unique value",
  relation_target_taken: "Another entry holds this relation target",
  relation_target_not_found:
    "Relation targets are missing, of another model, unreadable, or in Trash",
  relation_duplicate_target: "A relation target is named twice",
  relation_position_not_ordered:
    "Positions and moves need an ordered to-many relation field",
  assignee_not_eligible: "That person may not act on this entry's model",
  field_not_found: "The model has no such field",
  proposal_field_unsupported: "Relation and media fields cannot be proposed",
  draft_conflict:
    "The working draft changed: read it again and resend expected_revision",
  draft_held: "Another person holds the working draft of this language",
  forbidden: "This actor may not do that",
  proposal_stale:
    "The entry changed after the proposal was made: nothing was written",
  proposal_not_open:
    "The proposal was already applied or dismissed: read it again",
  audit_unavailable: "The audit ledger is unavailable: nothing was written",
  invalid_request: "The request is not valid",
};

/** Throws the spec's status and code for a service refusal, with its details. */
export function refuseWith(refusal: ServiceRefusal): never {
  const { ok: _ok, code, ...details } = refusal;
  if (code === "credential_revoked" || code === "credential_not_found") {
    refuse(401, "unauthorized", "The credential is not valid");
  }
  if (
    code === "creator_unauthorized" || code === "site_access_denied" ||
    code === "requester_unauthorized"
  ) {
    refuse(
      403,
      "creator_unauthorized",
      "The credential's creator has no access to this site",
    );
  }
  if (code === "missing_permission") {
    const missing = (details.missing as string[] | undefined) ?? [];
    refuse(403, code, `Missing permission: ${missing.join(", ")}`, details);
  }
  const status = (ERROR_STATUS as Record<string, number>)[code];
  if (status === undefined) {
    throw new Error(`Cannot map refusal "${code}" to a status`);
  }
  refuse(
    status as 400,
    code,
    MESSAGES[code] ?? `Refused: ${code}`,
    details,
  );
}

/** The success of a service outcome; a refusal is thrown with its status. */
export function unwrap<T extends { ok: boolean }>(
  outcome: T,
): Extract<T, { ok: true }> {
  if (!outcome.ok) refuseWith(outcome as unknown as ServiceRefusal);
  return outcome as Extract<T, { ok: true }>;
}

/** Refuses with the decision's code unless `decide()` allows the request. */
export function requireDecision(
  authority: Authority,
  request: AccessRequest,
): void {
  const decision = decide(authority, request);
  if (!decision.ok) refuseWith({ ...decision });
}

/** ISO text of a stored time, or null. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString();
}

/** A value as JSON sends it: dates become ISO text. */
export type Plain<T> = T extends Date ? string
  : T extends readonly (infer U)[] ? Plain<U>[]
  : T extends object ? { [K in keyof T]: Plain<T[K]> }
  : T;

/** Dates to ISO text, the way JSON would send them. */
export function plain<T>(value: T): Plain<T> {
  return JSON.parse(JSON.stringify(value));
}

/** The answer of a lifecycle write: the group's pins after the command. */
export function writtenAnswer(result: LifecycleResult) {
  const state = (i: { published_version_id: string | null }) =>
    result.state === "trashed"
      ? "trashed" as const
      : i.published_version_id !== null
      ? "published" as const
      : "draft" as const;
  return {
    id: result.group_id,
    model_id: result.model_id,
    state: result.state,
    revision: result.revision,
    current_version_id: result.current_version_id,
    published_version_id: result.published_version_id,
    locales: Object.fromEntries(result.instances.map((i) => [i.locale, {
      entry_id: i.entry_id,
      slug: i.slug,
      state: state(i),
      current_version_id: i.current_version_id,
      published_version_id: i.published_version_id,
      published_at: iso(i.published_at),
    }])),
  };
}

/**
 * The group the credential may read, or a refusal: not on the site 404; a model outside
 * the credential or not readable 403; `read:own` on someone else's entry 404.
 */
export async function readableGroup(
  ctx: ManageContext,
  groupId: string,
): Promise<GroupRow> {
  const group = await readGroup(ctx.services.db, ctx.site.id, groupId);
  if (!group) refuseWith({ ok: false, code: "not_found" });
  const decision = decide(ctx.authority, {
    action: "entries.read",
    model: group.model_id,
    owner: group.created_by,
  });
  if (!decision.ok) {
    if (readReach(ctx.authority, group.model_id) === "own") {
      refuseWith({ ok: false, code: "not_found" });
    }
    refuseWith({ ...decision });
  }
  return group;
}

/** The values the authority may read. */
export function readable(
  authority: Authority,
  modelId: string,
  values: Record<string, unknown>,
): Record<string, unknown> {
  const keys = readableFields(authority, modelId, Object.keys(values));
  return Object.fromEntries(keys.map((k) => [k, values[k]]));
}

/** Entry summaries of some groups: each language's pins and readable current values, in bulk. */
export async function summaries(
  db: Db,
  authority: Authority,
  siteId: string,
  groups: readonly GroupRow[],
) {
  if (groups.length === 0) return [];
  const instances = await db.selectFrom("entries")
    .innerJoin(
      "site_languages",
      (join) =>
        join.onRef("site_languages.site_id", "=", "entries.site_id")
          .onRef("site_languages.code", "=", "entries.locale"),
    )
    .select(ENTRIES_COLUMNS)
    .where("entries.site_id", "=", siteId)
    .where("entries.group_id", "in", groups.map((g) => g.id))
    .orderBy("site_languages.position").execute();
  const versionIds = instances.flatMap((
    i,
  ) => [i.current_version_id, i.published_version_id]).filter((
    id,
  ): id is string => id !== null);
  const versions = versionIds.length === 0 ? [] : await db.selectFrom(
    "entry_versions",
  ).select(["id", "number", "fields"]).where("site_id", "=", siteId)
    .where("id", "in", [...new Set(versionIds)]).execute();
  const byId = new Map(versions.map((v) => [v.id, v]));
  return groups.map((group) => {
    const own = instances.filter((i) => i.group_id === group.id);
    return summaryOf(authority, group, own, byId);
  });
}

function summaryOf(
  authority: Authority,
  group: GroupRow,
  instances: readonly InstanceRow[],
  versions: Map<string, { number: number; fields: unknown }>,
) {
  const trashed = group.trashed_at !== null;
  let published: string | null = null;
  for (const i of instances) {
    const id = i.published_version_id;
    if (
      id !== null &&
      (published === null ||
        versions.get(id)!.number > versions.get(published)!.number)
    ) published = id;
  }
  return {
    id: group.id,
    model_id: group.model_id,
    state: trashed
      ? "trashed" as const
      : published !== null
      ? "published" as const
      : "draft" as const,
    revision: group.revision,
    current_version_id: group.current_version_id,
    published_version_id: published,
    locales: Object.fromEntries(instances.map((i) => [i.locale, {
      entry_id: i.id,
      slug: i.slug,
      state: trashed
        ? "trashed" as const
        : i.published_version_id !== null
        ? "published" as const
        : "draft" as const,
      current_version_id: i.current_version_id,
      published_version_id: i.published_version_id,
      published_at: iso(i.published_at),
      fields: i.current_version_id === null ? {} : readable(
        authority,
        group.model_id,
        versions.get(i.current_version_id)!.fields as Record<string, unknown>,
      ),
    }])),
    created_at: iso(group.created_at)!,
    updated_at: iso(group.updated_at)!,
    trashed_at: iso(group.trashed_at),
  };
}

/** What a cursor remembers: the list it belongs to and the last row's sort key. */
export interface CursorState {
  list: string;
  at: string;
  id: string;
}

/** An opaque cursor: base64url JSON naming the list (with its other query values) and the last key. */
export function encodeCursor(state: CursorState): string {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replaceAll("=", "");
}

/** Reads a cursor of `list`; a foreign, altered or malformed one is `400 invalid_request`. */
export function decodeCursor(cursor: string, list: string): CursorState {
  try {
    const text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const state = JSON.parse(
      new TextDecoder().decode(Uint8Array.from(text, (c) => c.charCodeAt(0))),
    ) as CursorState;
    if (
      state.list === list && typeof state.id === "string" &&
      typeof state.at === "string"
    ) return state;
  } catch {
    // Refused below.
  }
  return refuse(
    400,
    "invalid_request",
    "Invalid query.cursor: send back next_cursor with the same other query values",
    {
      issues: [{ path: "query.cursor", message: "not a cursor of this list" }],
    },
  );
}

/** Options of {@link pageGroups}. */
export interface PageGroupsOptions {
  modelId: string;
  trashed: boolean;
  limit: number;
  cursor?: string;
}

/**
 * One page of a model's groups in SQL: outside Trash newest created first, or in Trash
 * most recently trashed first; keyset paging on (time, id); `read:own` sees its own only.
 */
export async function pageGroups(
  ctx: ManageContext,
  options: PageGroupsOptions,
) {
  const { db } = ctx.services;
  const list = `${options.trashed ? "trash" : "entries"}:${options.modelId}`;
  const column = options.trashed ? "trashed_at" : "created_at";
  let query = db.selectFrom("entry_groups").select(GROUP_COLUMNS)
    .where("site_id", "=", ctx.site.id)
    .where("model_id", "=", options.modelId)
    .where("trashed_at", options.trashed ? "is not" : "is", null);
  if (readReach(ctx.authority, options.modelId) === "own") {
    query = query.where("created_by", "=", ctx.authority.personId);
  }
  if (options.cursor) {
    const after = decodeCursor(options.cursor, list);
    const at = new Date(after.at);
    if (Number.isNaN(at.getTime())) decodeCursor("", list);
    query = query.where((eb) =>
      eb.or([
        eb(column, "<", at),
        eb.and([eb(column, "=", at), eb("id", "<", after.id)]),
      ])
    );
  }
  const rows = await query.orderBy(column, "desc").orderBy("id", "desc")
    .limit(options.limit + 1).execute();
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  const hasMore = rows.length > options.limit;
  return {
    groups: page,
    page: {
      limit: options.limit,
      has_more: hasMore,
      next_cursor: hasMore && last
        ? encodeCursor({ list, at: iso(last[column])!, id: last.id })
        : null,
    },
  };
}

/** The newest audit entry a command wrote under this key for this entry, or null. */
export async function auditByKey(
  ctx: ManageContext,
  action: string,
  groupId: string,
): Promise<
  { target: Record<string, unknown>; details: Record<string, unknown> } | null
> {
  if (!ctx.keyDigest) return null;
  const rows = await ctx.services.db.selectFrom("audit_entries")
    .select(["target", "details"])
    .where("site_id", "=", ctx.site.id).where("action", "=", action)
    .where(sql<string>`details->>'idempotency_key_digest'`, "=", ctx.keyDigest)
    .where(sql<string>`target->>'group_id'`, "=", groupId)
    .orderBy("created_at", "desc").limit(1).execute();
  const row = rows[0];
  if (!row) return null;
  const json = (v: unknown) =>
    (typeof v === "string" ? JSON.parse(v) : v) as Record<string, unknown>;
  return { target: json(row.target), details: json(row.details) };
}

/** Refuses `404 not_found` when `modelId` names no model of the credential's site. */
export async function requireModel(
  ctx: ManageContext,
  modelId: string,
): Promise<void> {
  const { db, clock } = ctx.services;
  const model = await getModel({ db, clock, siteId: ctx.site.id }, modelId);
  if (!model.ok) refuse(404, "not_found", `No model "${modelId}" on this site`);
}
