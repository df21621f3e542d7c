// The plugin API's content door: summaries in scope, the delegated read (part 2.8) and the transition command (part 2.7).
import { decide, readableFields } from "../access/decide.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import {
  type LifecycleOutcome,
  modelValidator,
  publishEntry,
  unpublishEntry,
} from "../entries/mod.ts";
import { readReviewState } from "../entries/review_state.ts";
import { groupPublishedVersionId, instanceState } from "../entries/store.ts";
import { type WorkflowBlock, workflowBlock } from "../entries/workflow.ts";
import type { AuditWriter } from "../entries/audit.ts";
import { type PluginRefusal, pluginRefusal } from "./api_support.ts";
import { type UsableDelegation, useDelegation } from "./delegations.ts";
import type { Installation } from "./installation_store.ts";
import type { OutcomeCode } from "./protocol.ts";

import { type ScopedItem } from "./scoped_item.ts";

export interface ContentSummary {
  instance_id: string;
  group_id: string;
  model_id: string;
  locale: string;
  slug: string;
  state: string;
  current_version_id: string | null;
  published_version_id: string | null;
  updated_at: string;
}

/** Options of {@linkcode listContent}. */
export interface ListContentOptions {
  limit: number;
  /** The last instance id of the previous page. */
  after?: string;
  model_id?: string;
  delegation?: UsableDelegation;
}

/**
 * Summaries of the instances of granted models, in id order, a page at a time. With a
 * delegation, only what that person reads now (own entries for `read:own`).
 */
export async function listContent(
  db: Db,
  installation: Installation,
  options: ListContentOptions,
): Promise<{ data: ContentSummary[]; next_cursor: string | null }> {
  let models = [...installation.modelIds];
  if (options.model_id !== undefined) {
    models = models.filter((m) => m === options.model_id);
  }
  const delegation = options.delegation;
  if (delegation) {
    models = models.filter((m) =>
      delegation.models.some((d) => d.model_id === m)
    );
  }
  if (models.length === 0) return { data: [], next_cursor: null };
  let query = db.selectFrom("entries")
    .innerJoin(
      "entry_groups",
      (join) =>
        join.onRef("entry_groups.site_id", "=", "entries.site_id")
          .onRef("entry_groups.id", "=", "entries.group_id"),
    )
    .select([
      "entries.id",
      "entries.group_id",
      "entries.model_id",
      "entries.locale",
      "entries.slug",
      "entries.current_version_id",
      "entries.published_version_id",
      "entries.updated_at",
      "entry_groups.trashed_at",
      "entry_groups.created_by",
    ])
    .where("entries.site_id", "=", installation.siteId)
    .where("entries.model_id", "in", models)
    .orderBy("entries.id").limit(options.limit + 1);
  if (options.after !== undefined) {
    query = query.where("entries.id", ">", options.after);
  }
  if (delegation?.groupId) {
    query = query.where("entries.group_id", "=", delegation.groupId);
  }
  if (delegation) {
    const own = delegation.models.filter((m) => m.access === "read:own")
      .map((m) => m.model_id);
    if (own.length > 0) {
      query = query.where((eb) =>
        eb.or([
          eb("entries.model_id", "not in", own),
          eb("entry_groups.created_by", "=", delegation.userId),
        ])
      );
    }
  }
  const rows = await query.execute();
  const page = rows.slice(0, options.limit);
  return {
    data: page.map((r) => ({
      instance_id: r.id,
      group_id: r.group_id,
      model_id: r.model_id,
      locale: r.locale,
      slug: r.slug,
      state: r.trashed_at !== null
        ? "trashed"
        : r.published_version_id !== null
        ? "published"
        : "draft",
      current_version_id: r.current_version_id,
      published_version_id: r.published_version_id,
      updated_at: new Date(r.updated_at).toISOString(),
    })),
    next_cursor: rows.length > options.limit ? page[page.length - 1].id : null,
  };
}

/** The item a read answers (spec 1 part 2.8). */
export interface ContentRead {
  instance_id: string;
  group_id: string;
  /** The instance the group was created with: what a record of the whole group points at. */
  primary_instance_id: string;
  model_id: string;
  locale: string;
  slug: string;
  state: string;
  current_version_id: string | null;
  published_version_id: string | null;
  fields: Record<string, unknown>;
  languages: {
    instance_id: string;
    locale: string;
    state: string;
    current_version_id: string | null;
    published_version_id: string | null;
  }[];
  /** With `workflow:read`: the revision, and with a delegation the transitions the person may take now. */
  workflow?: WorkflowBlock;
}

/** Reads one item in scope; a delegation narrows fields and transitions to that person now. */
export async function readContent(
  db: Db,
  installation: Installation,
  item: ScopedItem,
  delegation?: UsableDelegation,
): Promise<ContentRead> {
  const { instance, group, instances } = item;
  const version = instance.current_version_id === null
    ? undefined
    : await db.selectFrom("entry_versions").select("fields")
      .where("site_id", "=", installation.siteId)
      .where("id", "=", instance.current_version_id).executeTakeFirst();
  let fields =
    (typeof version?.fields === "string"
      ? JSON.parse(version.fields)
      : version?.fields ?? {}) as Record<string, unknown>;
  if (delegation) {
    const keys = readableFields(
      delegation.authority,
      group.model_id,
      Object.keys(fields),
    );
    fields = Object.fromEntries(keys.map((k) => [k, fields[k]]));
  }
  const published = await groupPublishedVersionId(
    db,
    installation.siteId,
    instances,
  );
  const read: ContentRead = {
    instance_id: instance.id,
    group_id: group.id,
    primary_instance_id: group.primary_entry_id ?? instances[0]?.id ??
      instance.id,
    model_id: group.model_id,
    locale: instance.locale,
    slug: instance.slug,
    state: instanceState(group, instance),
    current_version_id: group.current_version_id,
    published_version_id: published,
    fields,
    languages: instances.map((i) => ({
      instance_id: i.id,
      locale: i.locale,
      state: instanceState(group, i),
      current_version_id: i.current_version_id,
      published_version_id: i.published_version_id,
    })),
  };
  if (installation.capabilities.includes("workflow:read")) {
    if (delegation) {
      read.workflow = workflowBlock(
        delegation.authority,
        group,
        instances,
        published,
        await readReviewState(db, installation.siteId, group.id),
      );
    } else {
      read.workflow = {
        revision: group.revision,
        current_version_id: group.current_version_id,
        published_version_id: published,
        transitions: [],
        locales: Object.fromEntries(
          instances.map((i) => [i.locale, {
            current_version_id: i.current_version_id,
            published_version_id: i.published_version_id,
            transitions: [],
          }]),
        ),
      };
    }
  }
  return read;
}

/** The transition command of spec 1 part 2.7, already parsed. */
export interface TransitionCommand {
  kind: "publish" | "unpublish";
  expected_current_version_id?: string | null;
  expected_published_version_id?: string | null;
  expected_workflow_revision: number;
  delegation_id: string;
  locale?: string;
}

/** What a transition needs. */
export interface TransitionContext {
  db: Db;
  clock: Clock;
  installation: Installation;
  /** SHA-256 digest of the idempotency key, kept with the event and audit. */
  keyDigest: string;
  audit?: AuditWriter;
}

/** An applied transition's facts. */
export interface TransitionResult {
  ok: true;
  instance_id: string;
  group_id: string;
  kind: "publish" | "unpublish";
  locale: string | null;
  state: string;
  revision: number;
  current_version_id: string | null;
  published_version_id: string | null;
  languages: {
    locale: string;
    current_version_id: string | null;
    published_version_id: string | null;
  }[];
  /** Publish only: the redirect publication added (null: none; entries add none today). */
  redirect?: null;
}

const LIFECYCLE_OUTCOMES: Record<string, OutcomeCode> = {
  not_found: "content_not_found",
  unknown_locale: "locale_unavailable",
  missing_permission: "requester_unauthorized",
  locale_denied: "requester_unauthorized",
  requester_unauthorized: "requester_unauthorized",
  site_access_denied: "requester_unauthorized",
  workflow_conflict: "workflow_conflict",
  version_conflict: "scheduled_target_stale",
  transition_unavailable: "transition_unavailable",
  field_validation_failed: "transition_refused",
  audit_unavailable: "temporary_failure",
  temporary_failure: "temporary_failure",
};

/** The outcome code of a lifecycle refusal at the plugin door. */
export function outcomeOfLifecycle(code: string): OutcomeCode {
  return LIFECYCLE_OUTCOMES[code] ?? "transition_refused";
}

/**
 * Whether published language instances outside `except` (instance ids the same command
 * withdraws) link to the group: they block an unpublish. Instances, not groups, so a
 * language of a dependent left published still counts.
 */
export async function hasPublishedDependents(
  db: Db,
  siteId: string,
  groupId: string,
  except: readonly string[] = [],
): Promise<boolean> {
  let query = db.selectFrom("entry_links")
    .innerJoin(
      "entries",
      (join) =>
        join.onRef("entries.site_id", "=", "entry_links.site_id")
          .onRef("entries.group_id", "=", "entry_links.source_group_id"),
    )
    .select("entry_links.source_group_id")
    .where("entry_links.site_id", "=", siteId)
    .where("entry_links.target_group_id", "=", groupId)
    .where("entries.published_version_id", "is not", null)
    .where("entry_links.source_group_id", "<>", groupId);
  if (except.length > 0) {
    query = query.where("entries.id", "not in", except);
  }
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

/**
 * Checks a transition before the lifecycle runs it: the delegation now, the language, the
 * person's permission (`requester_unauthorized`), that the move is offered now
 * (`transition_unavailable`, before the revision), and published dependents of an
 * unpublish (`dependent_content`).
 */
export async function checkTransition(
  ctx: TransitionContext,
  item: ScopedItem,
  command: TransitionCommand,
  options: {
    /** Instance ids the same command withdraws (a release): they block nothing. */
    dependentsExcept?: readonly string[];
    /** More capabilities the delegation must allow (a release needs `workflow:release`). */
    needs?: readonly string[];
  } = {},
): Promise<{ ok: true; delegation: UsableDelegation } | PluginRefusal> {
  const { group, instances } = item;
  const delegation = await useDelegation(
    ctx.db,
    ctx.installation,
    command.delegation_id,
    group,
    [
      command.kind === "publish" ? "workflow:publish" : "workflow:unpublish",
      ...(command.locale === undefined ? [] : ["workflow:locale"]),
      ...(options.needs ?? []),
    ],
    item.delegation?.id === command.delegation_id ? item.delegation : undefined,
  );
  if (!delegation.ok) return delegation;
  if (
    command.locale !== undefined &&
    !instances.some((i) => i.locale === command.locale)
  ) {
    return pluginRefusal(
      "locale_unavailable",
      `The item has no language "${command.locale}"`,
    );
  }
  const touched = command.locale === undefined
    ? instances
    : instances.filter((i) => i.locale === command.locale);
  const permitted = decide(delegation.authority, {
    action: command.kind,
    model: group.model_id,
    owner: group.created_by,
    languages: touched.map((i) => i.locale),
  });
  if (!permitted.ok) {
    return pluginRefusal(
      "requester_unauthorized",
      `The person no longer holds the permission to ${command.kind} this item`,
    );
  }
  const published = await groupPublishedVersionId(
    ctx.db,
    ctx.installation.siteId,
    instances,
  );
  const block = workflowBlock(
    delegation.authority,
    group,
    instances,
    published,
    item.review ??
      await readReviewState(ctx.db, ctx.installation.siteId, group.id),
  );
  const offered = command.locale === undefined
    ? block.transitions
    : block.locales[command.locale]?.transitions ?? [];
  if (!offered.some((t) => t.kind === command.kind)) {
    return pluginRefusal(
      "transition_unavailable",
      `"${command.kind}" is not offered for this item now`,
    );
  }
  if (
    command.kind === "unpublish" &&
    await hasPublishedDependents(
      ctx.db,
      ctx.installation.siteId,
      group.id,
      options.dependentsExcept,
    )
  ) {
    return pluginRefusal(
      "dependent_content",
      "Published entries link to this item: unpublish them first",
    );
  }
  return { ok: true, delegation };
}

/** Runs a checked transition through the one lifecycle service, as the plugin acting for the person. */
export async function applyTransition(
  ctx: TransitionContext,
  item: ScopedItem,
  command: TransitionCommand,
  delegation: UsableDelegation,
): Promise<TransitionResult | PluginRefusal> {
  const lifecycle = {
    db: ctx.db,
    clock: ctx.clock,
    siteId: ctx.installation.siteId,
    actor: delegation.actor,
    authority: delegation.authority,
    validate: modelValidator(),
    audit: ctx.audit,
    trace: {
      idempotency_key_digest: ctx.keyDigest,
      protocol_version: String(ctx.installation.protocolVersion),
    },
  };
  let outcome: LifecycleOutcome;
  if (command.kind === "publish") {
    outcome = await publishEntry(lifecycle, {
      group_id: item.group.id,
      locale: command.locale,
      expected_current_version_id: command.expected_current_version_id ?? null,
      expected_workflow_revision: command.expected_workflow_revision,
    });
  } else {
    outcome = await unpublishEntry(lifecycle, {
      group_id: item.group.id,
      locale: command.locale,
      expected_published_version_id: command.expected_published_version_id ??
        null,
      expected_workflow_revision: command.expected_workflow_revision,
    });
  }
  if (!outcome.ok) {
    return pluginRefusal(
      outcomeOfLifecycle(outcome.code),
      `The service refused the ${command.kind}: ${outcome.code}`,
    );
  }
  return {
    ok: true,
    instance_id: item.instance.id,
    group_id: outcome.group_id,
    kind: command.kind,
    locale: command.locale ?? null,
    state: outcome.state,
    revision: outcome.revision,
    current_version_id: outcome.current_version_id,
    published_version_id: outcome.published_version_id,
    languages: outcome.instances.map((i) => ({
      locale: i.locale,
      current_version_id: i.current_version_id,
      published_version_id: i.published_version_id,
    })),
    ...(command.kind === "publish" ? { redirect: null } : {}),
  };
}
