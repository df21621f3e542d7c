// Menus of the site chrome and the chrome answer of one language (spec 3 parts 2.1 and 4.6).
import { z } from "zod";
import type { Db } from "../db/database.ts";
import { listModels } from "../models/model_reads.ts";
import type { SiteRecord } from "../sites/site_store.ts";
import { readCheckedSettings } from "../sites/settings.ts";
import { menuAddresses } from "./menu_addresses.ts";

const label = z.record(z.string(), z.string().max(200));
const leaf = z.strictObject({
  id: z.string().min(1).max(64),
  label,
  /** The linked entry's group id; its live address in the served language becomes `href`. */
  entry: z.string().uuid().optional(),
  /** An address instead of an entry: a path on this site or an https address. */
  href: z.string().max(2048).optional(),
  /** A model id: the list of that type's published items (a Blog list), at `/<type>`. */
  list: z.string().uuid().optional(),
  /**
   * An archive: a type's items with one value of a select field (a category), or linking to
   * one entry through a relation field (a tag, by the entry's group id).
   */
  archive: z.strictObject({
    model: z.string().uuid(),
    field: z.string().min(1).max(64),
    value: z.string().min(1).max(255),
  }).optional(),
});
/** Where an item leads; an item with none is a heading over its children. */
export const LINK_KINDS = ["entry", "href", "list", "archive"] as const;
const item = leaf.extend({ children: z.array(leaf).max(50).default([]) });
/** The stored items of a menu: each leads to at most one place; an item without one is a heading. */
export const MENU_ITEMS = z.array(item).max(100).superRefine((items, ctx) => {
  items.forEach((top, i) =>
    [top, ...top.children].forEach((leaf, j) => {
      const path = j === 0 ? [i] : [i, "children", j - 1];
      const kinds = LINK_KINDS.filter((k) => leaf[k] !== undefined);
      if (kinds.length > 1) {
        ctx.addIssue({
          code: "custom",
          path,
          message: `An item leads to one place: choose one of ${
            kinds.join(", ")
          }`,
        });
      }
    })
  );
});
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

/** One served top-level item; a heading (an item leading nowhere itself) has `href: null`. */
export interface ChromeItem {
  id: string;
  label: string;
  href: string | null;
  children: ChromeLink[];
}

/** The chrome answer's `data`. */
export interface ChromeAnswer {
  locale: string;
  menus: Record<
    string,
    { lang: string; items: ChromeItem[] }
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
 * Builds the chrome of `locale`: items linking to entries, type lists or archives carry their live
 * address in that language; items whose entry is not live or whose model is private, empty labels
 * and headings left with nothing under them are left out.
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
  const link = (i: z.infer<typeof leaf>): ChromeLink | null => {
    const name = text(i.label);
    const href = addressOf(i);
    return name && href ? { id: i.id, label: name, href } : null;
  };
  const isHeading = (i: z.infer<typeof leaf>) =>
    LINK_KINDS.every((k) => i[k] === undefined);
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
  return answer;
}
