// The admin's page list: each page's languages with the structure of its current document, and
// preview tokens minted when an editor opens a preview (AUTH-013).
import { isId } from "../entries/store.ts";
import { loadAuthority } from "../access/authority.ts";
import { decide } from "../access/decide.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { loadModels } from "../models/store_rows.ts";
import { isPageField } from "../models/validate_values.ts";
import { mintPreviewToken } from "../public/preview_tokens.ts";
import { parsePageDocument } from "./parse.ts";

/** Who asks. */
export interface AdminPagesContext {
  db: Db;
  clock: Clock;
  siteId: string;
  personId: string;
}

/** One language of a page as the list shows it. */
export interface PageLanguageRow {
  locale: string;
  slug: string;
  title: string | null;
  published: boolean;
  /** Sections of the current document in order: type and heading; null when unreadable. */
  sections: { id: string; type: string; heading: string | null }[] | null;
  error: string | null;
}

/** A page of the list. */
export interface PageRow {
  id: string;
  model: { id: string; slug: string; name: string };
  languages: PageLanguageRow[];
}

/** Pages of models holding page documents that the person may read, newest first (at most 100). */
export async function listAdminPages(
  ctx: AdminPagesContext,
): Promise<PageRow[]> {
  const loaded = await loadAuthority(ctx.db, {
    siteId: ctx.siteId,
    actor: { kind: "person", userId: ctx.personId },
  });
  if (!loaded.ok) return [];
  const models = (await loadModels(ctx.db, ctx.siteId, null)).filter((m) =>
    m.fields.some(isPageField) &&
    decide(loaded.authority, { action: "entries.read", model: m.id }).ok
  );
  if (models.length === 0) return [];
  const rows = await ctx.db.selectFrom("entries as e")
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
      "e.locale",
      "e.slug",
      "e.published_version_id",
      "g.model_id",
      "g.created_at",
      "v.fields",
    ])
    .where("e.site_id", "=", ctx.siteId).where("g.trashed_at", "is", null)
    .where("g.model_id", "in", models.map((m) => m.id))
    .orderBy("g.created_at", "desc").orderBy("e.group_id").orderBy("e.locale")
    .limit(500).execute();
  const pages = new Map<string, PageRow>();
  for (const r of rows) {
    const model = models.find((m) => m.id === r.model_id)!;
    const field = model.fields.find(isPageField)!;
    const fields = r.fields as Record<string, unknown>;
    const parsed = parsePageDocument(fields[field.key] ?? null);
    const page = pages.get(r.group_id) ??
      { id: r.group_id, model: model, languages: [] };
    page.model = { id: model.id, slug: model.slug, name: model.name };
    page.languages.push({
      locale: r.locale,
      slug: r.slug,
      title: typeof fields.title === "string" ? fields.title : null,
      published: r.published_version_id !== null,
      sections: parsed.ok
        ? parsed.value.sections.map((s) => {
          const heading = parsed.value.props[s.id]?.heading;
          return {
            id: s.id,
            type: s.type,
            heading: typeof heading === "string" ? heading : null,
          };
        })
        : null,
      error: parsed.ok ? null : parsed.error.message,
    });
    pages.set(r.group_id, page);
  }
  return [...pages.values()].slice(0, 100);
}

/**
 * Mints a preview token for a page the person may read (`sv_prev_…`, 30 minutes); the token is
 * answered once and only its digest is stored.
 */
export async function openPagePreview(
  ctx: AdminPagesContext,
  groupId: string,
): Promise<
  | { ok: true; token: string; expiresAt: Date; model: string }
  | { ok: false; code: "not_found" }
> {
  if (!isId(groupId)) {
    return { ok: false, code: "not_found" };
  }
  const pages = await listAdminPages(ctx);
  const page = pages.find((p) => p.id === groupId);
  if (!page) return { ok: false, code: "not_found" };
  const minted = await mintPreviewToken({ db: ctx.db, clock: ctx.clock }, {
    siteId: ctx.siteId,
    groupId,
    personId: ctx.personId,
  });
  return { ok: true, ...minted, model: page.model.slug };
}
