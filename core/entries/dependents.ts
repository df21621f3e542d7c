// "Who links here": the groups whose relation links target an entry, for dependents and related-from reads.
import {
  type Authority,
  type AuthorityRefusalCode,
  loadAuthority,
} from "../access/authority.ts";
import { readReach } from "../access/decide.ts";
import type { Db } from "../db/database.ts";
import { readGroup } from "./store.ts";
import type { LifecycleContext } from "./types.ts";

/** One group that links to the entry, with the fields (and languages) holding the link. */
export interface Dependent {
  group_id: string;
  model_id: string;
  trashed: boolean;
  fields: { key: string; locale: string | null }[];
}

/** Linking items of one source model and field, in the order they were written. */
export interface RelatedFrom {
  model_id: string;
  field: string;
  locale: string | null;
  group_ids: string[];
}

/** A read refusal: the entry is not on the site or not readable (`not_found`), or no authority. */
export interface ReadRefusal {
  ok: false;
  code: "not_found" | AuthorityRefusalCode;
}

/** The answer of {@linkcode listDependents}; `hidden` counts linking groups the reader cannot read. */
export type DependentsResult =
  | { ok: true; group_id: string; dependents: Dependent[]; hidden: number }
  | ReadRefusal;

/** The answer of {@linkcode listRelatedFrom}. */
export type RelatedFromResult =
  | { ok: true; group_id: string; related_from: RelatedFrom[]; hidden: number }
  | ReadRefusal;

/** Options of the reads. */
export interface DependentsOptions {
  group_id: string;
}

interface Source {
  source_group_id: string;
  model_id: string;
  created_by: string | null;
  trashed_at: Date | null;
  field_key: string;
  locale: string | null;
}

function canRead(
  authority: Authority,
  group: { model_id: string; created_by: string | null },
) {
  const reach = readReach(authority, group.model_id);
  return reach === "all" ||
    (reach === "own" && group.created_by === authority.personId);
}

async function readSources(
  ctx: LifecycleContext,
  groupId: string,
): Promise<{ ok: true; sources: Source[]; hidden: number } | ReadRefusal> {
  const loaded = await loadAuthority(ctx.db, {
    siteId: ctx.siteId,
    actor: ctx.actor,
  });
  if (!loaded.ok) return { ok: false, code: loaded.code };
  const group = await readGroup(ctx.db, ctx.siteId, groupId);
  if (!group || !canRead(loaded.authority, group)) {
    return { ok: false, code: "not_found" };
  }
  const rows = await sourcesOf(ctx.db, ctx.siteId, group.id);
  const readable = rows.filter((r) => canRead(loaded.authority, r));
  const hidden = new Set(
    rows.filter((r) => !readable.includes(r)).map((r) => r.source_group_id),
  );
  return { ok: true, sources: readable, hidden: hidden.size };
}

async function sourcesOf(
  db: Db,
  siteId: string,
  groupId: string,
): Promise<Source[]> {
  return await db.selectFrom("entry_links")
    .innerJoin(
      "entry_groups",
      (join) =>
        join.onRef("entry_groups.site_id", "=", "entry_links.site_id")
          .onRef("entry_groups.id", "=", "entry_links.source_group_id"),
    )
    .select([
      "entry_links.source_group_id",
      "entry_groups.model_id",
      "entry_groups.created_by",
      "entry_groups.trashed_at",
      "entry_links.field_key",
      "entry_links.locale",
    ])
    .where("entry_links.site_id", "=", siteId)
    .where("entry_links.target_group_id", "=", groupId)
    .orderBy("entry_groups.model_id").orderBy("entry_links.field_key")
    .orderBy("entry_links.locale").orderBy("entry_groups.created_at")
    .orderBy("entry_links.source_group_id").execute();
}

/**
 * The groups linking to the entry (`GET /entries/{id}/dependents`, ENT-006), each with the
 * field keys and languages holding the link; Trash included and flagged. Linking groups the
 * reader cannot read are counted in `hidden`, never named. An entry the reader cannot read
 * is `not_found`.
 */
export async function listDependents(
  ctx: LifecycleContext,
  options: DependentsOptions,
): Promise<DependentsResult> {
  const read = await readSources(ctx, options.group_id);
  if (!read.ok) return read;
  const byGroup = new Map<string, Dependent>();
  for (const s of read.sources) {
    const dependent = byGroup.get(s.source_group_id) ?? {
      group_id: s.source_group_id,
      model_id: s.model_id,
      trashed: s.trashed_at !== null,
      fields: [],
    };
    dependent.fields.push({ key: s.field_key, locale: s.locale });
    byGroup.set(s.source_group_id, dependent);
  }
  return {
    ok: true,
    group_id: options.group_id,
    dependents: [...byGroup.values()],
    hidden: read.hidden,
  };
}

/**
 * The entry's related-from lists (`GET /entries/{id}/related-from`, ENT-016): per source
 * model, field and language, the readable groups whose relation field holds the entry.
 */
export async function listRelatedFrom(
  ctx: LifecycleContext,
  options: DependentsOptions,
): Promise<RelatedFromResult> {
  const read = await readSources(ctx, options.group_id);
  if (!read.ok) return read;
  const lists = new Map<string, RelatedFrom>();
  for (const s of read.sources) {
    const key = `${s.model_id}\n${s.field_key}\n${s.locale ?? ""}`;
    const list = lists.get(key) ?? {
      model_id: s.model_id,
      field: s.field_key,
      locale: s.locale,
      group_ids: [],
    };
    list.group_ids.push(s.source_group_id);
    lists.set(key, list);
  }
  return {
    ok: true,
    group_id: options.group_id,
    related_from: [...lists.values()],
    hidden: read.hidden,
  };
}
