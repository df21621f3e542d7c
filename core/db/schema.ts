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
}
