// GET /v1/{model}: published items of one model, filtered, ordered and paged in SQL (spec 3 part 4.2).
import type { FieldDefinition } from "../models/field_types.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { isPageField } from "../models/validate_values.ts";
import { HttpError } from "../web/errors.ts";
import { uniqueTags } from "./answer.ts";
import { decodeCursor, encodeCursor, queryDigest } from "./cursor.ts";
import {
  expandItems,
  planExpand,
  type ReadScope,
  slugs,
  visibleTargets,
} from "./expand.ts";
import {
  deliverPageRows,
  PAGE_CONTRACT_SERVED,
  shapeItem,
  sharedTags,
} from "./items.ts";
import { expandMedia, withExpandedTargets } from "./media_expand.ts";
import { localeChain } from "../sites/locale_chain.ts";
import { invalid, parseListQuery } from "./list_params.ts";
import { type PageRow as Row, scanned, sortedByValues } from "./list_pages.ts";
import {
  planConditions,
  planSelection,
  planSort,
  type SortPlan,
} from "./list_plan.ts";
import { notFound } from "./context_refresh.ts";
import {
  localePlanOrRefuse,
  modelBySlug,
  readableModels,
  requestedLocale,
} from "./read_context.ts";
import type { PublicAnswer, PublicReadContext } from "./read_answer.ts";

export type { PublicAnswer, PublicReadContext };

/** Lists published items; refusals throw the spec's HttpError. */
export async function listItems(
  ctx: PublicReadContext,
  modelSlug: string,
  params: URLSearchParams,
): Promise<PublicAnswer> {
  const models = readableModels(ctx.context, ctx.token);
  const model = modelBySlug(models, modelSlug);
  if (!model) throw notFound();
  const query = parseListQuery(params);
  const plan = localePlanOrRefuse(ctx.context);
  const locale = requestedLocale(plan, query.locale);
  const sort = planSort(model, query);
  const conditions = planConditions(
    model,
    query,
    (f) => models.heads.get(f.config.targets[0]),
    ctx.siteId,
  );
  const select = planSelection(model, query);
  const expand = planExpand(model, query.expand, models);

  let manualRevision: number | null = null;
  if (query.order === "manual") {
    const rev = await ctx.db.selectFrom("public_manual_order_revisions").select(
      "revision",
    )
      .where("site_id", "=", ctx.siteId).where("model_id", "=", model.id)
      .executeTakeFirst();
    manualRevision = rev?.revision ?? 0;
  }
  const digest = queryDigest([
    "list",
    ctx.siteId,
    model.id,
    locale,
    query.order,
    query.sort,
    query.origin,
    [...query.filters.entries()].sort(([a], [b]) => a < b ? -1 : 1),
    query.fields,
    query.relations,
    query.tags,
    query.expand,
  ]);
  let after: unknown[] | null = null;
  if (query.cursor !== null) {
    const cursor = await decodeCursor(ctx.db, query.cursor, ctx.now);
    if (!cursor) {
      invalid(
        "Invalid cursor: it cannot be read or is too old; start from the first page",
      );
    }
    if (cursor.q !== digest) {
      throw new HttpError(
        400,
        "public_cursor_mismatch",
        "This cursor belongs to another query: send it back with the same parameters (only limit may change)",
      );
    }
    if (query.order === "manual" && cursor.x !== manualRevision) {
      invalid(
        "Invalid cursor: the manual order changed since it was issued; start from the first page",
      );
    }
    after = cursor.k;
  }

  const base = {
    siteId: ctx.siteId,
    modelId: model.id,
    locale,
    conditions,
    limit: query.limit + 1,
    context: ctx.context,
    read: {
      fieldKeys: fieldKeysRead(model, select, expand, sort),
      versionId: expand.length > 0,
      versionNumber: select === null || select.has("version"),
    },
  };
  const result = sort?.indexed
    ? await sortedByValues(ctx.db, base, sort, query, after)
    : await scanned(ctx.db, base, query.order, sort, after);
  const rows = result.slice(0, query.limit);
  const hasMore = result.length > query.limit;
  const scope: ReadScope = {
    db: ctx.db,
    now: ctx.now,
    siteId: ctx.siteId,
    locale,
    token: ctx.token,
    models,
  };
  const visible = await visibleTargets(scope, model, rows);
  const modelSlugs = slugs(scope);
  const pages = await deliverPageRows(ctx.db, ctx.siteId, model, rows);
  const data = rows.map((r) =>
    shapeItem(model, r, { select, visibleTargets: visible, modelSlugs, pages })
  );
  const shown = expand.length > 0
    ? await expandItems(scope, model, expand, rows, data)
    : [];
  await expandMedia(ctx.db, withExpandedTargets(data), {
    siteId: ctx.siteId,
    chain: localeChain(plan.policy, locale, plan.defaultLanguage),
    publicUrl: ctx.publicUrl ?? "",
  });
  const last = rows.at(-1);
  const next = hasMore && last
    ? await encodeCursor(ctx.db, {
      q: digest,
      k: cursorKey(query.order, sort, last),
      x: manualRevision ?? undefined,
      t: ctx.now.getTime(),
    })
    : null;
  const pageTags = [
    `model:${model.id}`,
    ...rows.map((r) => `instance:${r.group_id}`),
  ];
  return {
    body: {
      data,
      page: { limit: query.limit, has_more: hasMore, next_cursor: next },
      contracts: { page: { served: PAGE_CONTRACT_SERVED } },
    },
    // A page's rows are distinct items: only expanded targets and shared sections may repeat one.
    tags: shown.length === 0 && pages.size === 0 ? pageTags : uniqueTags([
      ...pageTags,
      ...shown.map((id) => `instance:${id}`),
      ...sharedTags(pages),
    ]),
  };
}

/**
 * The `fields` keys a page with selection `select` reads from each row: the selected ones, the
 * relations it expands, the page document (its shared sections are in the cache tags whatever
 * is selected) and the sorted field (a sorted page orders long strings by the whole value, read
 * from the row); null reads the whole object.
 */
function fieldKeysRead(
  model: StoredModel,
  select: ReadonlySet<string> | null,
  expand: readonly FieldDefinition[],
  sort: SortPlan | null,
): string[] | null {
  if (select === null) return null;
  const keys = new Set<string>();
  for (const field of model.fields) {
    if (select.has(field.key) || isPageField(field)) keys.add(field.key);
  }
  for (const field of expand) keys.add(field.key);
  if (sort) keys.add(sort.key);
  return [...keys];
}

function cursorKey(order: string, sort: SortPlan | null, row: Row): unknown[] {
  if (sort) {
    return [row.k_null, row.k_null ? null : String(row.k), row.group_id];
  }
  if (order === "manual") return [Number(row.k), row.group_id];
  return [row.published_at, row.group_id];
}
