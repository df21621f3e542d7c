// The one lifecycle service: save, publish, unpublish, trash and restore, each pinned, permitted, audited, atomic.
import type { ValueProblem } from "../models/validate_values.ts";
import {
  type CommandScope,
  type EventInput,
  type EventRow,
  runCommand,
} from "./command.ts";
import {
  groupPublishedVersionId,
  type GroupRow,
  hasUnpublishedChange,
  type InstanceRow,
  instanceState,
  readResult,
} from "./store.ts";
import { readReviewState, reviewBlocksPublish } from "./review_state.ts";
import { auditTarget, bumpRevision, loadTargets, permit } from "./targets.ts";
import type { LifecycleContext, LifecycleOutcome } from "./types.ts";
import {
  applyPendingAddress,
  type PendingAddress,
  pendingAddresses,
} from "../pages/pending_address.ts";
import { type RawBuilder, sql } from "kysely";
import { heldMark } from "../db/prepared_queries.ts";
import {
  keepModelRead,
  modelJsonOf,
  modelJsonWanted,
} from "../models/store_rows.ts";
import { itemsOf, prebuilt, prebuiltShapes, rowsOf } from "../db/prebuilt.ts";
import { EVENT_COLUMNS } from "../db/row_columns.ts";

export { saveEntry, type SaveEntryOptions } from "./save.ts";
export { restoreEntry, trashEntry, type TrashOptions } from "./trash.ts";

/** A publish, pinned to what the caller read (spec 1 part 2.7). */
export interface PublishOptions {
  group_id: string;
  /** One language; absent publishes every language of the group. */
  locale?: string;
  /** The version the caller saw as current: the language's, or the group's without `locale`. */
  expected_current_version_id: string | null;
  expected_workflow_revision: number;
}

/** An unpublish, pinned to what the caller read (spec 1 part 2.7). */
export interface UnpublishOptions {
  group_id: string;
  /** One language; absent unpublishes every language of the group. */
  locale?: string;
  /** The published version the caller saw: the language's, or the group's newest without `locale`. */
  expected_published_version_id: string | null;
  expected_workflow_revision: number;
}

/**
 * What a publish reads before it writes, in one statement: the values of each language it
 * publishes (for the checks), the numbers of every version published after it when more than
 * one could be newest (for the group's publication pointer in the answer), and the pending page
 * addresses of the languages it publishes.
 */
async function publishReads(
  ctx: LifecycleContext,
  scope: CommandScope,
  group: GroupRow,
  changing: readonly InstanceRow[],
  publishedAfter: readonly string[],
): Promise<{
  versions: Map<string, { number: number; fields: unknown }>;
  addresses: Map<string, PendingAddress>;
}> {
  const ids = new Set(changing.map((i) => i.current_version_id!));
  if (publishedAfter.length > 1) {
    for (const id of publishedAfter) ids.add(id);
  }
  const entryIds = changing.map((i) => i.id);
  // The model the checks validate against rides along too (read once per transaction).
  const modelId = group.model_id;
  const model = !!ctx.validate &&
    modelJsonWanted(scope.tx, ctx.siteId, modelId);
  const rows = await publishReadsOf({
    model,
    versions: ids.size,
    entries: entryIds.length,
  }).rows(scope.tx, {
    siteId: ctx.siteId,
    modelId,
    ids: [...ids],
    entryIds,
  });
  const versions = new Map(rows.map((r) => [r.id, r]));
  if (rows.length === 0) {
    return {
      versions,
      addresses: await pendingAddresses(scope.tx, ctx.siteId, entryIds),
    };
  }
  if (ctx.validate) {
    keepModelRead(scope.tx, ctx.siteId, modelId, rows[0].model);
  }
  const pending = typeof rows[0].pending === "string"
    ? JSON.parse(rows[0].pending) as PendingAddress[]
    : rows[0].pending;
  return {
    versions,
    addresses: new Map(pending.map((p) => [p.entry_id, p])),
  };
}

async function publishProblems(
  ctx: LifecycleContext,
  scope: CommandScope,
  group: GroupRow,
  targets: readonly InstanceRow[],
  versions: ReadonlyMap<string, { fields: unknown }>,
): Promise<ValueProblem[]> {
  if (!ctx.validate) return [];
  const problems: ValueProblem[] = [];
  for (const instance of targets) {
    const version = versions.get(instance.current_version_id!);
    if (!version) {
      throw new Error(
        `Version "${instance.current_version_id}" of entry "${instance.id}" is missing`,
      );
    }
    const values = version.fields as Record<string, unknown>;
    const found = await ctx.validate({
      db: scope.tx,
      siteId: ctx.siteId,
      modelId: group.model_id,
      values,
      mode: "publish",
      locale: instance.locale,
    });
    problems.push(...found.map((p) => ({ ...p, locale: instance.locale })));
  }
  return problems;
}

/**
 * Points each language at its current version as published, writes the workflow events and
 * bumps the group's revision, in one statement: {@linkcode bumpRevision}'s conditional update
 * with the languages' update and the events' insert beside it. Nothing reads its answer, so
 * it is held back to go with the command's next statement (the audit entry and the projections'
 * first read), one round trip fewer.
 */
async function publishAndBump(
  scope: CommandScope,
  group: GroupRow,
  changing: readonly InstanceRow[],
  events: readonly EventInput[],
): Promise<void> {
  await publishAndBumpOf({
    events: events.length,
    changing: changing.length,
  }).rows(scope.tx, {
    siteId: group.site_id,
    groupId: group.id,
    revision: group.revision,
    nextRevision: group.revision + 1,
    now: scope.now,
    entryIds: changing.map((i) => i.id),
    versionIds: changing.map((i) => i.current_version_id!),
    events: scope.eventRows(events),
  });
}

/** The newest of the published versions (numbers are counted across the group), or null. */
function newestPublished(
  ids: readonly string[],
  versions: ReadonlyMap<string, { number: number }>,
): string | null {
  let best: string | null = null;
  for (const id of ids) {
    if (
      best === null || versions.get(id)!.number > versions.get(best)!.number
    ) best = id;
  }
  return best;
}

/**
 * Publishes the current version of one language, or of every language with an
 * unpublished change. Refusals: `not_found`, `missing_permission`/`locale_denied`,
 * `workflow_conflict`, `version_conflict`, `transition_unavailable` (trashed, or nothing
 * new to publish), `field_validation_failed` (the exact snapshot, every problem by path).
 */
export function publishEntry(
  ctx: LifecycleContext,
  options: PublishOptions,
): Promise<LifecycleOutcome> {
  return runCommand(ctx, (scope) => publishInScope(ctx, scope, options));
}

/** The body of {@linkcode publishEntry} inside a running command (a release runs several in one). */
export async function publishInScope(
  ctx: LifecycleContext,
  scope: CommandScope,
  options: PublishOptions,
): Promise<LifecycleOutcome> {
  const loaded = await loadTargets(
    scope,
    ctx.siteId,
    options.group_id,
    options.locale,
    { review: true },
  );
  if ("ok" in loaded) return loaded;
  const { group, instances, targets } = loaded;
  const changing = targets.filter(hasUnpublishedChange);
  const denied = permit(
    scope,
    group,
    "publish",
    changing.length ? changing : targets,
  );
  if (denied) return denied;
  if (group.revision !== options.expected_workflow_revision) {
    return { ok: false, code: "workflow_conflict" };
  }
  const current = options.locale === undefined
    ? group.current_version_id
    : targets[0].current_version_id;
  if (current !== options.expected_current_version_id) {
    return { ok: false, code: "version_conflict" };
  }
  if (group.trashed_at !== null || changing.length === 0) {
    return { ok: false, code: "transition_unavailable" };
  }
  // A site that requires review publishes only an approved draft.
  if (
    reviewBlocksPublish(
      loaded.review ??
        await readReviewState(scope.tx, ctx.siteId, group.id),
    )
  ) {
    return { ok: false, code: "transition_unavailable" };
  }
  const after = instances.map((i) =>
    changing.includes(i)
      ? { ...i, published_version_id: i.current_version_id }
      : i
  );
  const publishedAfter = after.flatMap((i) => i.published_version_id ?? []);
  const { versions, addresses } = await publishReads(
    ctx,
    scope,
    group,
    changing,
    publishedAfter,
  );
  const problems = await publishProblems(
    ctx,
    scope,
    group,
    changing,
    versions,
  );
  if (problems.length > 0) {
    return { ok: false, code: "field_validation_failed", errors: problems };
  }
  if ([...addresses.values()].some((a) => a.address === null)) {
    return { ok: false, code: "page_address_required" };
  }
  const moved: { locale: string; from: string; to: string }[] = [];
  const events: EventInput[] = [];
  const slugs = new Map<string, string>();
  for (const instance of changing) {
    const pending = addresses.get(instance.id);
    if (pending?.address) {
      slugs.set(instance.id, pending.address);
      const move = await applyPendingAddress(
        scope,
        ctx.siteId,
        group,
        instance,
        {
          ...pending,
          address: pending.address,
        },
      );
      moved.push({ locale: instance.locale, ...move });
    }
    events.push({
      groupId: group.id,
      entryId: instance.id,
      locale: instance.locale,
      kind: "publish",
      from: instanceState(group, instance),
      to: "published",
      versionId: instance.current_version_id,
      previousVersionId: instance.published_version_id,
    });
  }
  await publishAndBump(scope, group, changing, events);
  await scope.record(events, {
    action: "entry.publish",
    target: auditTarget(group, options.locale),
    details: {
      revision: group.revision + 1,
      published: changing.map((i) => ({
        locale: i.locale,
        version_id: i.current_version_id,
      })),
      ...(moved.length ? { addresses: moved } : {}),
    },
  }, { eventsWritten: true });
  scope.wrote(group.id, {
    model_id: group.model_id,
    revision: group.revision + 1,
    trashed_at: null,
    updated_at: scope.now,
  });
  // The answer from what this command wrote under the group's lock, not read back.
  return {
    ok: true,
    group_id: group.id,
    model_id: group.model_id,
    state: "published",
    revision: group.revision + 1,
    current_version_id: group.current_version_id,
    published_version_id: newestPublished(publishedAfter, versions),
    instances: after.map((i) => ({
      entry_id: i.id,
      locale: i.locale,
      slug: slugs.get(i.id) ?? i.slug,
      current_version_id: i.current_version_id,
      published_version_id: i.published_version_id,
      published_at: changing.some((c) => c.id === i.id)
        ? scope.now
        : i.published_at,
    })),
  };
}

/**
 * Takes one language, or every published language, out of publication. Refusals:
 * `not_found`, `missing_permission`/`locale_denied`, `workflow_conflict`,
 * `version_conflict`, `transition_unavailable` (trashed, or nothing published).
 */
export function unpublishEntry(
  ctx: LifecycleContext,
  options: UnpublishOptions,
): Promise<LifecycleOutcome> {
  return runCommand(ctx, (scope) => unpublishInScope(ctx, scope, options));
}

/** The body of {@linkcode unpublishEntry} inside a running command (a release runs several in one). */
export async function unpublishInScope(
  ctx: LifecycleContext,
  scope: CommandScope,
  options: UnpublishOptions,
): Promise<LifecycleOutcome> {
  const loaded = await loadTargets(
    scope,
    ctx.siteId,
    options.group_id,
    options.locale,
  );
  if ("ok" in loaded) return loaded;
  const { group, instances, targets } = loaded;
  const live = targets.filter((i) => i.published_version_id !== null);
  const denied = permit(
    scope,
    group,
    "unpublish",
    live.length ? live : targets,
  );
  if (denied) return denied;
  if (group.revision !== options.expected_workflow_revision) {
    return { ok: false, code: "workflow_conflict" };
  }
  const published = options.locale === undefined
    ? await groupPublishedVersionId(scope.tx, ctx.siteId, instances)
    : targets[0].published_version_id;
  if (published !== options.expected_published_version_id) {
    return { ok: false, code: "version_conflict" };
  }
  if (group.trashed_at !== null || live.length === 0) {
    return { ok: false, code: "transition_unavailable" };
  }
  const events: EventInput[] = [];
  for (const instance of live) {
    await scope.tx.updateTable("entries")
      .set({
        published_version_id: null,
        published_at: null,
        updated_at: scope.now,
      })
      .where("site_id", "=", ctx.siteId).where("id", "=", instance.id)
      .execute();
    events.push({
      groupId: group.id,
      entryId: instance.id,
      locale: instance.locale,
      kind: "unpublish",
      from: "published",
      to: "draft",
      versionId: null,
      previousVersionId: instance.published_version_id,
    });
  }
  await bumpRevision(scope, group);
  await scope.record(events, {
    action: "entry.unpublish",
    target: auditTarget(group, options.locale),
    details: {
      revision: group.revision + 1,
      unpublished: live.map((i) => i.locale),
    },
  });
  return await readResult(scope.tx, ctx.siteId, group.id);
}

/**
 * {@linkcode publishReads}'s statement, by whether it reads the model and how many versions and
 * entries it reads. Each id is a value of its own: with the ids as one array PostgreSQL could not
 * tell how many rows a run reads when it planned the statement for every run, guessed more than
 * one publish reads, and planned it again on every run.
 */
const publishReadsOf = prebuiltShapes(
  (shape: { model: boolean; versions: number; entries: number }) =>
    prebuilt((
      db,
      v: { siteId: string; modelId: string; ids: string[]; entryIds: string[] },
    ) =>
      db.selectFrom("entry_versions")
        .select(["id", "number", "fields"])
        .select(
          (shape.model ? modelJsonOf(v.siteId, v.modelId) : sql`null`).as(
            "model",
          ),
        )
        .select(
          sql<
            PendingAddress[] | string
          >`(select coalesce(json_agg(json_build_object(
          'entry_id', p.entry_id, 'version_id', p.version_id, 'address', p.address)), '[]'::json)
          from page_pending_addresses p
          where p.site_id = ${v.siteId} and ${
            oneOf(sql.ref("p.entry_id"), itemsOf(v.entryIds, shape.entries))
          })`
            .as("pending"),
        )
        .where("site_id", "=", v.siteId)
        .where(oneOf(sql.ref("id"), itemsOf(v.ids, shape.versions)))
    ),
  {
    key: ({ model, versions, entries }) => `${model} ${versions} ${entries}`,
  },
);

/** `column in (…values)` as uuids; false for no value. */
function oneOf(
  column: RawBuilder<unknown>,
  values: readonly string[],
): RawBuilder<boolean> {
  return values.length === 0
    ? sql<boolean>`false`
    : sql<boolean>`${column} in (${
      sql.join(values.map((value) => sql`${value}::uuid`))
    })`;
}

/**
 * {@linkcode publishAndBump}'s statement, by how many workflow events it writes and how many
 * languages it publishes (each pair of ids a row of values of its own, as in
 * {@linkcode publishReadsOf}).
 */
const publishAndBumpOf = prebuiltShapes((
  shape: { events: number; changing: number },
) =>
  prebuilt((db, v: {
    siteId: string;
    groupId: string;
    revision: number;
    nextRevision: number;
    now: Date;
    entryIds: string[];
    versionIds: string[];
    events: EventRow[];
  }) =>
    // The row lock makes a bump of no row unreachable; if the lock is ever lost, the cast of
    // the message fails the statement (and so the command) with it.
    sql`
    with published as (
      update entries as e
      set published_version_id = c.version_id, published_at = ${v.now}::timestamptz,
        updated_at = ${v.now}::timestamptz
      from ${
      publishedPairs(v.entryIds, v.versionIds, shape.changing)
    } as c(id, version_id)
      where e.site_id = ${v.siteId} and e.id = c.id
    ), events as (
      ${
      db.insertInto("workflow_events").values(
        rowsOf(v.events, shape.events, EVENT_COLUMNS),
      )
    }
    ), bumped as (
      update entry_groups set revision = ${v.nextRevision},
        updated_at = ${v.now}::timestamptz
      where site_id = ${v.siteId} and id = ${v.groupId} and revision = ${v.revision}
      returning id
    )
    select coalesce((select id::text from bumped), 'group moved under a lock')::uuid${
      sql.raw(heldMark("publish"))
    }`
  ), {
  key: ({ events, changing }) => `${events} ${changing}`,
});

/** `(values (entry, version), …)`, each id a value of its own; no row for none. */
function publishedPairs(
  entryIds: readonly string[],
  versionIds: readonly string[],
  count: number,
): RawBuilder<unknown> {
  if (count === 0) return sql`(select null::uuid, null::uuid where false)`;
  const entries = itemsOf(entryIds, count);
  const versions = itemsOf(versionIds, count);
  return sql`(values ${
    sql.join(entries.map((id, i) => sql`(${id}::uuid, ${versions[i]}::uuid)`))
  })`;
}
