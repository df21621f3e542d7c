// Live addresses of menu items in one language: entries (pages, posts), type lists (a Blog list)
// and archives (a category or a tag), and the checks a menu write makes on lists and archives.
import type { Db } from "../db/database.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { SHARED_SECTION_MODEL } from "../pages/shared.ts";
import type { MenuItems } from "./menu_items.ts";

/** The type whose items live at the site's root (`/<slug>`); it has no list of its own. */
export const PAGES_MODEL = "pages";

type Leaf = Omit<MenuItems[number], "children">;
type Archive = NonNullable<Leaf["archive"]>;

/** Why a list or archive cannot be linked (a menu write is refused with it), or null. */
export function unlinkableReason(
  models: readonly StoredModel[],
  leaf: Pick<Leaf, "list" | "archive">,
): string | null {
  const ref = leaf.list ?? leaf.archive?.model;
  if (ref === undefined) return null;
  const model = models.find((m) => m.id === ref);
  if (!model) return `No content type "${ref}" on this site`;
  if (model.slug === PAGES_MODEL || model.slug === SHARED_SECTION_MODEL) {
    return `Content type "${model.slug}" has no list or archive`;
  }
  if (!leaf.archive) return null;
  const field = archiveField(model, leaf.archive);
  if (field === "none") {
    return `"${leaf.archive.field}" is not a select or single-type relation field of "${model.slug}"`;
  }
  if (
    field.type === "select" &&
    !field.config.options.some((o) => o.value === leaf.archive!.value)
  ) {
    return `"${leaf.archive.value}" is not an option of "${field.key}"`;
  }
  if (field.type === "relation" && !UUID.test(leaf.archive.value)) {
    return "A relation archive names the linked entry by its id";
  }
  return null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function archiveField(model: StoredModel, archive: Archive) {
  const field = model.fields.find((f) => f.key === archive.field);
  if (field?.type === "select") return field;
  if (field?.type === "relation" && field.config.targets.length === 1) {
    return field;
  }
  return "none" as const;
}

/**
 * Answers each linking item's live address in `locale` (`undefined` when it has none now): an
 * entry published in that language (through the locale policy) of a public type; a public type's
 * list; an archive of a public type by a public field, whose tag entry is live in that language.
 */
export async function menuAddresses(
  db: Db,
  options: {
    siteId: string;
    locale: string;
    defaultLanguage: string;
    models: readonly StoredModel[];
    leaves: Leaf[];
  },
): Promise<(leaf: Leaf) => string | undefined> {
  const { locale, leaves } = options;
  const prefix = locale === options.defaultLanguage ? "" : `/${locale}`;
  const publicModels = new Map(
    options.models.filter((m) => m.isPublic).map((m) => [m.id, m]),
  );
  const groups = new Set<string>();
  for (const leaf of leaves) {
    if (leaf.entry) groups.add(leaf.entry);
    const model = leaf.archive && publicModels.get(leaf.archive.model);
    const field = model && archiveField(model, leaf.archive!);
    if (field && field !== "none" && field.type === "relation") {
      if (UUID.test(leaf.archive!.value)) groups.add(leaf.archive!.value);
    }
  }
  const live = groups.size === 0 ? [] : await db.selectFrom("public_items")
    .select(["group_id", "model_id", "slug"])
    .where("site_id", "=", options.siteId)
    .where("requested_locale", "=", locale)
    .where("group_id", "in", [...groups]).execute();
  const liveSlug = new Map<string, { model: StoredModel; slug: string }>();
  for (const row of live) {
    const model = publicModels.get(row.model_id);
    if (model) liveSlug.set(row.group_id, { model, slug: row.slug });
  }
  const listable = (id: string) => {
    const model = publicModels.get(id);
    return model && model.slug !== PAGES_MODEL &&
        model.slug !== SHARED_SECTION_MODEL
      ? model
      : undefined;
  };
  return (leaf) => {
    if (leaf.href !== undefined) return leaf.href;
    if (leaf.entry !== undefined) {
      const hit = liveSlug.get(leaf.entry);
      if (!hit) return undefined;
      const base = hit.model.slug === PAGES_MODEL ? "" : `/${hit.model.slug}`;
      return `${prefix}${base}/${hit.slug}`;
    }
    if (leaf.list !== undefined) {
      const model = listable(leaf.list);
      return model && `${prefix}/${model.slug}`;
    }
    if (leaf.archive !== undefined) {
      const model = listable(leaf.archive.model);
      if (!model) return undefined;
      const field = archiveField(model, leaf.archive);
      if (field === "none" || field.private) return undefined;
      let value = leaf.archive.value;
      if (field.type === "select") {
        if (!field.config.options.some((o) => o.value === value)) {
          return undefined;
        }
      } else {
        const target = liveSlug.get(value);
        if (!target || target.model.id !== field.config.targets[0]) {
          return undefined;
        }
        value = target.slug;
      }
      return `${prefix}/${model.slug}/${field.key}/${
        encodeURIComponent(value)
      }`;
    }
    return undefined;
  };
}
