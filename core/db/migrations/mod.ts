// The ordered list of forward-only migrations; add a file and append it here.
import type { Migration } from "kysely/migration";
import * as m0001 from "./0001_platform.ts";
import * as m0010 from "./0010_models.ts";
import * as m0020 from "./0020_access.ts";
import * as m0030 from "./0030_entries.ts";
import * as m0040 from "./0040_site_settings.ts";
import * as m0050 from "./0050_entry_links.ts";
import * as m0060 from "./0060_proposals_drafts.ts";
import * as m0070 from "./0070_review.ts";
import * as m0080 from "./0080_public_read.ts";
import * as m0090 from "./0090_sync_search.ts";
import * as m0100 from "./0100_public_read_speed.ts";
import * as m0110 from "./0110_search_speed.ts";
import * as m0120 from "./0120_public_item_facets.ts";
import * as m0150 from "./0150_media.ts";
import * as m0140 from "./0140_plugins.ts";
import * as m0180 from "./0180_oauth.ts";
import * as m0170 from "./0170_form_submissions.ts";
import * as m0190 from "./0190_plugin_invocations.ts";
import * as m0220 from "./0220_page_addresses.ts";
import * as m0221 from "./0221_comments.ts";
import * as m0222 from "./0222_delegation_capabilities.ts";
import * as m0230 from "./0230_data_jobs.ts";
import * as m0231 from "./0231_admin_list_indexes.ts";
import * as m0232 from "./0232_entry_list_titles.ts";
import * as m0233 from "./0233_media_source_references.ts";
import * as m0234 from "./0234_plugin_policy_modes.ts";
import * as m0235 from "./0235_invocation_exchange_bytes.ts";
import * as m0236 from "./0236_public_context_revisions.ts";
import * as m0237 from "./0237_public_sort_keys.ts";
import * as m0238 from "./0238_public_item_alternates.ts";
import * as m0239 from "./0239_search_title_words.ts";
import * as m0240 from "./0240_backend_access.ts";
import * as m0241 from "./0241_public_grants.ts";
import * as m0242 from "./0242_deployed_read_tokens.ts";
import * as m0243 from "./0243_site_preview_addresses.ts";
import * as m0257 from "./0257_media_placeholders.ts";
import * as m0267 from "./0267_managed_templates.ts";
import * as m0268 from "./0268_managed_releases.ts";
import * as m0269 from "./0269_change_announcements.ts";
import * as m0270 from "./0270_drop_entry_groups_site_model.ts";
import * as m0271 from "./0271_notification_lanes.ts";

/** Every migration by name, applied in name order. */
export const migrations: Record<string, Migration> = {
  "0001_platform": m0001,
  "0010_models": m0010,
  "0020_access": m0020,
  "0030_entries": m0030,
  "0040_site_settings": m0040,
  "0050_entry_links": m0050,
  "0060_proposals_drafts": m0060,
  "0070_review": m0070,
  "0080_public_read": m0080,
  "0090_sync_search": m0090,
  "0100_public_read_speed": m0100,
  "0110_search_speed": m0110,
  "0120_public_item_facets": m0120,
  "0150_media": m0150,
  "0140_plugins": m0140,
  "0180_oauth": m0180,
  "0170_form_submissions": m0170,
  "0190_plugin_invocations": m0190,
  "0220_page_addresses": m0220,
  "0221_comments": m0221,
  "0222_delegation_capabilities": m0222,
  "0230_data_jobs": m0230,
  "0231_admin_list_indexes": m0231,
  "0232_entry_list_titles": m0232,
  "0233_media_source_references": m0233,
  "0234_plugin_policy_modes": m0234,
  "0235_invocation_exchange_bytes": m0235,
  "0236_public_context_revisions": m0236,
  "0237_public_sort_keys": m0237,
  "0238_public_item_alternates": m0238,
  "0239_search_title_words": m0239,
  "0240_backend_access": m0240,
  "0241_public_grants": m0241,
  "0242_deployed_read_tokens": m0242,
  "0243_site_preview_addresses": m0243,
  "0257_media_placeholders": m0257,
  "0267_managed_templates": m0267,
  "0268_managed_releases": m0268,
  "0269_change_announcements": m0269,
  "0270_drop_entry_groups_site_model": m0270,
  "0271_notification_lanes": m0271,
};
