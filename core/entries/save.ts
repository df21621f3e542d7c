// Save: creates a group with its first language, adds a language, or writes a new draft version.
import { type Insertable, sql } from "kysely";
import { heldMark } from "../db/prepared_queries.ts";
import { prebuilt, rowOf, rowsOf } from "../db/prebuilt.ts";
import {
  EVENT_COLUMNS,
  GROUP_COLUMNS,
  INSTANCE_COLUMNS,
  VERSION_COLUMNS,
} from "../db/row_columns.ts";
import type {
  EntriesTable,
  EntryGroupsTable,
  EntryVersionsTable,
} from "../db/schema.ts";
import { decide, readableFields } from "../access/decide.ts";
import type { ModelAction } from "../access/permissions.ts";
import { stableJson } from "../models/problems.ts";
import { listTitleOf } from "../models/title_field.ts";
import { isPageField } from "../models/validate_values.ts";
import { isReservedPageSlug } from "../pages/addresses.ts";
import {
  addressHeld,
  dropPendingAddress,
  recordPendingAddress,
} from "../pages/address_store.ts";
import {
  type CommandScope,
  type EventInput,
  type EventRow,
  refusalOf,
  runCommand,
} from "./command.ts";
import {
  claimSingleEntry,
  enforceEntryRules,
  loadRuleModel,
  resolveRelationWrites,
} from "./rules.ts";
import {
  groupPublishedVersionId,
  type GroupRow,
  groupState,
  type InstanceRow,
  instanceState,
  readGroup,
  readResult,
} from "./store.ts";
import { readForCreate, readForSave, type SaveReads } from "./save_reads.ts";
import type {
  LifecycleContext,
  LifecycleOutcome,
  LifecycleRefusal,
} from "./types.ts";

/** The label of a save's held writing statement (see `heldLabelOf`). */
const HELD_WRITE = "save";

/** A save, pinned to the version the caller edited. */
export interface SaveEntryOptions {
  /** The group saved to; absent creates a new group. */
  group_id?: string;
  /** The model of a new group; ignored when `group_id` is given. */
  model_id?: string;
  locale: string;
  /** Required for a new language; absent keeps the language's slug. */
  slug?: string;
  /** The values of this language's new version. */
  fields: Record<string, unknown>;
  /**
   * A create refuses `not_found` when the site has no such model, before any other check
   * (the command reads the model in its first statement, so its caller need not read it).
   */
  require_model?: boolean;
  /** The language's current version the edit started from; null for a new language. */
  expected_current_version_id: string | null;
}

type Plan =
  | { kind: "create"; modelId: string }
  | { kind: "add_locale"; group: GroupRow; reads: SaveReads }
  | {
    kind: "update";
    group: GroupRow;
    instance: InstanceRow;
    reads: SaveReads;
  };

async function planSave(
  scope: CommandScope,
  siteId: string,
  options: SaveInScopeOptions,
): Promise<Plan | LifecycleRefusal> {
  if (options.group_id === undefined) {
    if (!options.model_id) {
      throw new Error("Cannot create an entry: no model_id given");
    }
    return { kind: "create", modelId: options.model_id };
  }
  const group = await readGroup(scope.tx, siteId, options.group_id, {
    lock: true,
  });
  if (!group) return { ok: false, code: "not_found" };
  const reads = await readForSave(scope.tx, group, {
    locale: options.locale,
    validates: !!options.ctx.validate,
  });
  const instance = reads.instances.find((i) => i.locale === options.locale);
  return instance
    ? { kind: "update", group, instance, reads }
    : { kind: "add_locale", group, reads };
}

async function storedFields(
  scope: CommandScope,
  siteId: string,
  versionId: string | null,
): Promise<Record<string, unknown>> {
  if (versionId === null) return {};
  const row = await scope.tx.selectFrom("entry_versions").select("fields")
    .where("site_id", "=", siteId).where("id", "=", versionId)
    .executeTakeFirstOrThrow();
  return row.fields as Record<string, unknown>;
}

function changedKeys(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
) {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) =>
    stableJson(before[k]) !== stableJson(after[k])
  );
}

/**
 * Saves one language of an entry as a new immutable version. Without `group_id` it creates
 * the group and its first language (`create`); for a language the group lacks it adds it
 * (`create`); otherwise it writes the next version (`update`, or `update:own` on one's own
 * item), keeping stored values of fields the role cannot read. Refusals: `not_found`,
 * `unknown_locale`, `missing_permission`, `locale_denied`, `field_denied`,
 * `version_conflict` (stale pin), `transition_unavailable` (trashed), `slug_taken`,
 * `field_validation_failed` (save mode), and the entry rules of `rules.ts`:
 * `single_entry_exists`, `unique_value_taken`, `relation_*`. Relation fields take write
 * forms (`relation_writes.ts`); the resolved list is what the version stores.
 */
export function saveEntry(
  ctx: LifecycleContext,
  options: SaveEntryOptions,
): Promise<LifecycleOutcome> {
  return runCommand(ctx, (scope) => saveInScope(scope, { ...options, ctx }));
}

/** What {@linkcode saveInScope} takes: a save, its command's context, and audit details to add. */
export interface SaveInScopeOptions extends SaveEntryOptions {
  ctx: LifecycleContext;
  /** Added to the save's audit details (e.g. what command the save is part of). */
  auditDetails?: Record<string, unknown>;
}

/**
 * The body of {@linkcode saveEntry} inside a command that is already running, so that one
 * command may save several entries in one transaction (each with its version, workflow
 * event and audit entry). Same checks and refusals as `saveEntry`.
 */
export async function saveInScope(
  scope: CommandScope,
  options: SaveInScopeOptions,
): Promise<LifecycleOutcome> {
  const { ctx } = options;
  const { siteId } = ctx;
  const plan = await planSave(scope, siteId, options);
  if ("ok" in plan) return plan;
  const reads = plan.kind === "create"
    ? await readForCreate(scope.tx, siteId, {
      modelId: plan.modelId,
      locale: options.locale,
      validates: !!ctx.validate,
    })
    : plan.reads;
  const group = plan.kind === "create" ? null : plan.group;
  const modelId = group?.model_id ??
    (plan.kind === "create" ? plan.modelId : "");
  const instance = plan.kind === "update" ? plan.instance : null;
  const model = await loadRuleModel(scope.tx, siteId, modelId);
  if (plan.kind === "create" && options.require_model && !model) {
    return { ok: false, code: "not_found" };
  }
  const language = reads?.languageKnown ??
    !!await scope.tx.selectFrom("site_languages").select("code")
      .where("site_id", "=", siteId).where("code", "=", options.locale)
      .executeTakeFirst();
  if (!language) {
    return { ok: false, code: "unknown_locale", languages: [options.locale] };
  }
  const before = reads?.before ??
    await storedFields(scope, siteId, instance?.current_version_id ?? null);
  const hidden = Object.keys(before).filter((key) =>
    !readableFields(scope.authority, modelId, [key]).length
  );
  const fields = { ...options.fields };
  for (const key of hidden) fields[key] = before[key];
  const action: ModelAction = instance ? "update" : "create";
  const decision = decide(scope.authority, {
    action,
    model: modelId,
    owner: group?.created_by ?? null,
    languages: [options.locale],
    fields: changedKeys(before, fields),
  });
  if (!decision.ok) return refusalOf(decision);
  if (
    (instance?.current_version_id ?? null) !==
      options.expected_current_version_id
  ) {
    return { ok: false, code: "version_conflict" };
  }
  if (group?.trashed_at) return { ok: false, code: "transition_unavailable" };
  if (model) {
    const resolved = await resolveRelationWrites(scope.tx, {
      siteId,
      model,
      groupId: group?.id ?? null,
      locale: options.locale,
      fields,
    });
    if (!resolved.ok) return resolved;
    Object.assign(fields, resolved.fields);
  }
  const slug = options.slug ?? instance?.slug;
  if (!slug) {
    throw new Error(`Cannot add language "${options.locale}": no slug given`);
  }
  // A live page keeps its address until the language is published again (DLV-013): a new one
  // waits as the pending address, as one set through /pages/{id}/address does, and saving the
  // live address again drops a pending one.
  let pendingAddress: string | null | undefined;
  if (
    instance?.published_version_id && options.slug !== undefined &&
    model?.fields.some(isPageField)
  ) {
    if (options.slug === instance.slug) pendingAddress = null;
    else if (isReservedPageSlug(options.slug)) {
      return { ok: false, code: "slug_reserved" };
    } else if (await addressHeld(scope.tx, siteId, instance, options.slug)) {
      return { ok: false, code: "slug_taken" };
    } else pendingAddress = options.slug;
  }
  if (ctx.validate) {
    const errors = await ctx.validate({
      db: scope.tx,
      siteId,
      modelId,
      values: fields,
      mode: "save",
      locale: options.locale,
    });
    if (errors.length > 0) {
      return {
        ok: false,
        code: "field_validation_failed",
        errors: [...errors],
      };
    }
  }
  const groupId = group?.id ?? scope.newId();
  const entryId = instance?.id ?? scope.newId();
  const versionId = scope.newId();
  const now = scope.now;
  const groupRow = {
    id: groupId,
    site_id: siteId,
    model_id: modelId,
    primary_entry_id: entryId,
    created_by: scope.authority.personId,
    revision: 0,
    // A new group and language are written with their first version in place, so neither
    // needs the update that points an existing one at its new version.
    current_version_id: versionId,
    trashed_at: null,
    created_at: now,
    updated_at: now,
  };
  const entryRow = {
    id: entryId,
    site_id: siteId,
    group_id: groupId,
    model_id: modelId,
    locale: options.locale,
    slug,
    current_version_id: versionId,
    list_title: listTitleOf(model, fields),
    published_version_id: null,
    first_language: !group,
    published_at: null,
    created_at: now,
    updated_at: now,
  };
  const versionRow = (number: number) => ({
    id: versionId,
    site_id: siteId,
    group_id: groupId,
    entry_id: entryId,
    locale: options.locale,
    number,
    fields: JSON.stringify(fields),
    created_by: JSON.stringify(scope.actor),
    created_at: now,
  });
  const state = group && instance ? instanceState(group, instance) : "draft";
  const events: EventInput[] = [{
    groupId,
    entryId,
    locale: options.locale,
    kind: plan.kind === "update" ? "save" : plan.kind,
    from: plan.kind === "update" ? state : null,
    to: state,
    versionId,
    previousVersionId: instance?.current_version_id ?? null,
  }];
  // Whether the change's statement wrote the workflow event too.
  let eventsWritten = plan.kind === "update";
  // The one statement of a create or of a new version below is answered with nothing anyone
  // reads, so it is held back to go with the command's next statement (without rules to check:
  // the audit entry, the projections' first statement or the notifications, and the commit),
  // one round trip fewer. A taken slug then fails that statement with this one's error, which
  // the command answers as before (a dry run sends what it held before its rollback).
  if (!group && !instance && model?.kind !== "single") {
    // A new entry of a model that claims nothing between the rows: the group, its language, its
    // first version (numbered 1: the group has none yet) and the workflow event in one statement.
    await CREATE.rows(scope.tx, {
      group: groupRow,
      entry: entryRow,
      version: versionRow(1),
      events: scope.eventRows(events),
    });
    eventsWritten = true;
  } else if (group && instance) {
    // The language's next version (numbered after the group's last, which the lock keeps
    // still), the language and the group pointed at it, the group's unique claims cleared
    // for the rules to claim again, and the workflow event, in one statement.
    await NEW_VERSION[model ? 1 : 0].rows(scope.tx, {
      version: versionRow(0),
      events: scope.eventRows(events),
      siteId,
      groupId,
      entryId,
      versionId,
      slug: pendingAddress ? instance.slug : slug,
      listTitle: listTitleOf(model, fields),
      now,
    });
  } else {
    if (!group) {
      await scope.tx.insertInto("entry_groups").values(groupRow).execute();
      const single = await claimSingleEntry(scope, siteId, model, groupId);
      if (single) return single;
    }
    await scope.tx.insertInto("entries").values(entryRow).execute();
    // Versions are numbered across the group; a group written just now has none yet.
    const last = !group
      ? undefined
      : await scope.tx.selectFrom("entry_versions")
        .select((eb) => eb.fn.max("number").as("n"))
        .where("site_id", "=", siteId).where("group_id", "=", groupId)
        .executeTakeFirst();
    await scope.tx.insertInto("entry_versions")
      .values(versionRow(Number(last?.n ?? 0) + 1)).execute();
    if (group) {
      await scope.tx.updateTable("entry_groups")
        .set({ current_version_id: versionId, updated_at: now })
        .where("site_id", "=", siteId).where("id", "=", groupId).execute();
    }
  }
  if (pendingAddress === null) {
    await dropPendingAddress(scope.tx, siteId, entryId);
  } else if (pendingAddress !== undefined) {
    await recordPendingAddress(scope.tx, {
      site_id: siteId,
      entry_id: entryId,
      version_id: versionId,
      address: pendingAddress,
      created_at: now,
    });
  }
  const refused = await enforceEntryRules(scope, {
    siteId,
    model,
    groupId,
    locale: options.locale,
    fields,
    previous: before,
    created: !group,
    claimsCleared: !!instance,
  });
  if (refused) return refused;
  await scope.record(events, {
    action: ctx.actor.kind === "plugin"
      ? "plugin.content.save"
      : plan.kind === "update"
      ? "entry.save"
      : plan.kind === "create"
      ? "entry.create"
      : "entry.locale.add",
    target: {
      kind: "entry",
      group_id: groupId,
      model_id: modelId,
      locale: options.locale,
    },
    details: {
      ...options.auditDetails,
      version_id: versionId,
      kind: plan.kind,
    },
  }, { eventsWritten });
  if (!group) {
    scope.wrote(groupId, {
      model_id: modelId,
      revision: 0,
      trashed_at: null,
      updated_at: now,
      unpublished: true,
    });
    // A new entry's answer is what this command just wrote: nothing else can touch the group
    // before it commits.
    return {
      ok: true,
      group_id: groupId,
      model_id: modelId,
      state: "draft",
      revision: 0,
      current_version_id: versionId,
      published_version_id: null,
      instances: [{
        entry_id: entryId,
        locale: options.locale,
        slug,
        current_version_id: versionId,
        published_version_id: null,
        published_at: null,
      }],
    };
  }
  if (plan.kind !== "update") {
    return await readResult(scope.tx, siteId, groupId);
  }
  // A new version of a language answers from what this command wrote under the group's lock:
  // its publication state, revision and the other languages are as the lock read them.
  scope.wrote(groupId, {
    model_id: modelId,
    revision: plan.group.revision,
    trashed_at: null,
    updated_at: now,
    // A save moves no language's published version: none published under the lock, none after.
    unpublished: plan.reads.instances.every((i) =>
      i.published_version_id === null
    ),
  });
  const instances = plan.reads.instances.map((i) =>
    i === instance
      ? {
        ...i,
        slug: pendingAddress ? i.slug : slug,
        current_version_id: versionId,
      }
      : i
  );
  const published = instances.flatMap((i) => i.published_version_id ?? []);
  return {
    ok: true,
    group_id: groupId,
    model_id: modelId,
    state: groupState(plan.group, instances),
    revision: plan.group.revision,
    current_version_id: versionId,
    // Only a group with several published languages needs their numbers to tell the newest.
    published_version_id: published.length > 1
      ? await groupPublishedVersionId(scope.tx, siteId, instances)
      : published[0] ?? null,
    instances: instances.map((i) => ({
      entry_id: i.id,
      locale: i.locale,
      slug: i.slug,
      current_version_id: i.current_version_id,
      published_version_id: i.published_version_id,
      published_at: i.published_at,
    })),
  };
}

/**
 * A new entry of a model that claims nothing between the rows: the group, its language, its
 * first version and the workflow event in one statement, held back (see `saveInScope`).
 */
const CREATE = prebuilt((db, v: {
  group: Insertable<EntryGroupsTable>;
  entry: Insertable<EntriesTable>;
  version: Insertable<EntryVersionsTable>;
  events: EventRow[];
}) =>
  sql`
    with new_group as (${
    db.insertInto("entry_groups").values(rowOf(v.group, GROUP_COLUMNS))
  }),
      new_entry as (${
    db.insertInto("entries").values(rowOf(v.entry, INSTANCE_COLUMNS))
  }),
      events as (${
    db.insertInto("workflow_events").values(rowsOf(v.events, 1, EVENT_COLUMNS))
  })
    ${
    db.insertInto("entry_versions").values(rowOf(v.version, VERSION_COLUMNS))
  }${sql.raw(heldMark(HELD_WRITE))}`
);

/**
 * The language's next version (numbered after the group's last, which the lock keeps still),
 * the language and the group pointed at it, the group's unique claims cleared for the rules to
 * claim again (with a model to check), and the workflow event, in one statement, held back.
 */
const NEW_VERSION = [false, true].map((clearClaims) =>
  prebuilt((db, v: {
    version: Insertable<EntryVersionsTable>;
    events: EventRow[];
    siteId: string;
    groupId: string;
    entryId: string;
    versionId: string;
    slug: string;
    listTitle: string;
    now: Date;
  }) => {
    const last = sql<number>`(select coalesce(max(number), 0) + 1
      from entry_versions where site_id = ${v.siteId} and group_id = ${v.groupId})`;
    const claims = clearClaims
      ? sql`, cleared_claims as (${
        db.deleteFrom("entry_unique_claims")
          .where("site_id", "=", v.siteId).where("group_id", "=", v.groupId)
      })`
      : sql``;
    return sql`
      with new_version as (${
      db.insertInto("entry_versions").values({
        ...rowOf(v.version, VERSION_COLUMNS.filter((c) => c !== "number")),
        number: last,
      })
    }),
        moved_entry as (${
      db.updateTable("entries")
        .set({
          slug: v.slug,
          current_version_id: v.versionId,
          list_title: v.listTitle,
          updated_at: v.now,
        })
        .where("site_id", "=", v.siteId).where("id", "=", v.entryId)
    })${claims},
        events as (${
      db.insertInto("workflow_events").values(
        rowsOf(v.events, 1, EVENT_COLUMNS),
      )
    })
      ${
      db.updateTable("entry_groups")
        .set({ current_version_id: v.versionId, updated_at: v.now })
        .where("site_id", "=", v.siteId).where("id", "=", v.groupId)
    }${sql.raw(heldMark(HELD_WRITE))}`;
  })
);
