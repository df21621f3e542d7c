// The `regions` of the chrome answer (spec 3 part 4.6): each region the active template declares,
// in its order, with the blocks Site Chrome stores for it drawn in one language. A block that has
// nothing to show (an unpublished shared section, an empty menu, search switched off, no live
// posts) is left out, as a heading left empty is in a menu.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { type PageDocument, parsePageDocument } from "../pages/mod.ts";
import { SHARED_SECTION_MODEL } from "../pages/shared.ts";
import { PAGE_LIMITS, SHARED_SECTION_TYPES } from "../pages/vocabulary.ts";
import type { DeclaredRegion } from "../templates/active_regions.ts";
import { POSTS_BY_MONTH, type RegionBlock } from "./region_blocks.ts";
import type {
  RegionLink,
  RegionMenuItem,
  ServedBlock,
  ServedRegion,
} from "../pages/chrome_shapes.ts";

export type { RegionLink, RegionMenuItem, ServedBlock, ServedRegion };

/** The Blog: the type whose items are posts. */
export const POSTS_MODEL = "posts";

/** What {@link serveRegions} reads with. */
export interface RegionsInput {
  siteId: string;
  locale: string;
  defaultLanguage: string;
  declared: readonly DeclaredRegion[];
  stored: Record<string, RegionBlock[]>;
  models: readonly StoredModel[];
  /** The chrome's menus, already drawn in `locale`. */
  menus: Record<string, { items: RegionMenuItem[] }>;
  searchEnabled: boolean;
}

/** The served regions and the cache tags of what they show (a publication there purges them). */
export async function serveRegions(
  db: Db,
  input: RegionsInput,
): Promise<{ regions: ServedRegion[]; tags: string[] }> {
  const tags = new Set<string>();
  const prefix = input.locale === input.defaultLanguage
    ? ""
    : `/${input.locale}`;
  const publicModel = (slug: string) =>
    input.models.find((m) => m.slug === slug && m.isPublic);
  const posts = publicModel(POSTS_MODEL);
  const postHref = (slug: string) =>
    `${prefix}/${POSTS_MODEL}/${encodeURIComponent(slug)}`;
  const titleOf = (t: Record<string, string> | undefined) => {
    const text = (t?.[input.locale] ?? t?.[input.defaultLanguage] ?? "").trim();
    return text === "" ? null : text;
  };
  // The newest posts are read once, for every block that lists them.
  let newest: PostRow[] | null = null;
  const newestPosts = async (n: number) => {
    if (!posts) return [];
    tags.add(`model:${posts.id}`);
    newest ??= await readNewestPosts(db, {
      siteId: input.siteId,
      locale: input.locale,
      modelId: posts.id,
      limit: POSTS_BY_MONTH.posts,
    });
    return newest.slice(0, n);
  };

  const regions: ServedRegion[] = [];
  for (const region of input.declared) {
    const items: ServedBlock[] = [];
    for (const block of input.stored[region.key] ?? []) {
      const title = titleOf(block.title);
      switch (block.kind) {
        case "shared_section": {
          // Shared sections are served inside what shows them, whatever their type's visibility.
          const shared = input.models.find((m) =>
            m.slug === SHARED_SECTION_MODEL
          );
          if (!shared) break;
          tags.add(`instance:${block.entry}`);
          const document = await readSharedSection(db, {
            siteId: input.siteId,
            locale: input.locale,
            modelId: shared.id,
            entry: block.entry,
          });
          if (document) {
            items.push({
              kind: "shared_section",
              id: block.entry,
              title,
              document,
            });
          }
          break;
        }
        case "menu": {
          const menu = input.menus[block.menu];
          if (menu && menu.items.length > 0) {
            items.push({
              kind: "menu",
              key: block.menu,
              title,
              items: menu.items,
            });
          }
          break;
        }
        case "search":
          if (input.searchEnabled) {
            items.push({ kind: "search", title, href: `${prefix}/search` });
          }
          break;
        case "recent_posts": {
          const rows = await newestPosts(block.limit);
          if (rows.length > 0) {
            items.push({
              kind: "recent_posts",
              title,
              items: rows.map((r) => ({
                id: r.group_id,
                label: r.label,
                href: postHref(r.slug),
                published_at: r.published_at,
              })),
            });
          }
          break;
        }
        case "posts_by_month": {
          const rows = await newestPosts(POSTS_BY_MONTH.posts);
          const months: { month: string; items: RegionLink[] }[] = [];
          for (const r of rows) {
            const month = r.published_at.slice(0, 7);
            let group = months.at(-1);
            if (group?.month !== month) {
              if (months.length === POSTS_BY_MONTH.months) break;
              group = { month, items: [] };
              months.push(group);
            }
            group.items.push({
              id: r.group_id,
              label: r.label,
              href: postHref(r.slug),
            });
          }
          if (months.length > 0) {
            items.push({ kind: "posts_by_month", title, months });
          }
          break;
        }
        case "categories":
        case "tags": {
          if (!posts) break;
          const found = await archiveLinks(db, {
            siteId: input.siteId,
            locale: input.locale,
            prefix,
            posts,
            field: block.field,
            kind: block.kind,
            models: input.models,
          });
          if (!found) break;
          for (const t of found.tags) tags.add(t);
          if (found.items.length > 0) {
            items.push({
              kind: block.kind,
              field: block.field,
              title,
              items: found.items,
            });
          }
          break;
        }
      }
    }
    regions.push({ key: region.key, label: region.label, items });
  }
  return { regions, tags: [...tags] };
}

interface PostRow {
  group_id: string;
  slug: string;
  label: string;
  published_at: string;
}

async function readNewestPosts(
  db: Db,
  q: { siteId: string; locale: string; modelId: string; limit: number },
): Promise<PostRow[]> {
  const rows = await db.selectFrom("public_items")
    .select(["group_id", "slug", "published_at", "fields"])
    .where("site_id", "=", q.siteId).where("model_id", "=", q.modelId)
    .where("requested_locale", "=", q.locale)
    .orderBy("published_at", "desc").orderBy("group_id")
    .limit(q.limit).execute();
  return rows.map((r) => {
    const fields = (typeof r.fields === "string"
      ? JSON.parse(r.fields)
      : r.fields) as Record<string, unknown>;
    const title = typeof fields.title === "string" ? fields.title.trim() : "";
    return {
      group_id: r.group_id,
      slug: r.slug,
      label: title || r.slug,
      published_at: new Date(r.published_at as Date).toISOString(),
    };
  });
}

async function readSharedSection(
  db: Db,
  q: { siteId: string; locale: string; modelId: string; entry: string },
): Promise<PageDocument | null> {
  const row = await db.selectFrom("public_items").select("fields")
    .where("site_id", "=", q.siteId).where("model_id", "=", q.modelId)
    .where("requested_locale", "=", q.locale)
    .where("group_id", "=", q.entry).executeTakeFirst();
  if (!row) return null;
  const fields =
    (typeof row.fields === "string"
      ? JSON.parse(row.fields)
      : row.fields) as Record<string, unknown>;
  const parsed = parsePageDocument(fields.slides ?? null, {
    purpose: "deliver",
  });
  // A shared section that breaks its own rules is not served, as inside a page.
  if (
    !parsed.ok || parsed.value.sections.length === 0 ||
    parsed.value.sections.length > PAGE_LIMITS.sharedSections ||
    !parsed.value.sections.every((s) => SHARED_SECTION_TYPES.includes(s.type))
  ) return null;
  return parsed.value;
}

/**
 * Categories (options of a select field) or tags (live items a relation field links to) that live
 * posts in `locale` use, with how many; null when the field is not such a public field.
 */
async function archiveLinks(
  db: Db,
  q: {
    siteId: string;
    locale: string;
    prefix: string;
    posts: StoredModel;
    field: string;
    kind: "categories" | "tags";
    models: readonly StoredModel[];
  },
): Promise<
  { items: (RegionLink & { count: number })[]; tags: string[] } | null
> {
  const field = q.posts.fields.find((f) => f.key === q.field);
  if (!field || field.private) return null;
  const base = `${q.prefix}/${POSTS_MODEL}/${encodeURIComponent(field.key)}`;
  if (q.kind === "categories") {
    if (field.type !== "select") return null;
    const counts = await sql<{ value: string; n: number }>`
      select v.value, count(*)::int as n from public_items p
        cross join lateral jsonb_array_elements_text(
          case jsonb_typeof(p.fields -> ${field.key}::text)
            when 'array' then p.fields -> ${field.key}::text
            when 'string' then jsonb_build_array(p.fields -> ${field.key}::text)
            else '[]'::jsonb end) v(value)
      where p.site_id = ${q.siteId} and p.model_id = ${q.posts.id}
        and p.requested_locale = ${q.locale}
      group by v.value
    `.execute(db);
    const byValue = new Map(counts.rows.map((r) => [r.value, r.n]));
    return {
      items: field.config.options.flatMap((o) => {
        const n = byValue.get(o.value) ?? 0;
        return n > 0
          ? [{
            id: o.value,
            label: o.label,
            href: `${base}/${encodeURIComponent(o.value)}`,
            count: n,
          }]
          : [];
      }),
      tags: [],
    };
  }
  if (field.type !== "relation" || field.config.targets.length !== 1) {
    return null;
  }
  const target = q.models.find((m) =>
    m.id === field.config.targets[0] && m.isPublic
  );
  if (!target) return null;
  // Each live post counts a live tag once, by the tag's slug in the served language.
  const rows = await sql<
    { group_id: string; slug: string; fields: unknown; n: number }
  >`
    select t.group_id, t.slug, t.fields, count(*)::int as n
    from public_items p
      cross join lateral jsonb_array_elements_text(
        case jsonb_typeof(p.fields -> ${field.key}::text)
          when 'array' then p.fields -> ${field.key}::text
          when 'string' then jsonb_build_array(p.fields -> ${field.key}::text)
          else '[]'::jsonb end) v(value)
      join public_items t on t.site_id = p.site_id and t.model_id = ${target.id}
        and t.requested_locale = p.requested_locale and t.group_id::text = v.value
    where p.site_id = ${q.siteId} and p.model_id = ${q.posts.id}
      and p.requested_locale = ${q.locale}
    group by t.group_id, t.slug, t.fields
    order by n desc, t.slug
  `.execute(db);
  return {
    items: rows.rows.map((r) => {
      const fields = (typeof r.fields === "string"
        ? JSON.parse(r.fields)
        : r.fields) as Record<string, unknown>;
      const name = ["name", "title", "label"].map((k) =>
        fields[k]
      ).find((
        v,
      ): v is string => typeof v === "string" && v.trim() !== "");
      return {
        id: r.group_id,
        label: name?.trim() ?? r.slug,
        href: `${base}/${encodeURIComponent(r.slug)}`,
        count: r.n,
      };
    }),
    tags: [`model:${target.id}`],
  };
}
