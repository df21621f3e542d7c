// Menus of the site chrome and the chrome answer of one language (spec 3 parts 2.1 and 4.6).
import { z } from "zod";
import type { Db } from "../db/database.ts";
import { listModels } from "../models/model_reads.ts";
import type { SiteRecord } from "../sites/site_store.ts";
import { readCheckedSettings } from "../sites/settings.ts";

const label = z.record(z.string(), z.string().max(200));
const leaf = z.strictObject({
  id: z.string().min(1).max(64),
  label,
  /** The linked entry's group id; its live address in the served language becomes `href`. */
  entry: z.string().uuid().optional(),
  /** An address instead of an entry: a path on this site or an https address. */
  href: z.string().max(2048).optional(),
});
const item = leaf.extend({ children: z.array(leaf).max(50).default([]) });
/** The stored items of a menu. */
export const MENU_ITEMS = z.array(item).max(100);
/** Stored menu items. */
export type MenuItems = z.infer<typeof MENU_ITEMS>;

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

/** One served menu item. */
export interface ChromeLink {
  id: string;
  label: string;
  href: string;
}

/** The chrome answer's `data`. */
export interface ChromeAnswer {
  locale: string;
  menus: Record<
    string,
    { lang: string; items: (ChromeLink & { children: ChromeLink[] })[] }
  >;
  placements: { header: string | null; footer: string | null };
  footer_note: { lang: string; text: string } | null;
  regions: unknown[];
}

/** Thrown when a stored chrome document no longer reads: answered `500 site_chrome_unreadable`. */
export class ChromeUnreadable extends Error {
  override name = "ChromeUnreadable";
}

/**
 * Builds the chrome of `locale`: items linking to entries carry their live address in that
 * language; items whose entry is not live or whose model is private, and empty labels, are left out.
 */
export async function readChrome(
  db: Db,
  site: SiteRecord,
  locale: string,
): Promise<ChromeAnswer> {
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
  const groups = [
    ...new Set(
      parsed.flatMap((m) =>
        m.items.flatMap((i) => [
          i.entry,
          ...i.children.map((c) => c.entry),
        ])
      ).filter((g): g is string => g !== undefined),
    ),
  ];
  const models = await listModels({
    db,
    siteId: site.id,
    clock: { now: () => new Date() },
  });
  const publicIds = new Map(
    models.filter((m) => m.isPublic).map((m) => [m.id, m.slug]),
  );
  const live = groups.length === 0 ? [] : await db.selectFrom("public_items")
    .select(["group_id", "model_id", "slug", "served_locale"])
    .where("site_id", "=", site.id).where("requested_locale", "=", locale)
    .where("group_id", "in", groups).execute();
  const hrefOf = new Map<string, string>();
  for (const row of live) {
    const modelSlug = publicIds.get(row.model_id);
    if (!modelSlug) continue;
    const prefix = locale === site.defaultLanguage ? "" : `/${locale}`;
    const base = modelSlug === "pages" ? "" : `/${modelSlug}`;
    hrefOf.set(row.group_id, `${prefix}${base}/${row.slug}`);
  }
  const text = (l: Record<string, string>) =>
    (l[locale] ?? l[site.defaultLanguage] ?? "").trim();
  const link = (i: z.infer<typeof leaf>): ChromeLink | null => {
    const name = text(i.label);
    const href = i.entry !== undefined ? hrefOf.get(i.entry) : i.href;
    return name && href ? { id: i.id, label: name, href } : null;
  };
  const answer: ChromeAnswer = {
    locale,
    menus: {},
    placements: chrome.placements,
    footer_note: null,
    // TODO(#5): regions need the accepted template's declared regions (managed delivery issue).
    regions: [],
  };
  for (const m of parsed) {
    answer.menus[m.key] = {
      lang: locale,
      items: m.items.flatMap((i) => {
        const top = link(i);
        if (!top) return [];
        return [{ ...top, children: i.children.flatMap((c) => link(c) ?? []) }];
      }),
    };
  }
  const notes = chrome.footer_note;
  const noteLang = notes[locale] !== undefined ? locale : site.defaultLanguage;
  if (notes[noteLang]?.trim()) {
    answer.footer_note = { lang: noteLang, text: notes[noteLang] };
  }
  return answer;
}
