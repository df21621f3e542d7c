// Changes which entries link to one entry through one relation field: one command, a new version per changed source.
import { readReach } from "../access/decide.ts";
import type { Authority } from "../access/authority.ts";
import type { Db } from "../db/database.ts";
import { runCommand } from "./command.ts";
import { publicationChanged } from "./publication_hook.ts";
import type { RelationField } from "./relation_writes.ts";
import { listLocale, relationFields } from "./relations.ts";
import { loadRuleModel } from "./rules.ts";
import { saveInScope } from "./save.ts";
import {
  type GroupRow,
  isId,
  readGroup,
  readInstances,
  readResult,
} from "./store.ts";
import type { LifecycleContext, LifecycleRefusal } from "./types.ts";
import { GROUP_COLUMNS, qualified } from "../db/row_columns.ts";

/** Most source entries one related-from write may name in `set` or `expected_ids`. */
export const RELATED_FROM_WRITE_LIMIT = 100;

/** A related-from write: after it, exactly the readable `set` links to the entry. */
export interface RelatedFromWriteOptions {
  /** The entry (group) the links point to. */
  group_id: string;
  /** The model of the linking (source) entries. */
  model_id: string;
  /** The source model's top-level relation field. */
  field: string;
  /**
   * The language whose version each changed source gets, and the list's language when the
   * field keeps one list per language (then required). Absent: each source's primary
   * language (its first language when it has none).
   */
  locale?: string;
  /** The sources that must link to the entry afterwards; the order of new links is this order. */
  set: readonly string[];
  /**
   * The pin: the readable sources linking now through this field and list, as
   * `GET /entries/{id}/related-from` answered them (any order). Another list is
   * `relation_changed_concurrently` with `current_ids`.
   */
  expected_ids: readonly string[];
}

/** One source the write changed: its new version in `locale`. */
export interface RelatedFromChange {
  group_id: string;
  locale: string;
  version_id: string;
  change: "connect" | "disconnect";
}

/** What a related-from write answers. */
export interface RelatedFromWritten {
  ok: true;
  group_id: string;
  model_id: string;
  field: string;
  /** The list's language: null unless the field keeps one list per language. */
  locale: string | null;
  /** The readable sources linking now, as sent in `set`. */
  ids: string[];
  /** Linking sources the writer cannot read; never changed. */
  hidden: number;
  /** Sources given a new version, disconnections first. */
  written: RelatedFromChange[];
}

/** What is wrong with the options, by option name. */
export interface RelatedFromProblem {
  path: string;
  message: string;
}

/** A refusal of a related-from write; nothing was written. */
export type RelatedFromWriteRefusal =
  | LifecycleRefusal
  | { ok: false; code: "field_not_found"; fields: string[] }
  | { ok: false; code: "invalid_request"; problems: RelatedFromProblem[] }
  | { ok: false; code: "relation_changed_concurrently"; current_ids: string[] }
  /** A source in `set` that is not a readable entry of the model, or lacks `locale`. */
  | { ok: false; code: "not_found"; ids: string[] };

function canRead(authority: Authority, group: GroupRow): boolean {
  const reach = readReach(authority, group.model_id);
  return reach === "all" ||
    (reach === "own" && group.created_by === authority.personId);
}

function normalized(ids: readonly string[]): string[] {
  return ids.map((id) => id.toLowerCase());
}

function twice(ids: readonly string[]): string[] {
  return [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
}

async function linkingSources(
  db: Db,
  siteId: string,
  targetId: string,
  field: RelationField,
  locale: string | null,
): Promise<GroupRow[]> {
  let query = db.selectFrom("entry_links")
    .innerJoin(
      "entry_groups",
      (join) =>
        join.onRef("entry_groups.site_id", "=", "entry_links.site_id")
          .onRef("entry_groups.id", "=", "entry_links.source_group_id"),
    )
    .select(qualified("entry_groups", GROUP_COLUMNS))
    .where("entry_links.site_id", "=", siteId)
    .where("entry_links.target_group_id", "=", targetId)
    .where("entry_links.field_id", "=", field.id!);
  query = locale === null
    ? query.where("entry_links.locale", "is", null)
    : query.where("entry_links.locale", "=", locale);
  return await query.execute();
}

function checkInput(
  options: RelatedFromWriteOptions,
  field: RelationField,
): RelatedFromWriteRefusal | null {
  const problems: RelatedFromProblem[] = [];
  for (const key of ["set", "expected_ids"] as const) {
    if (options[key].length > RELATED_FROM_WRITE_LIMIT) {
      problems.push({
        path: key,
        message: `At most ${RELATED_FROM_WRITE_LIMIT} entries`,
      });
    }
  }
  if (field.config.localizedMembership && options.locale === undefined) {
    problems.push({
      path: "locale",
      message:
        `Field "${field.key}" keeps one list per language: name the language`,
    });
  }
  if (problems.length > 0) {
    return { ok: false, code: "invalid_request", problems };
  }
  const repeated = twice(normalized(options.set));
  if (repeated.length > 0) {
    return {
      ok: false,
      code: "relation_duplicate_target",
      relation: {
        field: field.key,
        locale: listLocale(field, options.locale ?? ""),
        ids: repeated,
      },
    };
  }
  return null;
}

/**
 * Makes exactly the readable sources in `set` link to the entry through the source model's
 * relation field (ENT-016, spec 2 route `PUT /entries/{id}/related-from`), in ONE command:
 * each source that gains or loses the link gets a new version of one language (the
 * ordinary save: permission, hidden fields, validation, the relation and unique rules),
 * its workflow event and audit entry (`entry.save` with `related_from` details), and any
 * refusal rolls every source back. Disconnections run before connections so an exclusive
 * (one-to-one, one-to-many) link can move. Connected targets go to the end of a list; on a
 * to-one field the source's previous target is replaced. Sources the writer cannot read
 * are neither named nor changed (`hidden`). Pinned to `expected_ids`.
 */
export async function writeRelatedFrom(
  ctx: LifecycleContext,
  options: RelatedFromWriteOptions,
): Promise<RelatedFromWritten | RelatedFromWriteRefusal> {
  const model = await loadRuleModel(ctx.db, ctx.siteId, options.model_id);
  if (!model) return { ok: false, code: "not_found" };
  const field = relationFields(model).find((f) => f.key === options.field);
  if (!field) {
    return { ok: false, code: "field_not_found", fields: [options.field] };
  }
  const invalid = checkInput(options, field);
  if (invalid) return invalid;
  const list = options.locale === undefined
    ? null
    : listLocale(field, options.locale);
  const set = normalized(options.set);
  const expected = new Set(normalized(options.expected_ids));
  // A refusal the runner's type cannot carry; the runner sees a not_found and rolls back.
  const stopped: { refusal?: RelatedFromWriteRefusal } = {};
  let hidden = 0;
  const written: RelatedFromChange[] = [];
  const outcome = await runCommand(ctx, async (scope) => {
    const { tx, authority } = scope;
    const refuse = (refusal: RelatedFromWriteRefusal): LifecycleRefusal => {
      stopped.refusal = refusal;
      return { ok: false, code: "not_found" };
    };
    const target = await readGroup(tx, ctx.siteId, options.group_id, {
      lock: true,
    });
    if (!target || !canRead(authority, target)) {
      return { ok: false, code: "not_found" };
    }
    // Lock every source the write may touch, in one order, before reading the links.
    const touched = [...new Set([...expected, ...set])].filter(isId).sort();
    const sources = new Map<string, GroupRow>();
    for (const id of touched) {
      const group = await readGroup(tx, ctx.siteId, id, { lock: true });
      if (group) sources.set(id, group);
    }
    const linking = await linkingSources(
      tx,
      ctx.siteId,
      target.id,
      field,
      list,
    );
    const readable = linking.filter((g) => canRead(authority, g));
    hidden = new Set(linking.map((g) => g.id)).size -
      new Set(readable.map((g) => g.id)).size;
    const current = [...new Set(readable.map((g) => g.id))].sort();
    if (
      current.length !== expected.size ||
      current.some((id) => !expected.has(id))
    ) {
      return refuse({
        ok: false,
        code: "relation_changed_concurrently",
        current_ids: current,
      });
    }
    const wanted = new Set(set);
    const removals = current.filter((id) => !wanted.has(id));
    const additions = set.filter((id) => !current.includes(id));
    const plan: { group: GroupRow; change: "connect" | "disconnect" }[] = [];
    const missing: string[] = [];
    for (const id of removals) {
      plan.push({ group: sources.get(id)!, change: "disconnect" });
    }
    for (const id of additions) {
      const group = sources.get(id);
      if (
        !group || group.model_id !== model.id || !canRead(authority, group)
      ) {
        missing.push(id);
      } else plan.push({ group, change: "connect" });
    }
    if (missing.length > 0) {
      return refuse({ ok: false, code: "not_found", ids: missing });
    }
    const item = field.config.targets.length === 1
      ? target.id
      : { model: target.model_id, id: target.id };
    for (const { group, change } of plan) {
      const instances = await readInstances(tx, ctx.siteId, group.id);
      const instance = options.locale === undefined
        ? instances.find((i) => i.id === group.primary_entry_id) ??
          instances[0]
        : instances.find((i) => i.locale === options.locale);
      if (!instance) {
        return refuse({ ok: false, code: "not_found", ids: [group.id] });
      }
      const values = instance.current_version_id === null
        ? {}
        : (await tx.selectFrom("entry_versions").select("fields")
          .where("site_id", "=", ctx.siteId)
          .where("id", "=", instance.current_version_id)
          .executeTakeFirstOrThrow()).fields as Record<string, unknown>;
      const saved = await saveInScope(scope, {
        ctx,
        group_id: group.id,
        locale: instance.locale,
        fields: { ...values, [field.key]: { [change]: [item] } },
        expected_current_version_id: instance.current_version_id,
        auditDetails: {
          related_from: { target_group_id: target.id, field: field.key },
        },
      });
      if (!saved.ok) return saved;
      // The command runner refreshes the projections of the group it answers (the target);
      // each changed source is refreshed here, in the same transaction.
      await publicationChanged(tx, ctx.siteId, group.id);
      const version = saved.instances.find((i) => i.locale === instance.locale)!
        .current_version_id!;
      written.push({
        group_id: group.id,
        locale: instance.locale,
        version_id: version,
        change,
      });
    }
    return await readResult(tx, ctx.siteId, target.id);
  });
  if (stopped.refusal) return stopped.refusal;
  if (!outcome.ok) return outcome;
  return {
    ok: true,
    group_id: outcome.group_id,
    model_id: model.id,
    field: field.key,
    locale: list,
    ids: set,
    hidden,
    written,
  };
}
