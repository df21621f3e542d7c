// Every column of the rows the write path reads whole, named so that its reads run prepared.
// core/db/prepared_queries.ts leaves a text with `*` unnamed (a migration another process runs
// would change its result columns), so a `selectAll()` is parsed and planned on every run; a
// listed row keeps the columns this code knows, whatever a later migration adds.
import type { Database } from "./schema.ts";

type ColumnOf<T extends keyof Database> = keyof Database[T] & string;

/** The type error a list that leaves a column out gets, naming the columns it lacks. */
type Complete<T extends keyof Database, C extends readonly string[]> =
  [Exclude<ColumnOf<T>, C[number]>] extends [never] ? unknown
    : { missing: Exclude<ColumnOf<T>, C[number]> };

/** `columns` as given, checked to name every column of `table` (a new one fails type-check). */
export function columnsOf<T extends keyof Database>(_table: T) {
  return <const C extends readonly ColumnOf<T>[]>(
    columns: C & Complete<T, C>,
  ): C => columns;
}

/** `columns` prefixed with `table.`, for a row read beside a join. */
export function qualified<
  T extends keyof Database,
  C extends readonly string[],
>(
  table: T,
  columns: C,
): `${T}.${C[number]}`[] {
  return columns.map((column) => `${table}.${column}` as `${T}.${C[number]}`);
}

/** The columns of `entry_groups`. */
export const GROUP_COLUMNS = columnsOf("entry_groups")([
  "id",
  "site_id",
  "model_id",
  "primary_entry_id",
  "created_by",
  "revision",
  "current_version_id",
  "trashed_at",
  "created_at",
  "updated_at",
]);

/** The columns of `entries` (one language of a group). */
export const INSTANCE_COLUMNS = columnsOf("entries")([
  "id",
  "site_id",
  "group_id",
  "model_id",
  "locale",
  "slug",
  "current_version_id",
  "published_version_id",
  "published_at",
  "list_title",
  "first_language",
  "created_at",
  "updated_at",
]);

/** {@link INSTANCE_COLUMNS} as `entries.<column>`. */
export const ENTRIES_COLUMNS = qualified("entries", INSTANCE_COLUMNS);

/** The columns of `plugin_installations`. */
export const INSTALLATION_COLUMNS = columnsOf("plugin_installations")([
  "id",
  "site_id",
  "plugin_id",
  "name",
  "version",
  "protocol_version",
  "state",
  "token_hash",
  "previous_token_hash",
  "previous_token_expires_at",
  "grant_capabilities",
  "grant_model_ids",
  "manifest",
  "manifest_url",
  "installed_by",
  "created_at",
  "updated_at",
  "revoked_at",
  "policy_modes",
]);

/** The columns of `models`. */
export const MODEL_COLUMNS = columnsOf("models")([
  "id",
  "site_id",
  "slug",
  "name",
  "description",
  "kind",
  "folder",
  "is_public",
  "enable_i18n",
  "settings",
  "revision",
  "created_at",
  "updated_at",
  "deleted_at",
]);

/** The columns of `site_settings`. */
export const SETTINGS_COLUMNS = columnsOf("site_settings")([
  "site_id",
  "key",
  "document",
  "revision",
  "updated_at",
  "updated_by",
]);

/** The columns of `entry_versions`. */
export const VERSION_COLUMNS = columnsOf("entry_versions")([
  "id",
  "site_id",
  "group_id",
  "entry_id",
  "locale",
  "number",
  "fields",
  "created_by",
  "created_at",
]);

/** The columns of `workflow_events`. */
export const EVENT_COLUMNS = columnsOf("workflow_events")([
  "id",
  "site_id",
  "group_id",
  "entry_id",
  "locale",
  "kind",
  "from_state",
  "to_state",
  "version_id",
  "previous_version_id",
  "actor",
  "details",
  "created_at",
]);
