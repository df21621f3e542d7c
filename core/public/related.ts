// GET /v1/_related/{model}: the rest of an expanded relation field, page by page (spec 3 part 4.4).
import { PUBLIC_QUERY_PARAMETERS } from "./query_parameters.ts";
import { expandMedia } from "./media_expand.ts";
import { localeChain } from "../sites/locale_chain.ts";
import { HttpError } from "../web/errors.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import {
  planExpand,
  type ReadScope,
  relatedDigest,
  slugs,
  targetPage,
  visibleTargets,
} from "./expand.ts";
import {
  deliverPageRows,
  PAGE_CONTRACT_SERVED,
  shapeItem,
  sharedTags,
} from "./items.ts";
import type { PublicReadContext } from "./read_answer.ts";
import type { ReadAnswer } from "./kept_answers.ts";
import { uniqueTags } from "./answer.ts";
import { collectParams, invalid, parseLimit } from "./list_params.ts";
import { notFound } from "./context_refresh.ts";
import { modelBySlug, readableModels } from "./read_context.ts";
import { type DraftReach, draftReachOf } from "./draft_targets.ts";
import { liveDraftGrant } from "./preview_tokens.ts";

/** Related page size (spec 3 part 8). */
export const RELATED_LIMITS = { max: 100, default: 25 } as const;

function stale(): never {
  throw new HttpError(
    400,
    "public_cursor_stale",
    "The item changed since this cursor was issued: expand it again",
  );
}

/** Answers the next page of targets a related cursor points at. */
export async function readRelated(
  ctx: PublicReadContext,
  modelSlug: string,
  params: URLSearchParams,
): Promise<ReadAnswer> {
  const models = readableModels(ctx.context, ctx.token);
  const model = modelBySlug(models, modelSlug);
  if (!model) throw notFound();
  const p = collectParams(params, PUBLIC_QUERY_PARAMETERS.related);
  const text = p.get("cursor")?.[0];
  if (text === undefined) {
    invalid("cursor is required: send page.next_cursor of an expanded field");
  }
  const limit = parseLimit(
    p.get("limit")?.[0],
    RELATED_LIMITS.max,
    RELATED_LIMITS.default,
  );
  const cursor = await decodeCursor(ctx.db, text, ctx.now);
  if (!cursor || (cursor.k.length !== 4 && cursor.k.length !== 5)) {
    invalid("Invalid cursor: it cannot be read or is too old");
  }
  if (cursor.q !== relatedDigest(ctx.siteId, model.id, ctx.token)) {
    throw new HttpError(
      400,
      "public_cursor_mismatch",
      "This cursor belongs to another site, model or token scope",
    );
  }
  const [groupId, fieldKey, after, locale, grantId] = cursor.k as [
    string,
    string,
    number,
    string,
    string?,
  ];
  let field;
  try {
    [field] = planExpand(model, [fieldKey], models);
  } catch {
    stale();
  }
  const drafts = grantId === undefined
    ? undefined
    : await grantedReach(ctx, groupId, grantId, models.heads.keys());
  const source = drafts
    ? await draftSource(ctx, groupId, locale)
    : await ctx.db.selectFrom("public_items").select([
      "group_id",
      "version_id",
      "fields",
    ])
      .where("site_id", "=", ctx.siteId).where("model_id", "=", model.id)
      .where("requested_locale", "=", locale).where("group_id", "=", groupId)
      .executeTakeFirst();
  if (!source || source.version_id !== cursor.x) stale();
  const scope: ReadScope = {
    db: ctx.db,
    now: ctx.now,
    siteId: ctx.siteId,
    locale,
    token: ctx.token,
    models,
    drafts,
  };
  const pages = await targetPage(scope, field, [
    source as typeof source & { fields: Record<string, unknown> },
  ], { after, limit });
  const page = pages.get(groupId)!;
  const target = models.definitions.get(field.config.targets[0])!;
  const visible = await visibleTargets(scope, target, page.rows);
  const documents = await deliverPageRows(
    ctx.db,
    ctx.siteId,
    target,
    page.rows,
  );
  const data = page.rows.map((r) =>
    shapeItem(target, r, {
      select: null,
      visibleTargets: visible,
      modelSlugs: slugs(scope),
      pages: documents,
    })
  );
  const plan = ctx.context.localePlan;
  await expandMedia(ctx.db, data, {
    siteId: ctx.siteId,
    chain: plan
      ? localeChain(plan.policy, locale, plan.defaultLanguage)
      : [locale],
    publicUrl: ctx.publicUrl ?? "",
  });
  const last = page.rows.at(-1);
  const next = page.hasMore && last
    ? await encodeCursor(ctx.db, {
      q: cursor.q,
      k: cursor.k.length === 5
        ? [groupId, fieldKey, last.pos, locale, grantId!]
        : [groupId, fieldKey, last.pos, locale],
      x: cursor.x,
      t: ctx.now.getTime(),
    })
    : null;
  return {
    body: {
      data,
      page: { limit, has_more: page.hasMore, next_cursor: next },
      contracts: { page: { served: PAGE_CONTRACT_SERVED } },
    },
    tags: uniqueTags([
      `instance:${groupId}`,
      ...page.rows.map((r) => `instance:${r.group_id}`),
      ...sharedTags(documents),
    ]),
    // Drafts answer only the grant's holder: never kept nor cached.
    preview: drafts !== undefined,
  };
}

/**
 * The reach of a continuation cursor's related-draft grant while its link lives; once the link
 * expired (or for another item), the plain 404 of an unverifiable preview.
 */
async function grantedReach(
  ctx: PublicReadContext,
  groupId: string,
  grantId: string,
  models: Iterable<string>,
): Promise<DraftReach> {
  const grant = await liveDraftGrant(
    { db: ctx.db, clock: { now: () => ctx.now } },
    ctx.siteId,
    grantId,
  );
  if (!grant || grant.groupId !== groupId) throw notFound();
  return await draftReachOf(ctx.db, ctx.siteId, grant, models);
}

/** The previewed item's current saved version in `locale`, as the grant's cursor pinned it. */
async function draftSource(
  ctx: PublicReadContext,
  groupId: string,
  locale: string,
) {
  const row = await ctx.db.selectFrom("entries as e")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.site_id", "=", "e.site_id").onRef("g.id", "=", "e.group_id"),
    )
    .innerJoin(
      "entry_versions as v",
      (j) =>
        j.onRef("v.site_id", "=", "e.site_id")
          .onRef("v.id", "=", "e.current_version_id"),
    )
    .select(["e.group_id", "v.id as version_id", "v.fields"])
    .where("e.site_id", "=", ctx.siteId).where("e.group_id", "=", groupId)
    .where("e.locale", "=", locale).where("g.trashed_at", "is", null)
    .executeTakeFirst();
  return row;
}
