// Item types shaped by a site's models: what `list`, `single`, `related` and `sync` answer.
// This module is browser compatible.
import type {
  Item,
  ListItemsResponseContracts,
  Media,
  Page,
  RelationValue,
  SyncResponse,
} from "./api.gen.ts";

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

// The chrome and redirect shapes are generated from the public document's components.
export type {
  Chrome,
  ChromeItem,
  ChromeLink,
  CountedLink,
  Media,
  RedirectRule,
  Region,
  RegionBlock,
  RegionLink,
  RelationTarget,
  RelationValue,
} from "./api.gen.ts";
