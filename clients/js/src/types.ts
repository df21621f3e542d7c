// Item types shaped by a site's models: what `list`, `single`, `related` and `sync` answer.
// This module is browser compatible.
import type {
  Item,
  ListItemsResponseContracts,
  Page,
  RelationTarget,
  RelationValue,
  SyncResponse,
} from "./api.gen.ts";

/** A media field's value: the library item's public fields as the API serves them. */
export interface Media {
  id: string;
  kind: string;
  url: string;
  mime_type: string;
  file_name: string;
  byte_length: number;
  width: number | null;
  height: number | null;
  aspect_ratio: string | null;
  /** Alt text in the served language (or along its fallback chain); null when none. */
  alt: string | null;
  focal: { x: number; y: number } | null;
  loading: "eager" | "lazy";
  fetch_priority: "high" | "low" | "auto";
  /** An image's ThumbHash (base64), to paint before the image arrives. */
  placeholder: string | null;
  /** An image's dominant colour, `#rrggbb`. */
  dominant_color: string | null;
}

/**
 * One model as `stave-client types` writes it: its fields, relations and media by key, each
 * typed as the wire carries it (a to-one relation `string | null`, a to-many one `string[]`,
 * `RelationTarget` where a field may point at several models).
 */
export interface ModelShape {
  fields: object;
  relations: object;
  media: object;
}

/** Models by slug: `M` itself, so an interface (which has no index signature) fits too. */
export type ModelMap<M> = { [K in keyof M]: ModelShape };

/** The models of a site whose types were not generated: every model, open shapes. */
export interface AnyModels {
  [slug: string]: {
    fields: Record<string, unknown>;
    relations: Record<string, RelationValue>;
    media: Record<string, Media | Media[] | null>;
  };
}

/** A relation field's key of model `S`. */
export type RelationKey<S extends ModelShape> = keyof S["relations"] & string;

/** A field's key of model `S` (fields, relations and media). */
export type FieldKey<S extends ModelShape> =
  & (keyof S["fields"] | keyof S["relations"] | keyof S["media"])
  & string;

/**
 * An item read without a `fields` selection, as expanded targets always are: its `fields` are
 * present (the API leaves them out only when a selection names none).
 */
export type WholeItem = Item & { fields: NonNullable<Item["fields"]> };

/** One expanded relation field: its first targets and the cursor for the rest (`related()`). */
export interface Expanded {
  data: WholeItem[];
  page: Page;
}

/** An item of model `S`; `E` are the relation fields asked for with `expand`. */
export type TypedItem<S extends ModelShape, E extends string = never> =
  & Pick<
    Item,
    | "id"
    | "slug"
    | "locale"
    | "model"
    | "version"
    | "published_at"
    | "alternates"
    | "page_contract"
  >
  & {
    fields: S["fields"];
    relations: S["relations"];
    media: S["media"];
  }
  & ([E] extends [never] ? { expanded?: Record<string, Expanded> }
    : { expanded: { [F in E]: Expanded } });

/** The contracts a list or single answer names. */
export type Contracts = ListItemsResponseContracts;

/** A page of a list or related read. */
export interface ListAnswer<I> {
  data: I[];
  page: Page;
  contracts: Contracts;
}

/** A single read. */
export interface ReadAnswer<I> {
  data: I;
  contracts: Contracts;
}

/** One page of sync, with the cursor to resume from after it. */
export type SyncPage<I> = Omit<SyncResponse, "data"> & {
  data: I[];
  /**
   * What to send back to continue after this page: `next_cursor` while more pages wait, else the
   * `checkpoint`. Store it with what you applied; `sync({ cursor })` resumes there.
   */
  cursor: string;
};

/** A chrome link as `/v1/_chrome` serves it. */
export interface ChromeLink {
  id: string;
  label: string;
  href: string;
  children?: ChromeLink[];
}

/** `/v1/_chrome`'s `data`: menus, placements, footer note and regions of one language. */
export interface Chrome {
  locale: string;
  menus: Record<string, { lang: string; items: ChromeLink[] }>;
  placements: { header: string | null; footer: string | null };
  footer_note: { lang: string; text: string } | null;
  /** The site template's regions in its order, each with its blocks in this language. */
  regions: Region[];
}

/** A link a region block lists. */
export interface RegionLink {
  id: string;
  label: string;
  href: string;
}

/** One block of a region; `title` is its heading in the served language, if it has one. */
export type RegionBlock =
  & { title: string | null }
  & (
    /** A shared section's published sections, as a page document. */
    | { kind: "shared_section"; id: string; document: Record<string, unknown> }
    | {
      kind: "menu";
      key: string;
      items: {
        id: string;
        label: string;
        href: string | null;
        children: RegionLink[];
      }[];
    }
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

/** One region the site's template declares, with what the site put in it. */
export interface Region {
  key: string;
  label: string;
  items: RegionBlock[];
}

/** A redirect rule of `/v1/_redirects`, in precedence order. */
export interface RedirectRule {
  from: string;
  match: "exact" | "pattern";
  status: 301 | 302 | 307 | 308 | 410 | 451;
  to: string | null;
}

export type { RelationTarget, RelationValue };
