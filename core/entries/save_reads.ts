// What a save into an existing group reads under the group's lock, in the statement that reads its languages.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import {
  keepModelRead,
  modelJsonOf,
  modelJsonWanted,
} from "../models/store_rows.ts";
import { prebuilt } from "../db/prebuilt.ts";
import { settingsFromRow, settingsHeld } from "../sites/settings.ts";
import {
  entriesWithLanguages,
  type GroupRow,
  type InstanceRow,
} from "./store.ts";
import { ENTRIES_COLUMNS } from "../db/row_columns.ts";

/** The group's languages, with what the save's later steps would each have read on their own. */
export interface SaveReads {
  instances: InstanceRow[];
  /** Whether the site has the saved language; undefined when no language carried the answer. */
  languageKnown?: boolean;
  /** The saved language's current values (undefined: no language carried them). */
  before?: Record<string, unknown>;
}

/**
 * The group's languages as `readInstances` reads them, each row carrying whether the site has
 * `locale`, the current values of the language `locale` names, the group's model (kept for the
 * command's later steps) and, for a save that validates, the site's editorial document (kept
 * too). A group without languages carries nothing: its save reads those on its own.
 */
export async function readForSave(
  tx: Db,
  group: GroupRow,
  options: { locale: string; validates: boolean },
): Promise<SaveReads> {
  const siteId = group.site_id;
  const ctx = { db: tx, siteId };
  const editorial = options.validates && !settingsHeld(ctx, "editorial");
  const model = modelJsonWanted(tx, siteId, group.model_id);
  const rows = await FOR_SAVE[model ? 1 : 0][editorial ? 1 : 0].rows(tx, {
    siteId,
    groupId: group.id,
    modelId: group.model_id,
    locale: options.locale,
  });
  const instances = rows.map((
    {
      v_fields: _fields,
      language_known: _known,
      model: _model,
      st_key: _key,
      st_document: _document,
      st_revision: _revision,
      st_updated_at: _updated,
      ...instance
    },
  ) => instance);
  const first = rows[0];
  if (!first) return { instances };
  keepRead(ctx, group.model_id, first, editorial);
  const saved = rows.find((row) => row.locale === options.locale);
  if (saved?.current_version_id && !saved.v_fields) {
    throw new Error(
      `Version "${saved.current_version_id}" of entry "${saved.id}" is missing`,
    );
  }
  return {
    instances,
    languageKnown: first.language_known,
    before: (saved?.v_fields ?? {}) as Record<string, unknown>,
  };
}

/**
 * What a save that creates a group reads before its checks, in one statement: whether the site
 * has `locale`, the model (kept for the command's later steps, which would each read it) and,
 * for a save that validates, the site's editorial document (kept too).
 */
export async function readForCreate(
  tx: Db,
  siteId: string,
  options: { modelId: string; locale: string; validates: boolean },
): Promise<Pick<SaveReads, "languageKnown" | "before">> {
  const ctx = { db: tx, siteId };
  const editorial = options.validates && !settingsHeld(ctx, "editorial");
  const model = modelJsonWanted(tx, siteId, options.modelId);
  const rows = await FOR_CREATE[model ? 1 : 0][editorial ? 1 : 0].rows(tx, {
    siteId,
    modelId: options.modelId,
    locale: options.locale,
  });
  const [row] = rows;
  keepRead(ctx, options.modelId, row, editorial);
  return { languageKnown: row.language_known };
}

/** The model, and with `editorial` the editorial document, a read carried: kept for the command. */
function keepRead(
  ctx: { db: Db; siteId: string },
  modelId: string,
  row: {
    model: unknown;
    st_key?: string | null;
    st_document?: unknown;
    st_revision?: number | null;
    st_updated_at?: Date | null;
  },
  editorial: boolean,
): void {
  keepModelRead(ctx.db, ctx.siteId, modelId, row.model);
  if (!editorial) return;
  settingsFromRow(
    ctx,
    "editorial",
    row.st_key == null ? undefined : {
      document: row.st_document,
      revision: row.st_revision!,
      updated_at: row.st_updated_at!,
    },
  );
}

/** The model's column, or null when the transaction read it already (see `modelJson`). */
function modelColumn(read: boolean, v: { siteId: string; modelId: string }) {
  return read ? modelJsonOf(v.siteId, v.modelId) : sql`null`;
}

/** {@linkcode readForSave}'s statement, by whether it reads the model, then the editorial document. */
const FOR_SAVE = [false, true].map((model) =>
  [false, true].map((editorial) =>
    prebuilt((
      db,
      v: { siteId: string; groupId: string; modelId: string; locale: string },
    ) =>
      entriesWithLanguages(db)
        .leftJoin(
          "entry_versions as v",
          (join) =>
            join.onRef("v.site_id", "=", "entries.site_id")
              .onRef("v.id", "=", "entries.current_version_id")
              .on("entries.locale", "=", v.locale),
        )
        .select([
          "v.fields as v_fields",
          sql<boolean>`exists (select from site_languages l
            where l.site_id = ${v.siteId} and l.code = ${v.locale})`
            .as("language_known"),
          modelColumn(model, v).as("model"),
        ])
        .$if(editorial, (query) =>
          query.leftJoin(
            "site_settings as st",
            (join) =>
              join.onRef("st.site_id", "=", "entries.site_id")
                .on("st.key", "=", "editorial"),
          ).select([
            "st.key as st_key",
            "st.document as st_document",
            "st.revision as st_revision",
            "st.updated_at as st_updated_at",
          ]))
        .select(ENTRIES_COLUMNS)
        .where("entries.site_id", "=", v.siteId)
        .where("entries.group_id", "=", v.groupId)
        .orderBy("site_languages.position")
    )
  )
);

/** {@linkcode readForCreate}'s statement, by whether it reads the model, then the editorial document. */
const FOR_CREATE = [false, true].map((model) =>
  [false, true].map((editorial) =>
    prebuilt((_db, v: { siteId: string; modelId: string; locale: string }) =>
      sql<{
        language_known: boolean;
        model: unknown;
        st_key?: string | null;
        st_document?: unknown;
        st_revision?: number | null;
        st_updated_at?: Date | null;
      }>`select exists (select from site_languages l
          where l.site_id = ${v.siteId} and l.code = ${v.locale}) as language_known,
        ${modelColumn(model, v)} as model${
        editorial
          ? sql`, st.key as st_key, st.document as st_document,
            st.revision as st_revision, st.updated_at as st_updated_at
          from (values (1)) as one (n)
          left join site_settings st on st.site_id = ${v.siteId} and st.key = 'editorial'`
          : sql``
      }`
    )
  )
);
