// Menus of the site chrome and the chrome answer of one language (spec 3 parts 2.1 and 4.6).
import type { Db } from "../db/database.ts";
import { listModels } from "../models/model_reads.ts";
import type { SiteRecord } from "../sites/site_store.ts";
import { readCheckedSettings } from "../sites/settings.ts";
import { activeTemplateRegions } from "../templates/active_regions.ts";
import { menuAddresses } from "./menu_addresses.ts";
import type {
  ChromeAnswer,
  ChromeItem,
  ChromeLink,
} from "../pages/chrome_shapes.ts";
import { serveRegions } from "./regions.ts";
import {
  LINK_KINDS,
  MENU_ITEMS,
  type MenuItems,
  type MenuLeaf,
} from "./menu_items.ts";

export { LINK_KINDS, MENU_ITEMS, type MenuItems };

/** Creates or replaces one menu (admin side; validated). */
export async function putMenu(
  db: Db,
  siteId: string,
  key: string,
  items: unknown,
  now: Date,
): Promise<
  { ok: true } | { ok: false; code: "input_invalid"; message: string }
> {
  const parsed = MENU_ITEMS.safeParse(items);
  if (!parsed.success || !/^[a-z0-9][a-z0-9_-]{0,63}$/.test(key)) {
    return { ok: false, code: "input_invalid", message: "Invalid menu" };
  }
  const row = {
    site_id: siteId,
    key,
    items: JSON.stringify(parsed.data),
    updated_at: now,
  };
  await db.insertInto("site_menus").values(row).onConflict((oc) =>
    oc.columns(["site_id", "key"]).doUpdateSet({
      items: row.items,
      updated_at: now,
    })
  ).execute();
  return { ok: true };
}

/** Thrown when a stored chrome document no longer reads: answered `500 site_chrome_unreadable`. */
export class ChromeUnreadable extends Error {
  override name = "ChromeUnreadable";
}

/**
 * Builds the chrome of `locale` with the cache tags of everything it shows: the chrome's own tag,
 * and the models and items of its regions, so a publication there purges it (PAUX-016).: items linking to entries, type lists or archives carry their live
 * address in that language; items whose entry is not live or whose model is private, empty labels
 * and headings left with nothing under them are left out.
 */
export async function readChrome(
  db: Db,
  site: SiteRecord,
  locale: string,
): Promise<{ data: ChromeAnswer; tags: string[] }> {
  const chrome = await readCheckedSettings({ db, siteId: site.id }, "chrome");
  if (!chrome) throw new ChromeUnreadable("Stored chrome does not read");
  const menus = await db.selectFrom("site_menus").select(["key", "items"])
    .where("site_id", "=", site.id).orderBy("key").execute();
  const parsed = menus.map((m) => {
    const items = MENU_ITEMS.safeParse(m.items);
    if (!items.success) {
      throw new ChromeUnreadable(`Menu "${m.key}" does not read`);
    }
    return { key: m.key, items: items.data };
  });
  const models = await listModels({
    db,
    siteId: site.id,
    clock: { now: () => new Date() },
  });
  const addressOf = await menuAddresses(db, {
    siteId: site.id,
    locale,
    defaultLanguage: site.defaultLanguage,
    models,
    leaves: parsed.flatMap((m) => m.items.flatMap((i) => [i, ...i.children])),
  });
  const text = (l: Record<string, string>) =>
    (l[locale] ?? l[site.defaultLanguage] ?? "").trim();
  const link = (i: MenuLeaf): ChromeLink | null => {
    const name = text(i.label);
    const href = addressOf(i);
    return name && href ? { id: i.id, label: name, href } : null;
  };
  const isHeading = (i: MenuLeaf) =>
    LINK_KINDS.every((k) => i[k] === undefined);
  const answer: ChromeAnswer = {
    locale,
    menus: {},
    placements: chrome.placements,
    footer_note: null,
    regions: [],
  };
  for (const m of parsed) {
    answer.menus[m.key] = {
      lang: locale,
      items: m.items.flatMap((i): ChromeItem[] => {
        const children = i.children.flatMap((c) => link(c) ?? []);
        if (isHeading(i)) {
          // A heading leads nowhere itself: it shows only while something under it does.
          const name = text(i.label);
          return name && children.length > 0
            ? [{ id: i.id, label: name, href: null, children }]
            : [];
        }
        const top = link(i);
        return top ? [{ ...top, children }] : [];
      }),
    };
  }
  const notes = chrome.footer_note;
  const noteLang = notes[locale] !== undefined ? locale : site.defaultLanguage;
  if (notes[noteLang]?.trim()) {
    answer.footer_note = { lang: noteLang, text: notes[noteLang] };
  }
  const search = await readCheckedSettings({ db, siteId: site.id }, "search");
  const served = await serveRegions(db, {
    siteId: site.id,
    locale,
    defaultLanguage: site.defaultLanguage,
    declared: await activeTemplateRegions(db, site.id),
    stored: chrome.regions ?? {},
    models,
    menus: answer.menus,
    searchEnabled: search?.enabled ?? false,
  });
  answer.regions = served.regions;
  return { data: answer, tags: [`site:${site.id}:chrome`, ...served.tags] };
}
