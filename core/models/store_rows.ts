// Reads and writes the rows of models, their fields and their retained keys.
import { type RawBuilder, sql } from "kysely";
import type { Actor } from "../access/actor.ts";
import type { Db } from "../db/database.ts";
import { transactionMemo } from "../db/transaction_memo.ts";
import type { RetainedKey } from "./change_safety.ts";
import {
  type ModelDefinition,
  type ModelInfo,
  walkFields,
} from "./definition.ts";
import { type FieldDefinition, UUID } from "./field_types.ts";
import { MODEL_COLUMNS } from "../db/row_columns.ts";

/** Who writes, and the digest of the idempotency key the write runs under (if any). */
export interface ModelRecord {
  actor: Actor;
  keyDigest: string | null;
}

/** A saved model: its definition, identity, revision and folder label. */
export interface StoredModel extends ModelInfo {
  id: string;
  folder: string | null;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
  /** Fields in order; every field, nested ones too, carries its id. */
  fields: FieldDefinition[];
}

/** The services' context: which database, which clock, which site. */
export interface ModelContext {
  db: Db;
  clock: { now(): Date };
  siteId: string;
  /**
   * Who writes and under which idempotency key: a write then records its answer in an audit
   * entry in its own transaction (model_record.ts). Absent: no audit entry.
   */
  record?: ModelRecord;
}

/** Loads the live models of a site (all, or those with the given ids); `lock` takes row locks. */
export async function loadModels(
  db: Db,
  siteId: string,
  ids: string[] | null,
  lock = false,
): Promise<StoredModel[]> {
  let query = db.selectFrom("models").select(MODEL_COLUMNS).where(
    "site_id",
    "=",
    siteId,
  )
    .where("deleted_at", "is", null);
  if (ids) {
    if (ids.length === 0) return [];
    query = query.where("id", "in", ids);
  }
  if (!lock) {
    // The fields ride along as JSON: one statement per read instead of two.
    const rows = await query.select(
      sql<
        FieldRowLike[] | string
      >`(select coalesce(json_agg(f order by f.position), '[]'::json)
        from model_fields f where f.site_id = models.site_id and f.model_id = models.id)`
        .as("field_rows"),
    ).execute();
    return rows.map(({ field_rows, ...row }) =>
      toStoredModel(
        row,
        typeof field_rows === "string" ? JSON.parse(field_rows) : field_rows,
      )
    );
  }
  // Locked (a model's writer): the fields are read after the lock is held, so a writer that
  // waited for it sees the fields the one before it committed.
  const rows = await query.forUpdate().execute();
  if (rows.length === 0) return [];
  const fieldRows = await db.selectFrom("model_fields").selectAll()
    .where("site_id", "=", siteId)
    .where("model_id", "in", rows.map((r) => r.id))
    .orderBy("model_id").orderBy("position").execute();
  return rows.map((row) =>
    toStoredModel(row, fieldRows.filter((f) => f.model_id === row.id))
  );
}

// An entry command reads its model for validation, its rules and the search index: one read
// per transaction serves them all. Writers of models forget them (forgetModelsRead).
const modelsRead = transactionMemo<StoredModel | undefined>();

/**
 * One live model by id, read once per transaction (outside a transaction, every call reads).
 * `modelId` must be a UUID.
 */
export function loadModelOnce(
  db: Db,
  siteId: string,
  modelId: string,
): Promise<StoredModel | undefined> {
  return modelsRead.once(
    db,
    `${siteId}/${modelId}`,
    async () => (await loadModels(db, siteId, [modelId]))[0],
  );
}

/** The memo key of a model, as getModelOnce asks for it (ids in lower case). */
function modelKey(siteId: string, modelId: string): string {
  return `${siteId}/${modelId.toLowerCase()}`;
}

/**
 * The live model `modelId` (a UUID) with its fields, as one JSON value (null: none): a column
 * another statement of an entry command reads alongside its own. Null too when this transaction
 * read the model already, so every step keeps seeing that one.
 */
export function modelJson(
  db: Db,
  siteId: string,
  modelId: string,
): RawBuilder<unknown> {
  return modelJsonWanted(db, siteId, modelId)
    ? modelJsonOf(siteId, modelId)
    : sql`null`;
}

/**
 * Whether a {@linkcode modelJson} column would read the model (false: it would be null), for a
 * prebuilt statement that holds one shape with {@linkcode modelJsonOf} and one without.
 */
export function modelJsonWanted(
  db: Db,
  siteId: string,
  modelId: string,
): boolean {
  return UUID.test(modelId) && !modelsRead.holds(db, modelKey(siteId, modelId));
}

/** {@linkcode modelJson}'s column when it reads the model. */
export function modelJsonOf(
  siteId: string,
  modelId: string,
): RawBuilder<unknown> {
  return sql`(select json_build_object('row', to_json(m), 'fields',
      (select coalesce(json_agg(f order by f.position), '[]'::json)
        from model_fields f where f.site_id = m.site_id and f.model_id = m.id))
    from models m
    where m.site_id = ${siteId} and m.id = ${modelId} and m.deleted_at is null)`;
}

/**
 * Keeps the model a {@linkcode modelJson} column answered for {@linkcode loadModelOnce} in this
 * transaction (nothing when the column was null because the model was read already).
 */
export function keepModelRead(
  db: Db,
  siteId: string,
  modelId: string,
  value: unknown,
): void {
  if (!UUID.test(modelId) || modelsRead.holds(db, modelKey(siteId, modelId))) {
    return;
  }
  const json = (typeof value === "string" ? JSON.parse(value) : value) as {
    row: ModelRowLike;
    fields: FieldRowLike[];
  } | null;
  modelsRead.keep(
    db,
    modelKey(siteId, modelId),
    json ? toStoredModel(json.row, json.fields) : undefined,
  );
}

/** Forgets the models {@linkcode loadModelOnce} read in this transaction: call after writing one. */
export function forgetModelsRead(db: Db): void {
  modelsRead.forget(db);
}

/** A model row as the database answers it, as a row or inside JSON (dates then as text). */
export interface ModelRowLike {
  id: string;
  name: string;
  slug: string;
  description: string;
  kind: StoredModel["kind"];
  is_public: boolean;
  enable_i18n: boolean;
  settings: unknown;
  folder: string | null;
  revision: number;
  created_at: Date | string;
  updated_at: Date | string;
}

/** A field row as the database answers it. */
export interface FieldRowLike {
  id: string;
  key: string;
  label: string;
  type: string;
  required: boolean;
  is_unique: boolean;
  is_private: boolean;
  localized: boolean;
  config: unknown;
  validation: unknown;
  derived?: unknown;
  ui?: unknown;
  visibility?: unknown;
}

/** The stored model of a model row and its field rows (in position order). */
export function toStoredModel(
  row: ModelRowLike,
  fieldRows: readonly FieldRowLike[],
): StoredModel {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    kind: row.kind,
    isPublic: row.is_public,
    enableI18n: row.enable_i18n,
    settings: row.settings as ModelInfo["settings"],
    folder: row.folder,
    revision: row.revision,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    fields: fieldRows.map((f) =>
      ({
        id: f.id,
        key: f.key,
        label: f.label,
        type: f.type,
        required: f.required,
        unique: f.is_unique,
        private: f.is_private,
        localized: f.localized,
        config: f.config,
        validation: f.validation,
        derived: f.derived ?? null,
        ui: f.ui ?? null,
        visibility: f.visibility ?? null,
      }) as FieldDefinition
    ),
  };
}

/** The definition a stored model was saved from (field ids included). */
export function definitionOf(model: StoredModel): ModelDefinition {
  const { name, slug, description, kind, isPublic, enableI18n, settings } =
    model;
  return {
    model: { name, slug, description, kind, isPublic, enableI18n, settings },
    fields: model.fields,
  };
}

/** Replaces the field rows of a model with `fields`, in order. */
export async function writeFields(
  db: Db,
  siteId: string,
  modelId: string,
  fields: readonly FieldDefinition[],
): Promise<void> {
  forgetModelsRead(db);
  await db.deleteFrom("model_fields").where("site_id", "=", siteId)
    .where("model_id", "=", modelId).execute();
  if (fields.length === 0) return;
  const json = (v: unknown) => v === null ? null : JSON.stringify(v);
  await db.insertInto("model_fields").values(fields.map((f, position) => ({
    id: f.id as string,
    site_id: siteId,
    model_id: modelId,
    key: f.key,
    position,
    type: f.type,
    label: f.label,
    required: f.required,
    is_unique: f.unique,
    is_private: f.private,
    localized: f.localized,
    config: JSON.stringify(f.config),
    validation: JSON.stringify(f.validation),
    derived: json(f.derived),
    ui: json(f.ui),
    visibility: json(f.visibility),
  }))).execute();
}

/** Records every key path of `fields` with its field id; paths already known are kept. */
export async function recordKeys(
  db: Db,
  siteId: string,
  modelId: string,
  fields: readonly FieldDefinition[],
  at: Date,
): Promise<void> {
  const rows: { key: string; field_id: string; field_type: string }[] = [];
  walkFields(
    fields,
    (f, key) =>
      rows.push({ key, field_id: f.id as string, field_type: f.type }),
  );
  if (rows.length === 0) return;
  await db.insertInto("model_field_keys")
    .values(
      rows.map((r) => ({
        ...r,
        site_id: siteId,
        model_id: modelId,
        recorded_at: at,
      })),
    )
    .onConflict((oc) => oc.columns(["model_id", "key", "field_id"]).doNothing())
    .execute();
}

/** Every key path a model has ever given a field. */
export async function loadRetainedKeys(
  db: Db,
  siteId: string,
  modelId: string,
): Promise<RetainedKey[]> {
  return await db.selectFrom("model_field_keys").select([
    "key",
    "field_id",
    "field_type",
  ])
    .where("site_id", "=", siteId).where("model_id", "=", modelId)
    .orderBy("key").orderBy("recorded_at").execute();
}

/** The refusal for a slug or name another live model of the site holds, if any. */
export async function findCollision(
  db: Db,
  siteId: string,
  info: Pick<ModelInfo, "slug" | "name">,
  exceptId: string | null,
): Promise<
  { ok: false; code: "model_slug_taken"; slug: string } | {
    ok: false;
    code: "model_name_collision";
    name: string;
  } | null
> {
  const rows = await db.selectFrom("models").select(["id", "slug", "name"])
    .where("site_id", "=", siteId).where("deleted_at", "is", null)
    .where((eb) =>
      eb.or([
        eb("slug", "=", info.slug),
        eb(eb.fn("lower", ["name"]), "=", info.name.toLowerCase()),
      ])
    )
    .execute();
  const others = rows.filter((r) => r.id !== exceptId);
  if (others.some((r) => r.slug === info.slug)) {
    return { ok: false, code: "model_slug_taken", slug: info.slug };
  }
  if (others.length > 0) {
    return { ok: false, code: "model_name_collision", name: info.name };
  }
  return null;
}

/** Maps a unique violation of the models table to its refusal; anything else is rethrown. */
export function collisionFromError(
  error: unknown,
  info: Pick<ModelInfo, "slug" | "name">,
) {
  const e = error as { code?: string; constraint?: string; message?: string };
  const about = `${e.constraint ?? ""} ${e.message ?? ""}`;
  if (e.code === "23505" && about.includes("models_site_slug")) {
    return {
      ok: false as const,
      code: "model_slug_taken" as const,
      slug: info.slug,
    };
  }
  if (e.code === "23505" && about.includes("models_site_name")) {
    return {
      ok: false as const,
      code: "model_name_collision" as const,
      name: info.name,
    };
  }
  throw error;
}

/** Relation targets that name no live model of the site, with their paths. */
export async function missingTargets(
  db: Db,
  siteId: string,
  fields: readonly FieldDefinition[],
  selfId: string | null,
): Promise<{ path: string; id: string }[]> {
  const wanted: { path: string; id: string }[] = [];
  const collect = (list: readonly FieldDefinition[], base: string) =>
    list.forEach((f, i) => {
      const at = `${base}[${i}]`;
      if (f.type === "relation") {
        f.config.targets.forEach((id, j) =>
          wanted.push({ path: `${at}.config.targets[${j}]`, id })
        );
      }
      if (f.type === "component") {
        collect(f.config.fields, `${at}.config.fields`);
      }
    });
  collect(fields, "fields");
  const ids = [...new Set(wanted.map((w) => w.id.toLowerCase()))].filter((id) =>
    id !== selfId
  );
  if (ids.length === 0) return [];
  const found = await db.selectFrom("models").select("id").where(
    "site_id",
    "=",
    siteId,
  )
    .where("deleted_at", "is", null).where("id", "in", ids).execute();
  const live = new Set(found.map((r) => r.id));
  if (selfId) live.add(selfId);
  return wanted.filter((w) => !live.has(w.id.toLowerCase()));
}
