// The shape of the chrome answer (`/v1/_chrome`'s `data`, spec 3 part 4.6) with its `regions`,
// part of the page contract: the public route builds it, and templates draw it (the renderer's
// platform components import it as the contract, so a template needs nothing else).
// This module is browser compatible.
import type { PageDocument } from "./parse.ts";

/** A link of a menu (a top-level item's child, or a fallback navigation link). */
export interface ChromeLink {
  id: string;
  label: string;
  href: string;
}

/** A top-level menu item; a heading (an item leading nowhere itself) has `href: null`. */
export interface ChromeItem {
  id: string;
  label: string;
  href: string | null;
  children: ChromeLink[];
}

/** `/v1/_chrome`'s `data`: menus, placements, footer note and regions of one language. */
export interface ChromeAnswer {
  locale: string;
  menus: Record<string, { lang: string; items: ChromeItem[] }>;
  placements: { header: string | null; footer: string | null };
  footer_note: { lang: string; text: string } | null;
  /** The active template's regions in its order, each with its blocks in this language. */
  regions: ServedRegion[];
}

/** A link a region block lists. */
export interface RegionLink {
  id: string;
  label: string;
  href: string;
}

/** A menu item as a region shows it (the chrome's menu item shape). */
export interface RegionMenuItem {
  id: string;
  label: string;
  href: string | null;
  children: { id: string; label: string; href: string }[];
}

/** One block of a served region; `title` is the stored heading in the served language, if any. */
export type ServedBlock =
  & { title: string | null }
  & (
    | { kind: "shared_section"; id: string; document: PageDocument }
    | { kind: "menu"; key: string; items: RegionMenuItem[] }
    | { kind: "search"; href: string }
    | { kind: "recent_posts"; items: (RegionLink & { published_at: string })[] }
    | {
      kind: "categories";
      field: string;
      items: (RegionLink & { count: number })[];
    }
    | { kind: "tags"; field: string; items: (RegionLink & { count: number })[] }
    | {
      kind: "posts_by_month";
      /** Newest month first; a month has no address of its own. */
      months: { month: string; items: RegionLink[] }[];
    }
  );

/** One served region. */
export interface ServedRegion {
  key: string;
  label: string;
  items: ServedBlock[];
}
