// The plugin API's view of one item: its instance, group and languages in the installation's
// scope, with the delegation and review facts its commands check, read in one statement.

import type { Db } from "../db/database.ts";

import { type ReviewState, reviewStateOf } from "../entries/review_state.ts";
import { type GroupRow, type InstanceRow, isId } from "../entries/store.ts";

import { type PluginRefusal, pluginRefusal } from "./api_support.ts";
import {
  delegationFromJson,
  delegationJson,
  type DelegationRow,
} from "./delegations.ts";
import type { Installation } from "./installation_store.ts";
import { ENTRIES_COLUMNS } from "../db/row_columns.ts";
import { prebuilt } from "../db/prebuilt.ts";

const NOT_FOUND = pluginRefusal(
  "content_not_found",
  "No such content in scope",
);

/** An instance and its translation group, in the installation's scope. */
export interface ScopedItem {
  instance: InstanceRow;
  group: GroupRow;
  instances: InstanceRow[];
  /** The group's review state, when asked for with the item (`review: true`). */
  review?: ReviewState;
  /** The delegation asked for with the item (`delegationId`), as read in its statement. */
  delegation?: { id: string; row: DelegationRow | undefined };
}

/**
 * The instance on the installation's site whose model is granted, or `content_not_found`.
 * With `review`, the group's review state is read in the same statement.
 */
export async function scopedItem(
  db: Db,
  installation: Installation,
  instanceId: string,
  options: { review?: boolean; delegationId?: string } = {},
): Promise<ScopedItem | PluginRefusal> {
  if (!isId(instanceId)) return NOT_FOUND;
  const siteId = installation.siteId;
  // The instance, its group and the group's languages in one statement: every language of the
  // instance's group with the group's columns beside it, in the site's language order.
  const delegated = options.delegationId !== undefined &&
    isId(options.delegationId);
  const rows = await ITEM[options.review === true ? 1 : 0][delegated ? 1 : 0]
    .rows(db, {
      siteId,
      instanceId,
      delegationId: delegated ? options.delegationId : undefined,
    });
  const found = rows.find((r) => r.id === instanceId);
  if (!found || !installation.modelIds.includes(found.model_id)) {
    return NOT_FOUND;
  }
  const group: GroupRow = {
    id: found.g_id,
    site_id: found.g_site_id,
    model_id: found.g_model_id,
    primary_entry_id: found.g_primary_entry_id,
    created_by: found.g_created_by,
    revision: found.g_revision,
    current_version_id: found.g_current_version_id,
    trashed_at: found.g_trashed_at,
    created_at: found.g_created_at,
    updated_at: found.g_updated_at,
  };
  const instanceOf = (row: typeof found): InstanceRow => {
    const {
      d_json: _delegation,
      st_key: _key,
      st_document: _document,
      st_revision: _settingsRevision,
      st_updated_at: _settingsUpdated,
      r_stage: _stage,
      r_version_id: _version,
      r_group_id: _group,
      l_position: _position,
      g_id: _id,
      g_site_id: _site,
      g_model_id: _model,
      g_primary_entry_id: _primary,
      g_created_by: _by,
      g_revision: _revision,
      g_current_version_id: _current,
      g_trashed_at: _trashed,
      g_created_at: _created,
      g_updated_at: _updated,
      ...instance
    } = row;
    return instance;
  };
  // A language the site no longer has is no instance of the group (as readInstances reads it).
  const instances = rows.filter((r) => r.l_position !== null).map(instanceOf);
  const item: ScopedItem = { instance: instanceOf(found), group, instances };
  if (options.delegationId !== undefined && isId(options.delegationId)) {
    item.delegation = {
      id: options.delegationId,
      row: delegationFromJson(found.d_json),
    };
  }
  if (options.review) {
    item.review = reviewStateOf({ db, siteId }, {
      settings_key: found.st_key ?? null,
      document: found.st_document,
      revision: found.st_revision ?? null,
      updated_at: found.st_updated_at ?? null,
      stage: found.r_stage ?? null,
      version_id: found.r_version_id ?? null,
      group_id: found.r_group_id ?? null,
      current_version_id: group.current_version_id,
    });
  }
  return item;
}

/** One content summary as `/content` lists it. */

/**
 * {@linkcode scopedItem}'s statement, by whether it reads the review state, then by whether it
 * reads a delegation.
 */
const ITEM = [false, true].map((review) =>
  [false, true].map((delegated) =>
    prebuilt((
      db,
      v: { siteId: string; instanceId: string; delegationId?: string },
    ) =>
      db.selectFrom("entries")
        .innerJoin(
          "entry_groups as g",
          (join) =>
            join.onRef("g.site_id", "=", "entries.site_id").onRef(
              "g.id",
              "=",
              "entries.group_id",
            ),
        )
        .leftJoin(
          "site_languages as sl",
          (join) =>
            join.onRef("sl.site_id", "=", "entries.site_id").onRef(
              "sl.code",
              "=",
              "entries.locale",
            ),
        )
        .select(ENTRIES_COLUMNS)
        .select([
          "sl.position as l_position",
          "g.id as g_id",
          "g.site_id as g_site_id",
          "g.model_id as g_model_id",
          "g.primary_entry_id as g_primary_entry_id",
          "g.created_by as g_created_by",
          "g.revision as g_revision",
          "g.current_version_id as g_current_version_id",
          "g.trashed_at as g_trashed_at",
          "g.created_at as g_created_at",
          "g.updated_at as g_updated_at",
        ])
        .$if(review, (query) =>
          query.leftJoin(
            "site_settings as st",
            (join) =>
              join.onRef("st.site_id", "=", "entries.site_id")
                .on("st.key", "=", "editorial"),
          ).leftJoin(
            "entry_reviews as r",
            (join) =>
              join.onRef("r.site_id", "=", "entries.site_id")
                .onRef("r.group_id", "=", "entries.group_id"),
          ).select([
            "st.key as st_key",
            "st.document as st_document",
            "st.revision as st_revision",
            "st.updated_at as st_updated_at",
            "r.stage as r_stage",
            "r.version_id as r_version_id",
            "r.group_id as r_group_id",
          ]))
        .$if(delegated, (query) =>
          query.select(
            delegationJson(v.siteId, v.delegationId!).as("d_json"),
          ))
        .where("entries.site_id", "=", v.siteId)
        .where(
          "entries.group_id",
          "=",
          (eb) =>
            eb.selectFrom("entries").select("group_id")
              .where("site_id", "=", v.siteId).where("id", "=", v.instanceId),
        )
        .orderBy("sl.position")
    )
  )
);
