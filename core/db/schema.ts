// Long on purpose: the one Database interface names every table, so adding a table stays a one-place change.
// Typed table interfaces: one per table, named after it, matching the migrations.
import type { ColumnType, Generated } from "kysely";

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
  /** The current version's title, for the admin's lists (migration 0232, title_field.ts). */
  list_title: ColumnType<string, string | undefined, string>;
  /** True for the instance a group was created with (its `primary_entry_id`), migration 0232. */
  first_language: ColumnType<boolean, boolean | undefined, boolean>;
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
  entry_proposals: EntryProposalsTable;
  model_proposals: ModelProposalsTable;
  entry_drafts: EntryDraftsTable;
  entry_links: EntryLinksTable;
  entry_unique_claims: EntryUniqueClaimsTable;
  entry_single_claims: EntrySingleClaimsTable;
  entry_reviews: EntryReviewsTable;
  entry_assignments: EntryAssignmentsTable;
  public_items: PublicItemsTable;
  public_manual_order: PublicManualOrderTable;
  public_manual_order_revisions: PublicManualOrderRevisionsTable;
  site_api_tokens: SiteApiTokensTable;
  deployed_read_tokens: DeployedReadTokensTable;
  site_preview_addresses: SitePreviewAddressesTable;
  template_candidates: TemplateCandidatesTable;
  template_acceptances: TemplateAcceptancesTable;
  registered_section_versions: RegisteredSectionVersionsTable;
  managed_releases: ManagedReleasesTable;
  managed_addresses: ManagedAddressesTable;
  preview_tokens: PreviewTokensTable;
  shared_content_grants: SharedContentGrantsTable;
  form_submissions: FormSubmissionsTable;
  form_attachments: FormAttachmentsTable;
  comments: CommentsTable;
  page_pending_addresses: PagePendingAddressesTable;
  comment_reactions: CommentReactionsTable;
  site_browser_origins: SiteBrowserOriginsTable;
  public_context_revisions: PublicContextRevisionsTable;
  sync_sites: SyncSitesTable;
  sync_changes: SyncChangesTable;
  sync_entry_state: SyncEntryStateTable;
  search_documents: SearchDocumentsTable;
  search_title_words: SearchTitleWordsTable;
  site_menus: SiteMenusTable;
  media_folders: MediaFoldersTable;
  media_files: MediaFilesTable;
  media_originals: MediaOriginalsTable;
  media_cleanup: MediaCleanupTable;
  media_writes: MediaWritesTable;
  plugin_installations: PluginInstallationsTable;
  plugin_delegations: PluginDelegationsTable;
  plugin_notifications: PluginNotificationsTable;
  plugin_invocations: PluginInvocationsTable;
  oauth_clients: OAuthClientsTable;
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  import_sources: ImportSourcesTable;
  data_jobs: DataJobsTable;
  data_job_parts: DataJobPartsTable;
  data_job_steps: DataJobStepsTable;
  data_import_records: DataImportRecordsTable;
  data_import_ids: DataImportIdsTable;
  backend_access_rules: BackendAccessRulesTable;
  saved_queries: SavedQueriesTable;
}

/** A named way to import (migration 0230). */
export interface ImportSourcesTable {
  id: string;
  site_id: string;
  name: string;
  format: string;
  options: Json;
  key_digest: string | null;
  created_by: Json;
  created_at: Timestamp;
}

/** An import or export job (migration 0230). */
export interface DataJobsTable {
  id: string;
  site_id: string;
  kind: "import" | "export";
  source_id: string | null;
  state: string;
  position: number;
  cursor: Json;
  options: Json;
  plan: Json | null;
  counts: Json;
  problems: Json;
  file_bytes: number | string | null;
  file_sha256: string | null;
  file_parts: number | null;
  error: Json | null;
  busy_until: Timestamp | null;
  key_digest: string | null;
  created_by: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: Timestamp | null;
}

/** One part of a job's file (migration 0230). */
export interface DataJobPartsTable {
  job_id: string;
  file: "archive" | "export" | "receipt" | "problems";
  part: number;
  bytes: Uint8Array;
  sha256: string;
}

/** The job step a key started (migration 0230, MAPI-016). */
export interface DataJobStepsTable {
  job_id: string;
  key_digest: string;
  from_position: number;
  status: "running" | "done" | "errored";
  created_at: Timestamp;
}

/** One record of an import's archive, staged by its plan step (migration 0230). */
export interface DataImportRecordsTable {
  job_id: string;
  seq: number;
  type: string;
  record: Json;
}

/** What an import made of an archive's id (migration 0230). */
export interface DataImportIdsTable {
  job_id: string;
  old_id: string;
  new_id: string;
  kind: "model" | "media" | "entry";
}

/** A client registered for interactive login, loopback redirects only (migration 0180). */
export interface OAuthClientsTable {
  id: string;
  name: string;
  redirect_uris: Json;
  created_at: Timestamp;
}

/** The current refresh token of a sign-in, as a digest (migration 0180). */
export interface OAuthRefreshTokensTable {
  token_digest: string;
  credential_id: string;
  client_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface EntryReviewsTable {
  site_id: string;
  group_id: string;
  stage: "draft" | "in_review" | "changes_requested" | "approved";
  version_id: string | null;
  updated_at: Timestamp;
}

export interface EntryAssignmentsTable {
  site_id: string;
  group_id: string;
  assignee_id: string;
  assigned_by: string | null;
  assigned_at: Timestamp;
}

export interface SiteSettingsTable {
  site_id: string;
  key: string;
  document: Json;
  revision: number;
  updated_at: Timestamp;
  updated_by: string | null;
}

/** A proposed change to one language of an entry, pinned to a version (migration 0060). */
export interface EntryProposalsTable {
  id: string;
  site_id: string;
  group_id: string;
  entry_id: string;
  model_id: string;
  locale: string;
  base_version_id: string;
  fields: Json;
  original_fields: ColumnType<unknown, string | null, string | null>;
  note: string;
  source: Json;
  created_by: Json;
  state: "open" | "applied" | "dismissed";
  revision: number;
  applied_version_id: string | null;
  decided_by: ColumnType<unknown, string | null, string | null>;
  decided_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A proposed new model or model change, for a person to apply (migration 0060). */
export interface ModelProposalsTable {
  id: string;
  site_id: string;
  mode: "create" | "update";
  model_id: string | null;
  base_updated_at: Timestamp | null;
  definition: Json;
  note: string;
  source: Json;
  created_by: Json;
  state: "open" | "applied" | "dismissed";
  revision: number;
  applied_model_id: string | null;
  decided_by: ColumnType<unknown, string | null, string | null>;
  decided_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One person's working draft of an entry language: neither a version nor audited (migration 0060). */
export interface EntryDraftsTable {
  id: string;
  site_id: string;
  group_id: string;
  locale: string;
  holder_id: string;
  fields: Json;
  base_version_id: string | null;
  revision: number;
  taken_over_from: ColumnType<unknown, string | null, string | null>;
  taken_over_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One relation link: a target in a source group's relation field (per language when `localizedMembership`). */
export interface EntryLinksTable {
  site_id: string;
  source_group_id: string;
  field_id: string;
  field_key: string;
  /** Null unless the field keeps its list per language. */
  locale: string | null;
  target_group_id: string;
  target_model_id: string;
  position: number;
  /** True for one-to-one and one-to-many fields: a target has at most one holder. */
  exclusive: boolean;
  created_at: Timestamp;
}

/** A unique value (or combination of values) held by one group, per model or language. */
export interface EntryUniqueClaimsTable {
  site_id: string;
  model_id: string;
  /** `""` for model scope, else the language. */
  scope_locale: string;
  /** `field:<key>` or `combination:<name>`. */
  key_name: string;
  value_digest: string;
  group_id: string;
  created_at: Timestamp;
}

/** The one logical entry of a single-entry model, counting Trash. */
export interface EntrySingleClaimsTable {
  site_id: string;
  model_id: string;
  group_id: string;
  created_at: Timestamp;
}

/** One published item as a requested language serves it, resolved through the locale policy (migration 0080). */
export interface PublicItemsTable {
  site_id: string;
  model_id: string;
  group_id: string;
  requested_locale: string;
  entry_id: string;
  served_locale: string;
  slug: string;
  version_id: string;
  version_number: number;
  published_at: Timestamp;
  fields: Json;
  /** Every published language of the group with its slug, `[{ locale, slug }]` by locale (migration 0238). */
  alternates: Json;
}

/** A group's place in its model's collection-wide editorial order. */
export interface PublicManualOrderTable {
  site_id: string;
  model_id: string;
  group_id: string;
  position: number;
}

/** Bumped on every change of a model's manual order, so old cursors are refused. */
export interface PublicManualOrderRevisionsTable {
  site_id: string;
  model_id: string;
  revision: number;
}

/** A site API token: only its SHA-256 digest is stored, with the model ids it may read. */
export interface SiteApiTokensTable {
  id: string;
  site_id: string;
  name: string;
  model_ids: Json;
  digest: string;
  created_at: Timestamp;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

/** A deployed API read token, by digest (migration 0242). */
export interface DeployedReadTokensTable {
  id: string;
  site_id: string;
  name: string;
  model_ids: Json;
  digest: string;
  replaces: string | null;
  created_by: string | null;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  revoked_by: string | null;
}

/** A site's front-end preview address (migration 0243). */
export interface SitePreviewAddressesTable {
  site_id: string;
  url: string;
  updated_by: string | null;
  updated_at: Timestamp;
}

/** A preview token for the current draft of one item, by digest. */
export interface PreviewTokensTable {
  digest: string;
  site_id: string;
  group_id: string;
  created_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  /** Set when the link carries the related-draft grant (migration 0241). */
  draft_grant_id: Generated<string | null>;
}

/** A source site's grant projecting one content type's published public items to a grantee (migration 0241). */
export interface SharedContentGrantsTable {
  id: string;
  source_site_id: string;
  grantee_site_id: string;
  model_id: string;
  created_by: string | null;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  revoked_by: string | null;
}

/** Moves with every change to what a public read's context is made of (migration 0236). */
export interface PublicContextRevisionsTable {
  site_id: string;
  revision: number;
}

/** The browser origins allowed to read a site's public API cross-origin. */
export interface SiteBrowserOriginsTable {
  site_id: string;
  origins: Json;
  updated_at: Timestamp;
}

/** Per-site sync sequence: last number given out and highest pruned (migration 0090). */
export interface SyncSitesTable {
  site_id: string;
  last_seq: number;
  pruned_through: number;
}

/** One ordered change of what a language instance serves (migration 0090). */
export interface SyncChangesTable {
  site_id: string;
  seq: number;
  group_id: string;
  model_id: string;
  locale: string;
  kind: "upsert" | "delete";
  created_at: Timestamp;
}

/** What the change log last recorded for one language instance (migration 0090). */
export interface SyncEntryStateTable {
  site_id: string;
  group_id: string;
  locale: string;
  model_id: string;
  fingerprint: string;
}

/** One searchable live language instance (migration 0090); tsvector columns are written with SQL. */
export interface SearchDocumentsTable {
  site_id: string;
  entry_id: string;
  group_id: string;
  model_id: string;
  locale: string;
  slug: string;
  published_at: Timestamp;
  title: string;
  summary: string;
  is_english: boolean;
  field_words: Json;
  field_stems: Json;
  title_words: string;
  words: unknown;
  stems: unknown;
  parts: unknown;
}

/** One word of a search document's title (migration 0239); a trigger on the document writes it. */
export interface SearchTitleWordsTable {
  site_id: string;
  locale: string;
  word: string;
  published_at: Timestamp;
  entry_id: string;
}

/** One menu of the site chrome (migration 0090); `items` as `core/chrome/menus.ts` describes. */
export interface SiteMenusTable {
  site_id: string;
  key: string;
  items: Json;
  updated_at: Timestamp;
}

/**
 * A typed scalar of one published item (migration 0100): one row per top-level JSON number or
 * string of `public_items.fields`; written with its `public_items` row.
 * Sorted lists range-scan it instead of sorting JSON. Queried with raw SQL.
 */
export interface PublicItemValuesTable {
  site_id: string;
  model_id: string;
  requested_locale: string;
  group_id: string;
  field_key: string;
  num_value: string | null;
  /** A string value, or the first 255 characters of a longer one (migration 0237). */
  text_value: string | null;
  /** The instant of a string value that reads as an RFC 3339 timestamp (migration 0237). */
  time_value: Date | null;
  /**
   * The item's short top-level values (migration 0120; `facetsOf` in core/public/projection.ts),
   * the same on every row of the item; NULL when too long.
   */
  facets: Json | null;
}

/** A folder of a site's media library (migration 0150). */
export interface MediaFoldersTable {
  id: string;
  site_id: string;
  parent_id: string | null;
  name: string;
  revision: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One media library item (migration 0150). */
export interface MediaFilesTable {
  id: string;
  site_id: string;
  folder_id: string | null;
  kind: "image" | "document" | "audio" | "video" | "file";
  object_id: string;
  storage_key: string;
  file_name: string;
  mime_type: string;
  format: string;
  byte_length: number | string;
  width: number | null;
  height: number | null;
  aspect_ratio: string | null;
  digest: string;
  alt_texts: Json;
  default_focal: Json | null;
  loading: "eager" | "lazy";
  fetch_priority: "high" | "low" | "auto";
  tags: Json;
  credit: string | null;
  attribution: Json | null;
  external: boolean;
  /** A reference item's delivery URL on the source's declared origin (migration 0233). */
  external_url: string | null;
  /** A reference item's identity: `{ installation_id, plugin_id, source_id, item_id }`. */
  external_source: Json | null;
  edited_from: string | null;
  revision: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** An image's ThumbHash (base64), null for other kinds or where it could not be made (migration 0257). */
  placeholder: ColumnType<
    string | null,
    string | null | undefined,
    string | null
  >;
  /** An image's dominant colour as `#rrggbb` (migration 0257). */
  dominant_color: ColumnType<
    string | null,
    string | null | undefined,
    string | null
  >;
}

/** A per-language override of a media item's original (migration 0150). */
export interface MediaOriginalsTable {
  site_id: string;
  media_id: string;
  lang: string;
  object_id: string;
  storage_key: string;
  mime_type: string;
  format: string;
  byte_length: number | string;
  width: number | null;
  height: number | null;
  created_at: Timestamp;
}

/** A stored object still to delete (migration 0150). */
export interface MediaCleanupTable {
  storage_key: string;
  site_id: string;
  since: Timestamp;
  attempts: number;
}

/** The answer of a keyed media write (migration 0150). */
export interface MediaWritesTable {
  site_id: string;
  key_digest: string;
  answer: Json;
  created_at: Timestamp;
}

/** One plugin on one site (migration 0140): token digests only, the pinned manifest and the grant. */
export interface PluginInstallationsTable {
  id: string;
  site_id: string;
  plugin_id: string;
  name: string;
  version: string;
  protocol_version: number;
  state: "pending" | "active" | "disabled" | "revoked";
  token_hash: string | null;
  previous_token_hash: string | null;
  previous_token_expires_at: Timestamp | null;
  grant_capabilities: Json;
  grant_model_ids: Json;
  manifest: Json;
  manifest_url: string;
  installed_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  revoked_at: Timestamp | null;
  /** Policy id to the mode an administrator chose (migration 0234); others run as declared. */
  policy_modes: ColumnType<unknown, string | undefined, string>;
}

/** A delegation: who a plugin acts for, identity only (migration 0140, spec 1 part 2.4). */
export interface PluginDelegationsTable {
  id: string;
  site_id: string;
  installation_id: string;
  source: "launch" | "invocation";
  user_id: string;
  user_email: string;
  action: string;
  view: string | null;
  instance_id: string | null;
  group_id: string | null;
  model_ids: Json;
  invocation_id: string | null;
  /** The credential's scope-derived capabilities; null for a person's own launch. */
  capabilities: Json | null;
  created_at: Timestamp;
}

/** One outbound lifecycle notification, queued in the effect's transaction (migration 0140). */
export interface PluginNotificationsTable {
  id: string;
  site_id: string;
  installation_id: string;
  event: string;
  payload: Json;
  status: "pending" | "delivered" | "failed";
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  last_code: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One run of a plugin operation; input and answer are kept as digests only. */
export interface PluginInvocationsTable {
  id: string;
  site_id: string;
  installation_id: string;
  operation_id: string;
  scope: "site" | "entry" | "page";
  caller_id: string;
  caller_via: string;
  model_id: string | null;
  group_id: string | null;
  instance_id: string | null;
  input_digest: string;
  status: "sent" | "exchanged" | "completed" | "refused" | "failed";
  outcome: string | null;
  answer_digest: string | null;
  delegation_id: string | null;
  created_at: Date;
  exchanged_at: Date | null;
  finished_at: Date | null;
  /** The exchange's request and answer in bytes (migration 0235); null before it. */
  exchange_bytes: ColumnType<
    number | null,
    number | null | undefined,
    number | null
  >;
}

/** A page address waiting for its language's next publication; null removes the address. */
export interface PagePendingAddressesTable {
  entry_id: string;
  site_id: string;
  version_id: string;
  address: string | null;
  created_at: Date;
}

/** A visitor's comment on a published item; only `approved` ones are served. */
export interface CommentsTable {
  id: string;
  site_id: string;
  model_id: string;
  item_id: string;
  locale: string;
  parent_id: string | null;
  author: string;
  body: string;
  status: "pending" | "approved" | "rejected";
  /** SHA-256 of the visitor's idempotency key. */
  key_digest: string;
  /** SHA-256 of the canonical comment, to tell a replay from a reuse. */
  values_digest: string;
  up: Generated<number>;
  down: Generated<number>;
  created_at: Date;
  moderated_at: Date | null;
  moderated_by: string | null;
}

/** One visitor's reaction to a comment, by a digest of the visitor's own key. */
export interface CommentReactionsTable {
  comment_id: string;
  visitor_digest: string;
  reaction: "up" | "down";
}

/** A visitor's form submission; `values` never holds the honeypot. */
export interface FormSubmissionsTable {
  id: string;
  site_id: string;
  page_id: string;
  locale: string;
  section: string;
  /** SHA-256 of the visitor's idempotency key. */
  key_digest: string;
  /** SHA-256 of the canonical values, consent and file list, to tell a replay from a reuse. */
  values_digest: string;
  values: unknown;
  consent: boolean;
  created_at: Date;
  expires_at: Date;
}

/** A file sent with a submission; `storage_key` is never answered. */
export interface FormAttachmentsTable {
  id: string;
  site_id: string;
  submission_id: string;
  field: string;
  position: number;
  name: string;
  type: string;
  size: number;
  storage_key: string;
}

/** Who may call one generated-backend operation of a model (migration 0240). */
export interface BackendAccessRulesTable {
  site_id: string;
  model_id: string;
  operation: string;
  audience: string;
  role_ids: Json;
  updated_at: Timestamp;
}

/** A named query of one model, optionally served on a declarative route (migration 0240). */
export interface SavedQueriesTable {
  id: string;
  site_id: string;
  model_id: string;
  name: string;
  slug: string;
  select_fields: Json;
  filter: Json;
  order_by: Json;
  take: number;
  route_audience: string | null;
  route_role_ids: Json;
  revision: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A checked template candidate; its files live under TEMPLATE_ARTIFACTS (migration 0267). */
export interface TemplateCandidatesTable {
  id: string;
  site_id: string;
  digest: string;
  name: string;
  manifest: Json;
  sections: Json;
  contract: number;
  origin: string;
  build_id: string;
  sandbox_image: string;
  source_digest: string;
  compiled_digest: string;
  report_digest: string;
  created_by: string | null;
  created_at: Timestamp;
}

/** One acceptance of a template on a site, in order (migration 0267). */
export interface TemplateAcceptancesTable {
  site_id: string;
  sequence: number;
  candidate_id: string;
  accepted_by: string | null;
  accepted_at: Timestamp;
}

/** A promoted, immutable version of a registered section (migration 0267). */
export interface RegisteredSectionVersionsTable {
  site_id: string;
  key: string;
  version: number;
  identity: string;
  digest: string;
  definition: Json;
  candidate_id: string;
  promoted_at: Timestamp;
}

/** A managed renderer release (migration 0268). */
export interface ManagedReleasesTable {
  site_id: string;
  number: number;
  candidate_id: string;
  state: "proven" | "active" | "retired";
  origin: string;
  installation_id: string;
  digest: string;
  signature: string;
  prepared_at: Timestamp;
  activated_at: Timestamp | null;
  retired_at: Timestamp | null;
}

/** The host serving a site, and the previous one kept for going back (migration 0268). */
export interface ManagedAddressesTable {
  site_id: string;
  host: string;
  role: "active" | "previous";
  switched_at: Timestamp;
  rollback_until: Timestamp | null;
}
