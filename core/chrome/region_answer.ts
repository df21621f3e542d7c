// The shape of the chrome answer's `regions` (spec 3 part 4.6), shared by the public route and
// any front end that draws them (the renderer's platform components).
// This module is browser compatible.
import type { PageDocument } from "../pages/mod.ts";

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
