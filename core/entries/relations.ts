// Relation links: resolves write forms against the stored list, checks targets, and writes `entry_links` rows.
import { readReach } from "../access/decide.ts";
import type { Authority } from "../access/authority.ts";
import type { Db } from "../db/database.ts";
import { isToMany, UUID } from "../models/field_types.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { ValueReference } from "../models/value_lists.ts";
import type { CommandScope } from "./command.ts";
import {
  itemId,
  type RelationField,
  resolveRelationWrite,
} from "./relation_writes.ts";
import type { LifecycleRefusal } from "./types.ts";
import type { SavedReferences } from "./media_refs.ts";

/** The top-level relation fields of a model, in order. */
export function relationFields(model: StoredModel): RelationField[] {
  return model.fields.filter((f): f is RelationField => f.type === "relation");
}

/** The language a field's links are kept under: the saved one with `localizedMembership`, else null. */
export function listLocale(
  field: RelationField,
  locale: string,
): string | null {
  return field.config.localizedMembership ? locale : null;
}

/** One stored link, in list order. */
interface LinkRow {
  target_group_id: string;
  target_model_id: string;
  position: number;
}

async function readLinks(
  db: Db,
  siteId: string,
  groupId: string,
  field: RelationField,
  locale: string | null,
): Promise<LinkRow[]> {
  let query = db.selectFrom("entry_links")
    .select(["target_group_id", "target_model_id", "position"])
    .where("site_id", "=", siteId).where("source_group_id", "=", groupId)
    .where("field_id", "=", field.id!);
  query = locale === null
    ? query.where("locale", "is", null)
    : query.where("locale", "=", locale);
  return await query.orderBy("position").execute();
}

function storedItems(field: RelationField, links: readonly LinkRow[]) {
  return links.map((l) =>
    field.config.targets.length === 1
      ? l.target_group_id
      : { model: l.target_model_id, id: l.target_group_id }
  );
}

/** What a save writes, for resolving and checking its relation values. */
export interface RelationSave {
  siteId: string;
  model: StoredModel;
  /** The saved group; null while creating it. */
  groupId: string | null;
  locale: string;
  fields: Record<string, unknown>;
}

/**
 * Resolves every relation write form in `fields` against the lists stored now and answers
 * the values to store (plain lists, or one target on a to-one field). Refusals come from
 * {@linkcode resolveRelationWrite}.
 */
export async function resolveRelationWrites(
  db: Db,
  save: RelationSave,
): Promise<{ ok: true; fields: Record<string, unknown> } | LifecycleRefusal> {
  const fields = { ...save.fields };
  for (const field of relationFields(save.model)) {
    if (!(field.key in fields)) continue;
    const locale = listLocale(field, save.locale);
    const base = save.groupId === null ? [] : storedItems(
      field,
      await readLinks(db, save.siteId, save.groupId, field, locale),
    );
    const resolved = resolveRelationWrite({
      field,
      base,
      value: fields[field.key],
      locale: save.locale,
      listLocale: locale,
    });
    if (!resolved.ok) return resolved;
    fields[field.key] = resolved.value;
  }
  return { ok: true, fields };
}

interface Target {
  id: string;
  model_id: string;
  created_by: string | null;
  trashed_at: Date | null;
}

async function readTargets(
  db: Db,
  siteId: string,
  ids: readonly string[],
): Promise<Map<string, Target>> {
  const valid = [...new Set(ids.filter((id) => UUID.test(id)))];
  if (valid.length === 0) return new Map();
  const rows = await db.selectFrom("entry_groups")
    .select(["id", "model_id", "created_by", "trashed_at"])
    .where("site_id", "=", siteId).where("id", "in", valid).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

function readable(authority: Authority, target: Target): boolean {
  const reach = readReach(authority, target.model_id);
  return reach === "all" ||
    (reach === "own" && target.created_by === authority.personId);
}

interface Wanted {
  id: string;
  model: string | null;
}

function wantedItems(field: RelationField, value: unknown): Wanted[] {
  if (value === undefined || value === null) return [];
  const list = isToMany(field.config.cardinality) && Array.isArray(value)
    ? value
    : [value];
  return list.map((item) => {
    const id = itemId(item) ?? String(item);
    const model = typeof item === "object" && item !== null
      ? (item as { model?: unknown }).model
      : undefined;
    return {
      id,
      model: typeof model === "string" ? model.toLowerCase() : null,
    };
  });
}

/**
 * The ids of `wanted` a writer may not choose: not on the site, of a model the field does not
 * accept (or another than the one named), unreadable to the writer, or in Trash while not
 * already linked (`kept`).
 */
function refusedTargets(
  authority: Authority,
  accepted: readonly string[],
  wanted: readonly Wanted[],
  targets: Map<string, Target>,
  kept: ReadonlySet<string>,
): string[] {
  return wanted.filter(({ id, model }) => {
    const target = targets.get(id);
    return !target || !accepted.includes(target.model_id) ||
      (model !== null && model !== target.model_id) ||
      !readable(authority, target) ||
      (target.trashed_at !== null && !kept.has(id));
  }).map((w) => w.id);
}

/** What {@linkcode writeRelationLinks} needs beyond {@linkcode RelationSave}. */
export interface LinkWrite extends RelationSave {
  groupId: string;
  /**
   * The references of the version written and of the one before, inspected once by the save
   * for every rule (core/entries/rules.ts).
   */
  references: Pick<SavedReferences, "previous" | "written">;
}

/**
 * Checks the saved relation values and replaces the group's links with them, inside the
 * save's transaction. A top-level field's links are replaced when the value is present, or
 * always when the field keeps its list per language; relation fields inside components are
 * checked but keep no links. Refusals: `relation_target_not_found` (422, naming the ids),
 * `relation_target_taken` (409, naming the ids and the holder, for one-to-one and
 * one-to-many fields; decided by a unique index so concurrent saves cannot both win).
 */
export async function writeRelationLinks(
  scope: CommandScope,
  write: LinkWrite,
): Promise<LifecycleRefusal | null> {
  const { tx, authority } = scope;
  for (const field of relationFields(write.model)) {
    const locale = listLocale(field, write.locale);
    if (locale === null && !(field.key in write.fields)) continue;
    const wanted = wantedItems(field, write.fields[field.key]);
    const links = await readLinks(
      tx,
      write.siteId,
      write.groupId,
      field,
      locale,
    );
    const kept = new Set(links.map((l) => l.target_group_id));
    const targets = await readTargets(
      tx,
      write.siteId,
      wanted.map((w) => w.id),
    );
    const refused = refusedTargets(
      authority,
      field.config.targets,
      wanted,
      targets,
      kept,
    );
    if (refused.length > 0) {
      return {
        ok: false,
        code: "relation_target_not_found",
        relation: { field: field.key, locale, ids: refused },
      };
    }
    const taken = await replaceLinks(
      scope,
      write,
      field,
      locale,
      wanted,
      targets,
    );
    if (taken) return taken;
  }
  return await checkNestedReferences(scope, write);
}

async function replaceLinks(
  scope: CommandScope,
  write: LinkWrite,
  field: RelationField,
  locale: string | null,
  wanted: readonly Wanted[],
  targets: Map<string, Target>,
): Promise<LifecycleRefusal | null> {
  const { tx } = scope;
  const cardinality = field.config.cardinality;
  const exclusive = cardinality === "one-to-one" ||
    cardinality === "one-to-many";
  let remove = tx.deleteFrom("entry_links")
    .where("site_id", "=", write.siteId)
    .where("source_group_id", "=", write.groupId)
    .where("field_id", "=", field.id!);
  remove = locale === null
    ? remove.where("locale", "is", null)
    : remove.where("locale", "=", locale);
  await remove.execute();
  if (wanted.length === 0) return null;
  const inserted = await tx.insertInto("entry_links").values(
    wanted.map((w, position) => ({
      site_id: write.siteId,
      source_group_id: write.groupId,
      field_id: field.id!,
      field_key: field.key,
      locale,
      target_group_id: w.id,
      target_model_id: targets.get(w.id)!.model_id,
      position,
      exclusive,
      created_at: scope.now,
    })),
  ).onConflict((oc) => oc.doNothing()).returning("target_group_id").execute();
  if (inserted.length === wanted.length) return null;
  const written = new Set(inserted.map((r) => r.target_group_id));
  const ids = wanted.map((w) => w.id).filter((id) => !written.has(id));
  let holders = tx.selectFrom("entry_links").select("source_group_id")
    .where("site_id", "=", write.siteId).where("field_id", "=", field.id!)
    .where("target_group_id", "in", ids).where("exclusive", "=", true);
  holders = locale === null
    ? holders.where("locale", "is", null)
    : holders.where("locale", "=", locale);
  const holder = await holders.executeTakeFirst();
  return {
    ok: false,
    code: "relation_target_taken",
    relation: { field: field.key, locale, ids },
    ...(holder ? { existing: { group_id: holder.source_group_id } } : {}),
  };
}

function nestedRelationRefs(
  model: StoredModel,
  references: readonly ValueReference[],
) {
  const top = new Set(relationFields(model).map((f) => f.key));
  return references.flatMap((ref) =>
    ref.kind === "relation" && !top.has(ref.path) ? [ref] : []
  );
}

/** Relation values inside components: the same target checks, without links. */
async function checkNestedReferences(
  scope: CommandScope,
  write: LinkWrite,
): Promise<LifecycleRefusal | null> {
  const refs = nestedRelationRefs(write.model, write.references.written);
  if (refs.length === 0) return null;
  const before = new Set(
    nestedRelationRefs(write.model, write.references.previous)
      .flatMap((r) => r.refs.map((x) => x.id)),
  );
  const targets = await readTargets(
    scope.tx,
    write.siteId,
    refs.flatMap((r) => r.refs.map((x) => x.id)),
  );
  for (const ref of refs) {
    const refused = refusedTargets(
      scope.authority,
      ref.refs.map((r) => r.model),
      ref.refs,
      targets,
      before,
    );
    if (refused.length > 0) {
      return {
        ok: false,
        code: "relation_target_not_found",
        relation: { field: ref.path, locale: null, ids: refused },
      };
    }
  }
  return null;
}
