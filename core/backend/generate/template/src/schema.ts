// The description of this backend's models that the generator wrote to generated/schema.json:
// tables, columns, relations, access rules and saved queries. Every route is driven by it.

/** The generated operations of a model. */
export const OPERATIONS = [
  "findMany",
  "findManyPaginated",
  "findUnique",
  "create",
  "update",
  "delete",
] as const;

/** One generated operation. */
export type Operation = typeof OPERATIONS[number];

/** The reads among the operations: read tokens may call only these. */
export const READ_OPERATIONS: ReadonlySet<Operation> = new Set([
  "findMany",
  "findManyPaginated",
  "findUnique",
]);

/** Who an access rule admits. */
export type Audience = "anonymous" | "session" | "service";

/** One operation's access rule. */
export interface AccessRule {
  audience: Audience;
  roles: string[];
}

/** How a column's values are checked and stored. */
export type ColumnKind =
  | "text"
  | "number"
  | "integer"
  | "boolean"
  | "date"
  | "datetime"
  | "select"
  | "select_list"
  | "json"
  | "rich_text"
  | "media_id"
  | "media_list"
  | "media_url"
  | "media_originals"
  | "rich_media"
  | "relation"
  | "point";

/** A column of a generated table (besides `id`). */
export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
  /** The model field the column comes from. */
  field: string;
  required: boolean;
  /** Left out of reader selects and of every write answer. */
  private: boolean;
  /** Written by the generator's seed and the service only; a write naming it is refused. */
  readOnly?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  min?: number;
  max?: number;
  step?: number;
  options?: string[];
  /** For `relation`: the table of the target model; `hierarchy` when it is this model's own. */
  target?: string;
  hierarchy?: boolean;
  /** For `relation`: a target may have one owner only (one-to-one). */
  exclusive?: boolean;
}

/** A junction table of a list relation towards one target model. */
export interface JunctionSpec {
  table: string;
  /** The relation field of the owner. */
  field: string;
  /** The target model's table. */
  target: string;
  /** True when a target may have one owner only (one-to-many). */
  exclusive: boolean;
  /** True when each language keeps its own list. */
  localized: boolean;
}

/** A list relation field of a model, with its junction tables (one per accepted model). */
export interface ListRelationSpec {
  field: string;
  targets: string[];
  junctions: JunctionSpec[];
  minItems?: number;
  maxItems?: number;
  localized: boolean;
}

/** One model of the backend. */
export interface ModelSpec {
  /** The service's model id (read tokens are scoped by it). */
  id: string;
  /** Lower-case name used in routes and as the table name. */
  name: string;
  /** Operation id prefix, e.g. `Posts` in `Posts.findMany`. */
  label: string;
  single: boolean;
  columns: ColumnSpec[];
  /** Columns of the `<name>translation` table, null when no field is per language. */
  translation: { table: string; columns: ColumnSpec[] } | null;
  lists: ListRelationSpec[];
  access: Record<Operation, AccessRule>;
  /** Operations removed from execution and from the description; their paths stay reserved. */
  disabled: Operation[];
}

/** A saved query served at `/api/_queries/<slug>`. */
export interface SavedQuerySpec {
  slug: string;
  name: string;
  model: string;
  select: string[];
  filter: Record<string, string | number | boolean>;
  orderBy: { field: string; direction: "asc" | "desc" }[];
  take: number;
  access: AccessRule;
}

/** The whole description. */
export interface BackendSchema {
  version: 1;
  site: { id: string; locales: string[]; defaultLocale: string };
  /** The service commit the backend was generated from, answered as `x-artifact-commit`. */
  commit: string | null;
  models: ModelSpec[];
  queries: SavedQuerySpec[];
}

/** Reads generated/schema.json beside this project. */
export async function loadSchema(root: URL): Promise<BackendSchema> {
  const text = await Deno.readTextFile(new URL("generated/schema.json", root));
  return JSON.parse(text) as BackendSchema;
}
