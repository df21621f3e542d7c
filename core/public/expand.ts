// Related targets of a page of items: which are visible, and the expanded first page of each field.
import { sql } from "kysely";
import type { FieldDefinition } from "../models/field_types.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { HttpError } from "../web/errors.ts";
import { encodeCursor, queryDigest } from "./cursor.ts";
import {
  deliverPageRows,
  type PublicRow,
  relationIds,
  shapeItem,
} from "./items.ts";
import { singleModelRelation } from "./list_plan.ts";
import type { ReadableModels } from "./read_context.ts";
import type { ReadScope } from "./read_scope.ts";
import type { SiteTokenScope } from "./site_tokens.ts";
import { draftTargetPage, draftVisibleTargets } from "./draft_targets.ts";
import { isId } from "../entries/store.ts";

/** At most this many targets are inlined per expanded field (spec 3 part 8). */
export const EXPAND_INLINE = 25;

export type { ReadScope };

/** Checks `expand` against the model and answers its fields. */
export function planExpand(
  model: StoredModel,
  keys: string[],
  models: ReadableModels,
): (FieldDefinition & { type: "relation" })[] {
  const bad = (message: string): never => {
    throw new HttpError(400, "public_expand_invalid", message);
  };
  return keys.map((key) => {
    const field = singleModelRelation(model, key, bad, bad);
    if (!models.heads.has(field.config.targets[0])) {
      bad(`"${key}" is not a relation field of this model`);
    }
    return field;
  });
}

/** Ids of relation targets of `rows` that are readable items in the request's language. */
export async function visibleTargets(
  scope: ReadScope,
  model: StoredModel,
  rows: PublicRow[],
): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const field of model.fields) {
    if (field.type !== "relation" || field.private) continue;
    for (const row of rows) {
      for (const id of relationIds(row.fields[field.key])) {
        ids.add(id);
      }
    }
  }
  const wanted = [...ids].filter((id) => isId(id));
  if (wanted.length === 0) return new Set();
  if (scope.drafts) {
    const published = await visibleTargets(
      { ...scope, drafts: undefined },
      model,
      rows,
    );
    return await draftVisibleTargets(
      scope,
      scope.drafts,
      model,
      rows,
      published,
    );
  }
  const found = await scope.db.selectFrom("public_items").select("group_id")
    .where("site_id", "=", scope.siteId).where(
      "requested_locale",
      "=",
      scope.locale,
    )
    .where("model_id", "in", [...scope.models.heads.keys()])
    .where("group_id", "in", wanted).execute();
  return new Set(found.map((r) => r.group_id));
}

/** One page of targets of one source's relation field, from list position `after` on. */
export async function targetPage(
  scope: ReadScope,
  field: FieldDefinition & { type: "relation" },
  sources: {
    group_id: string;
    version_id: string;
    fields: Record<string, unknown>;
  }[],
  options: { after: number; limit: number },
): Promise<
  Map<string, { rows: (PublicRow & { pos: number })[]; hasMore: boolean }>
> {
  if (scope.drafts) {
    return await draftTargetPage(scope, scope.drafts, field, sources, options);
  }
  const src: string[] = [];
  const ids: string[] = [];
  const pos: number[] = [];
  for (const s of sources) {
    relationIds(s.fields[field.key]).forEach((id, i) => {
      if (i <= options.after || !isId(id)) return;
      src.push(s.group_id);
      ids.push(id);
      pos.push(i);
    });
  }
  const out = new Map<
    string,
    { rows: (PublicRow & { pos: number })[]; hasMore: boolean }
  >();
  for (const s of sources) out.set(s.group_id, { rows: [], hasMore: false });
  if (ids.length === 0) return out;
  const result = await sql<PublicRow & { pos: number; src: string }>`
    select * from (
      select s.src::text as src, s.pos, t.group_id, t.slug, t.served_locale, t.version_number,
        t.published_at, t.fields,
        row_number() over (partition by s.src order by s.pos) as rn
      from unnest(${src}::uuid[], ${ids}::uuid[], ${pos}::int[]) as s(src, id, pos)
      join public_items t on t.site_id = ${scope.siteId} and t.model_id = ${
    field.config.targets[0]
  }
        and t.requested_locale = ${scope.locale} and t.group_id = s.id
    ) x where x.rn <= ${options.limit + 1}
    order by x.src, x.pos
  `.execute(scope.db);
  for (const row of result.rows) {
    const entry = out.get(row.src)!;
    if (entry.rows.length === options.limit) entry.hasMore = true;
    else entry.rows.push(row);
  }
  return out;
}

/** Digest binding a related cursor to site, source model and token scope. */
export function relatedDigest(
  siteId: string,
  modelId: string,
  token: SiteTokenScope | null,
) {
  return queryDigest([
    "related",
    siteId,
    modelId,
    token ? [...token.modelIds].sort() : null,
  ]);
}

/** Adds `expanded.<field>: { data, page }` to each shaped item. */
export async function expandItems(
  scope: ReadScope,
  model: StoredModel,
  fields: (FieldDefinition & { type: "relation" })[],
  rows: (PublicRow & { version_id: string })[],
  items: Record<string, unknown>[],
): Promise<string[]> {
  const shown: string[] = [];
  for (const field of fields) {
    const target = scope.models.definitions.get(field.config.targets[0])!;
    const pages = await targetPage(scope, field, rows, {
      after: -1,
      limit: EXPAND_INLINE,
    });
    const visible = await visibleTargets(
      scope,
      target,
      [...pages.values()].flatMap((p) => p.rows),
    );
    const documents = await deliverPageRows(
      scope.db,
      scope.siteId,
      target,
      [...pages.values()].flatMap((p) => p.rows),
    );
    for (const d of documents.values()) shown.push(...d.shared);
    for (let i = 0; i < rows.length; i++) {
      const page = pages.get(rows[i].group_id)!;
      const data = page.rows.map((r) => {
        shown.push(r.group_id);
        return shapeItem(target, r, {
          select: null,
          visibleTargets: visible,
          modelSlugs: slugs(scope),
          pages: documents,
        });
      });
      const last = page.rows.at(-1);
      const next = page.hasMore && last
        ? await encodeCursor(scope.db, {
          q: relatedDigest(scope.siteId, model.id, scope.token),
          // A granted preview's cursor names the grant (never the token) and reads drafts on.
          k: scope.drafts
            ? [
              rows[i].group_id,
              field.key,
              last.pos,
              scope.locale,
              scope.drafts.grantId,
            ]
            : [rows[i].group_id, field.key, last.pos, scope.locale],
          x: rows[i].version_id,
          t: scope.now.getTime(),
        })
        : null;
      const item = items[i];
      const expanded = (item.expanded ?? {}) as Record<string, unknown>;
      expanded[field.key] = {
        data,
        page: {
          limit: EXPAND_INLINE,
          has_more: page.hasMore,
          next_cursor: next,
        },
      };
      item.expanded = expanded;
    }
  }
  return shown;
}

/** Model id -> slug of every readable model of the request. */
export function slugs(scope: ReadScope): Map<string, string> {
  return new Map([...scope.models.heads.values()].map((m) => [m.id, m.slug]));
}
