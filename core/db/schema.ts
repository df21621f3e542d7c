// Typed table interfaces: one per table, named after it, matching the migrations.
import type { ColumnType } from "kysely";

type Json = ColumnType<unknown, string, string>;
/** Timestamps are written as Date and read as Date on both drivers. */
type Timestamp = Date;

export interface SitesTable {
  id: string;
  slug: string;
  name: string;
  domain: string;
  created_at: Timestamp;
}

export interface SiteLanguagesTable {
  site_id: string;
  code: string;
  position: number;
  is_default: boolean;
}

export interface UsersTable {
  id: string;
  email: string;
  display_name: string;
  password_hash: string;
  status: "active" | "deactivated";
  created_at: Timestamp;
}

export interface RolesTable {
  id: string;
  site_id: string;
  name: string;
  permissions: Json;
  created_at: Timestamp;
  seeded: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface SiteMembersTable {
  site_id: string;
  user_id: string;
  role_id: string;
  created_at: Timestamp;
}

export interface SessionsTable {
  id: string;
  token_digest: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface ManagementCredentialsTable {
  id: string;
  site_id: string;
  creator_id: string;
  name: string;
  scopes: Json;
  models: ColumnType<unknown, string | null, string | null>;
  secret_digest: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface InstanceKeysTable {
  name: string;
  secret: string;
  created_at: Timestamp;
}

/** A content model of a site (migration 0010). */
export interface ModelsTable {
  id: string;
  site_id: string;
  slug: string;
  name: string;
  description: string;
  kind: "collection" | "single";
  folder: string | null;
  is_public: boolean;
  enable_i18n: boolean;
  settings: Json;
  revision: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

/** One top-level field of a model; component fields hold their nested fields in `config`. */
export interface ModelFieldsTable {
  id: string;
  site_id: string;
  model_id: string;
  key: string;
  position: number;
  type: string;
  label: string;
  required: boolean;
  is_unique: boolean;
  is_private: boolean;
  localized: boolean;
  config: Json;
  validation: Json;
  derived: ColumnType<unknown, string | null, string | null>;
  ui: ColumnType<unknown, string | null, string | null>;
  visibility: ColumnType<unknown, string | null, string | null>;
}

/** Every key path a model has given a field, with that field's id (retained keys). */
export interface ModelFieldKeysTable {
  site_id: string;
  model_id: string;
  key: string;
  field_id: string;
  field_type: string;
  recorded_at: Timestamp;
}

/** A translation group: one logical entry, its owner and its workflow revision (migration 0030). */
export interface EntryGroupsTable {
  id: string;
  site_id: string;
  model_id: string;
  primary_entry_id: string | null;
  created_by: string | null;
  revision: number;
  current_version_id: string | null;
  trashed_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One language instance of a translation group. */
export interface EntriesTable {
  id: string;
  site_id: string;
  group_id: string;
  model_id: string;
  locale: string;
  slug: string;
  current_version_id: string | null;
  published_version_id: string | null;
  published_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An immutable saved version of one language instance; never updated. */
export interface EntryVersionsTable {
  id: string;
  site_id: string;
  group_id: string;
  entry_id: string;
  locale: string;
  number: number;
  fields: Json;
  created_by: Json;
  created_at: Timestamp;
}

/** An immutable workflow event with a snapshot of who acted. */
export interface WorkflowEventsTable {
  id: string;
  site_id: string;
  group_id: string;
  entry_id: string | null;
  locale: string | null;
  kind: string;
  from_state: string | null;
  to_state: string | null;
  version_id: string | null;
  previous_version_id: string | null;
  actor: Json;
  details: Json;
  created_at: Timestamp;
}

/** One entry of the admin audit ledger. */
export interface AuditEntriesTable {
  id: string;
  site_id: string;
  actor: Json;
  action: string;
  target: Json;
  details: Json;
  created_at: Timestamp;
}

/** Every table Kysely may query. */
export interface Database {
  sites: SitesTable;
  site_languages: SiteLanguagesTable;
  users: UsersTable;
  roles: RolesTable;
  site_members: SiteMembersTable;
  sessions: SessionsTable;
  management_credentials: ManagementCredentialsTable;
  instance_keys: InstanceKeysTable;
  models: ModelsTable;
  model_fields: ModelFieldsTable;
  model_field_keys: ModelFieldKeysTable;
  entry_groups: EntryGroupsTable;
  entries: EntriesTable;
  entry_versions: EntryVersionsTable;
  workflow_events: WorkflowEventsTable;
  audit_entries: AuditEntriesTable;
  site_settings: SiteSettingsTable;
}

export interface SiteSettingsTable {
  site_id: string;
  key: string;
  document: Json;
  revision: number;
  updated_at: Timestamp;
  updated_by: string | null;
}
