// GET /v1/{model}/{slug}: one published item (or a preview's current draft) with its alternates (spec 3 part 4.3).
import { checkPageMedia } from "../pages/media_check.ts";
import { PUBLIC_QUERY_PARAMETERS } from "./query_parameters.ts";
import { sql } from "kysely";
import type { StoredModel } from "../models/store_rows.ts";
import { HttpError } from "../web/errors.ts";
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
  type PublicRow,
  shapeItem,
  sharedTags,
} from "./items.ts";
import { expandMedia, withExpandedTargets } from "./media_expand.ts";
import { localeChain } from "../sites/locale_chain.ts";
import type { PublicAnswer, PublicReadContext } from "./read_answer.ts";
import { uniqueTags } from "./answer.ts";
import { collectParams, parseExpand } from "./list_params.ts";
import { notFound } from "./context_refresh.ts";
import { runConfirming } from "./request_context.ts";
import { type DraftGrant, verifyPreviewToken } from "./preview_tokens.ts";
import { draftReachOf } from "./draft_targets.ts";
import {
  localePlanOrRefuse,
  modelBySlug,
  readableModels,
  requestedLocale,
} from "./read_context.ts";

/** A single read's answer; previews must never be cached. */
export interface SingleAnswer extends PublicAnswer {
  preview: boolean;
}

type Row = PublicRow & {
  version_id: string;
  /** Kept with the published row (`public_items.alternates`); absent for a preview's draft. */
  alternates?: { locale: string; slug: string }[];
};

/** Reads one item by its slug in the requested language. */
export async function readItem(
  ctx: PublicReadContext,
  path: { model: string; slug: string },
  params: URLSearchParams,
): Promise<SingleAnswer> {
  const models = readableModels(ctx.context, ctx.token);
  const model = modelBySlug(models, path.model);
  if (!model) throw notFound();
  const p = collectParams(params, PUBLIC_QUERY_PARAMETERS.single);
  const plan = localePlanOrRefuse(ctx.context);
  const locale = requestedLocale(plan, p.get("locale")?.[0] ?? null);
  const expand = planExpand(model, parseExpand(p.get("expand")?.[0]), models);
  const previewToken = p.get("preview")?.[0];
  const { row, draftGrant } = previewToken === undefined
    ? {
      row: await publishedRow(ctx, model, locale, path.slug),
      draftGrant: null,
    }
    : await draftRow(ctx, model, locale, path.slug, previewToken);
  const scope: ReadScope = {
    db: ctx.db,
    now: ctx.now,
    siteId: ctx.siteId,
    locale,
    token: ctx.token,
    models,
    drafts: draftGrant
      ? await draftReachOf(ctx.db, ctx.siteId, draftGrant, models.heads.keys())
      : undefined,
  };
  const visible = await visibleTargets(scope, model, [row]);
  const { alternates: known, ...published } = row;
  const pages = await deliverPageRows(ctx.db, ctx.siteId, model, [row]);
  const page = pages.values().next().value;
  if (previewToken !== undefined && page?.error) {
    // A preview never shows half a page (spec 3 part 4.3, PUB-037).
    const reason = "unreadable_page";
    throw new HttpError(
      422,
      reason,
      `This page cannot be previewed: ${page.error.message}`,
      { reason, detail: page.error.detail },
    );
  }
  if (previewToken !== undefined && page?.document) {
    const problem = await checkPageMedia(ctx.db, ctx.siteId, page.document);
    if (problem) {
      throw new HttpError(
        422,
        problem.reason,
        `This page cannot be previewed: ${problem.message}`,
        {
          reason: problem.reason,
          detail: { path: problem.path, media_id: problem.media_id },
        },
      );
    }
  }
  const item = shapeItem(model, published, {
    select: null,
    visibleTargets: visible,
    modelSlugs: slugs(scope),
    pages,
  });
  item.alternates = known ?? await alternates(ctx, row.group_id);
  const shown = expand.length > 0
    ? await expandItems(scope, model, expand, [row], [item])
    : [];
  await expandMedia(ctx.db, withExpandedTargets([item]), {
    siteId: ctx.siteId,
    chain: localeChain(plan.policy, locale, plan.defaultLanguage),
    publicUrl: ctx.publicUrl ?? "",
  });
  return {
    body: { data: item, contracts: { page: { served: PAGE_CONTRACT_SERVED } } },
    // The model and the item are two distinct tags: only expanded targets and shared sections
    // may repeat one.
    tags: shown.length === 0 && pages.size === 0
      ? [`model:${model.id}`, `instance:${row.group_id}`]
      : uniqueTags([
        `model:${model.id}`,
        `instance:${row.group_id}`,
        ...shown.map((id) => `instance:${id}`),
        ...sharedTags(pages),
      ]),
    preview: previewToken !== undefined,
  };
}

async function publishedRow(
  ctx: PublicReadContext,
  model: StoredModel,
  locale: string,
  slug: string,
): Promise<Row> {
  // The item with its published languages, which the projection keeps beside it (migration 0238);
  // `public_items_slug_group` matches the lookup and its order exactly.
  const rows = await runConfirming(
    ctx.db,
    ctx.context,
    "stave_public_item",
    sql<Row>`
    select p.group_id, p.slug, p.served_locale, p.version_id, p.version_number,
      p.published_at::text as published_at, p.fields, p.alternates
    from public_items p
    where p.site_id = ${ctx.siteId} and p.model_id = ${model.id}
      and p.requested_locale = ${locale} and p.slug = ${slug}
    order by p.group_id
    limit 2
  `,
    "group_id",
  );
  if (rows.length > 1) {
    throw new HttpError(
      404,
      "ambiguous_slug",
      `Two published items claim the slug "${slug.slice(0, 200)}"`,
    );
  }
  if (rows.length === 1) return rows[0];
  // Published at this slug in some language, but the policy serves nothing of it in this one.
  const elsewhere = await ctx.db.selectFrom("entries as e")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.site_id", "=", "e.site_id").onRef("g.id", "=", "e.group_id"),
    )
    .select("e.group_id")
    .where("e.site_id", "=", ctx.siteId).where("e.model_id", "=", model.id)
    .where("e.slug", "=", slug).where("e.published_version_id", "is not", null)
    .where("g.trashed_at", "is", null)
    .where((eb) =>
      eb.not(eb.exists(
        eb.selectFrom("public_items as p").select("p.group_id")
          .whereRef("p.site_id", "=", "e.site_id").whereRef(
            "p.group_id",
            "=",
            "e.group_id",
          )
          .where("p.requested_locale", "=", locale),
      ))
    ).limit(1).executeTakeFirst();
  if (elsewhere) {
    throw new HttpError(
      404,
      "locale_unavailable",
      `This item has no content the site serves in "${locale}"`,
    );
  }
  throw notFound();
}

async function draftRow(
  ctx: PublicReadContext,
  model: StoredModel,
  locale: string,
  slug: string,
  token: string,
): Promise<{ row: Row; draftGrant: DraftGrant | null }> {
  const preview = await verifyPreviewToken(
    {
      db: ctx.db,
      clock: { now: () => ctx.now },
    },
    ctx.siteId,
    token,
  );
  if (!preview) throw notFound();
  const row = await ctx.db.selectFrom("entries as e")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.site_id", "=", "e.site_id").onRef("g.id", "=", "e.group_id"),
    )
    .innerJoin(
      "entry_versions as v",
      (j) =>
        j.onRef("v.site_id", "=", "e.site_id").onRef(
          "v.id",
          "=",
          "e.current_version_id",
        ),
    )
    .select([
      "e.group_id",
      "e.slug",
      "e.locale as served_locale",
      "v.id as version_id",
      "v.number as version_number",
      "e.published_at",
      "v.fields",
    ])
    .where("e.site_id", "=", ctx.siteId).where("e.model_id", "=", model.id)
    .where("e.locale", "=", locale).where("e.slug", "=", slug)
    .where("e.group_id", "=", preview.groupId).where("g.trashed_at", "is", null)
    .executeTakeFirst();
  if (!row) throw notFound();
  return { row: row as Row, draftGrant: preview.draftGrant };
}

async function alternates(ctx: PublicReadContext, groupId: string) {
  return await ctx.db.selectFrom("entries as e")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.site_id", "=", "e.site_id").onRef("g.id", "=", "e.group_id"),
    )
    .select(["e.locale", "e.slug"])
    .where("e.site_id", "=", ctx.siteId).where("e.group_id", "=", groupId)
    .where("e.published_version_id", "is not", null).where(
      "g.trashed_at",
      "is",
      null,
    )
    .orderBy("e.locale").execute();
}
