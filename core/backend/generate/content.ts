// The seed of a generated backend: the content published on the site when it was generated, as
// rows of the generated tables. A row's id is the entry's id on the site, so relation ids
// carry over unchanged; per-language values become translation rows, list relations junction
// rows in their stored order.
import type { Db } from "../../db/database.ts";
import { jsonColumn } from "../../db/json_column.ts";
import { deliveryUrl } from "../../media/items.ts";
import type { StoredModel } from "../../models/store_rows.ts";
import type { GenerationProblem } from "./plan.ts";
import type { ModelSpec } from "./template/src/schema.ts";
import type { Seed } from "./template/src/migrate.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An entry group's model and its published version per language. */
interface Published {
  modelId: string;
  versions: Map<string, Record<string, unknown>>;
}

/** The published language versions of each entry group of the given models. */
async function publishedVersions(
  db: Db,
  siteId: string,
  modelIds: string[],
): Promise<Map<string, Published>> {
  const byGroup = new Map<string, Published>();
  if (modelIds.length === 0) return byGroup;
  const rows = await db.selectFrom("entries as e")
    .innerJoin("entry_versions as v", "v.id", "e.published_version_id")
    .innerJoin("entry_groups as g", "g.id", "e.group_id")
    .select(["e.group_id", "e.locale", "v.fields", "e.model_id"])
    .where("e.site_id", "=", siteId).where("e.model_id", "in", modelIds)
    .where("g.trashed_at", "is", null)
    .orderBy("e.group_id").orderBy("e.locale").execute();
  for (const row of rows) {
    const group = byGroup.get(row.group_id) ??
      { modelId: row.model_id, versions: new Map() };
    group.versions.set(
      row.locale,
      jsonColumn<Record<string, unknown>>(row.fields),
    );
    byGroup.set(row.group_id, group);
  }
  return byGroup;
}

function refId(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "id" in value) {
    return String((value as { id: unknown }).id);
  }
  return null;
}

/** Whether a value holds a shared section reference (`shared: { entry }`), anywhere below. */
function holdsSharedReference(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsSharedReference);
  if (!value || typeof value !== "object") return false;
  const record = value as Record<string, unknown>;
  if (record.shared && typeof record.shared === "object") return true;
  return Object.values(record).some(holdsSharedReference);
}

/** What {@link seedOf} needs. */
export interface SeedOptions {
  db: Db;
  siteId: string;
  publicUrl: string;
  locales: string[];
  defaultLocale: string;
}

/** The seed rows, or the problems of the published content. */
export async function seedOf(
  options: SeedOptions,
  stored: readonly StoredModel[],
  specs: readonly ModelSpec[],
): Promise<{ seed: Seed; problems: GenerationProblem[] }> {
  const { db, siteId } = options;
  const problems: GenerationProblem[] = [];
  const groups = await publishedVersions(db, siteId, stored.map((m) => m.id));
  const media = await mediaFacts(options);
  const tables: Seed["tables"] = [];
  const junctionTables: Seed["tables"] = [];
  const translationTables: Seed["tables"] = [];
  for (const [i, model] of stored.entries()) {
    const spec = specs[i];
    const rows: Record<string, unknown>[] = [];
    const translations: Record<string, unknown>[] = [];
    const junctionRows = new Map<string, Record<string, unknown>[]>();
    for (const [groupId, { modelId, versions }] of groups) {
      if (modelId !== model.id) continue;
      const base = versions.get(options.defaultLocale) ??
        versions.values().next().value!;
      const row: Record<string, unknown> = { id: groupId };
      for (const field of model.fields) {
        const value = base[field.key] ?? null;
        if (field.type === "json" || field.type === "component") {
          for (const v of versions.values()) {
            if (holdsSharedReference(v[field.key])) {
              problems.push({
                code: "shared_references_require_live_delivery",
                model: model.slug,
                field: field.key,
                message:
                  `Entry ${groupId} shows a shared section, which only live delivery serves`,
              });
              break;
            }
          }
        }
        if (field.type === "relation") {
          const list = spec.lists.find((l) => l.field === field.key);
          if (list) {
            const perLang = list.localized
              ? [...versions.entries()]
              : [[options.defaultLocale, base] as const];
            for (const [lang, v] of perLang) {
              const ids = Array.isArray(v[field.key])
                ? v[field.key] as unknown[]
                : [];
              ids.forEach((item, position) => {
                const id = refId(item);
                if (!id || !UUID.test(id)) {
                  problems.push({
                    code: "invalid_reference",
                    model: model.slug,
                    field: field.key,
                    message:
                      `Entry ${groupId} holds a reference that is not an id`,
                  });
                  return;
                }
                const targetModel =
                  typeof item === "object" && item && "model" in item
                    ? String((item as { model: unknown }).model)
                    : null;
                const junction = list.junctions.find((j) =>
                  targetModel === null || j.target === targetModel ||
                  stored.find((m) =>
                      m.id === targetModel
                    )?.slug.replaceAll("-", "_") === j.target
                ) ?? list.junctions[0];
                const jr = junctionRows.get(junction.table) ?? [];
                jr.push({
                  id: crypto.randomUUID(),
                  owner_id: groupId,
                  target_id: id.toLowerCase(),
                  position,
                  ...(junction.localized ? { lang } : {}),
                });
                junctionRows.set(junction.table, jr);
              });
            }
            continue;
          }
          const columnName = spec.columns.find((c) => c.field === field.key)
            ?.name;
          if (!columnName) continue;
          if (columnName.endsWith("_ref")) {
            row[columnName] = value;
            continue;
          }
          const id = value === null ? null : refId(value);
          if (id !== null && !UUID.test(id)) {
            problems.push({
              code: "invalid_reference",
              model: model.slug,
              field: field.key,
              message: `Entry ${groupId} holds a reference that is not an id`,
            });
          }
          row[columnName] = id?.toLowerCase() ?? null;
          continue;
        }
        if (field.type === "media") {
          const ids =
            (Array.isArray(value) ? value : value === null ? [] : [value])
              .map(refId).filter((v): v is string => v !== null);
          row[`${field.key}_id`] = field.config.multiple ? ids : ids[0] ?? null;
          // A private field's files are not publicly addressable: the backend serves them
          // through its files route from a marker naming the stored object.
          const urls = ids.map((id) => {
            const item = media.get(id);
            if (!item) return null;
            return field.private ? `private-file:${item.key}` : item.url;
          });
          row[`${field.key}_url`] = field.config.multiple
            ? urls
            : urls[0] ?? null;
          row[`${field.key}_originals`] = originalsOf(
            ids,
            media,
            options.locales,
          );
          continue;
        }
        if (field.type === "rich_text") {
          row[`${field.key}_media`] = richTextMedia(
            [...versions.values()].map((v) => v[field.key]),
            media,
            field.private,
          );
        }
        const translated = spec.translation?.columns.some((c) =>
          c.field === field.key
        );
        if (!translated) row[field.key] = value;
      }
      rows.push(row);
      if (spec.translation) {
        for (const [lang, v] of versions) {
          const tr: Record<string, unknown> = {
            id: crypto.randomUUID(),
            [`${spec.name}_id`]: groupId,
            lang,
          };
          for (const c of spec.translation.columns) {
            tr[c.name] = v[c.field] ?? null;
          }
          translations.push(tr);
        }
      }
    }
    tables.push({ table: spec.name, rows });
    if (spec.translation) {
      translationTables.push({
        table: spec.translation.table,
        rows: translations,
      });
    }
    for (const list of spec.lists) {
      for (const j of list.junctions) {
        junctionTables.push({
          table: j.table,
          rows: junctionRows.get(j.table) ?? [],
        });
      }
    }
  }
  problems.push(...hierarchyLoops(specs, tables));
  return {
    seed: {
      tables: [
        ...orderForReferences(specs, tables),
        ...translationTables,
        ...junctionTables,
      ],
    },
    problems,
  };
}

/** Facts of each media item of the site, for `<field>_url` and `<field>_originals`. */
async function mediaFacts(options: SeedOptions) {
  const files = await options.db.selectFrom("media_files")
    .select([
      "id",
      "site_id",
      "object_id",
      "format",
      "external",
      "external_url",
    ])
    .where("site_id", "=", options.siteId).execute();
  const originals = await options.db.selectFrom("media_originals")
    .select([
      "media_id",
      "lang",
      "object_id",
      "mime_type",
      "format",
      "byte_length",
      "width",
      "height",
    ])
    .where("site_id", "=", options.siteId).execute();
  const facts = new Map<
    string,
    { url: string; key: string; originals: Record<string, unknown> }
  >();
  for (const f of files) {
    facts.set(f.id, {
      url: f.external && f.external_url
        ? f.external_url
        : deliveryUrl(options.publicUrl, f.site_id, f.object_id, f.format),
      key: `${f.object_id}.${f.format}`,
      originals: {},
    });
  }
  for (const o of originals) {
    const item = facts.get(o.media_id);
    if (!item) continue;
    item.originals[o.lang] = {
      object_id: o.object_id,
      mime_type: o.mime_type,
      byte_length: Number(o.byte_length),
      width: o.width,
      height: o.height,
      url: deliveryUrl(
        options.publicUrl,
        options.siteId,
        o.object_id,
        o.format,
      ),
    };
  }
  return facts;
}

const DATA_MEDIA = /\sdata-media="([0-9a-fA-F-]{36})"/g;

/**
 * `{ <media id>: address }` of the media every language's HTML of a rich-text field shows; a
 * private field's media get private-file markers instead, served by the files route with
 * `?media=` (and `&variant=thumb|preview`). Media the site no longer holds are left out.
 */
export function richTextMedia(
  htmls: readonly unknown[],
  media: ReadonlyMap<string, { url: string; key: string }>,
  isPrivate: boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const html of htmls) {
    if (typeof html !== "string") continue;
    for (const [, raw] of html.matchAll(DATA_MEDIA)) {
      const id = raw.toLowerCase();
      const item = media.get(id);
      if (item) out[id] = isPrivate ? `private-file:${item.key}` : item.url;
    }
  }
  return out;
}

/** `{ <locale>: { <media id>: facts } }` for the retained per-language originals. */
function originalsOf(
  ids: string[],
  media: Awaited<ReturnType<typeof mediaFacts>>,
  locales: string[],
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const lang of locales) {
    for (const id of ids) {
      const original = media.get(id)?.originals[lang];
      if (original) (out[lang] ??= {})[id] = original;
    }
  }
  return out;
}

/** Published parent links that loop refuse generation with `relation_hierarchy_cycle`. */
export function hierarchyLoops(
  specs: readonly ModelSpec[],
  tables: Seed["tables"],
): GenerationProblem[] {
  const problems: GenerationProblem[] = [];
  for (const spec of specs) {
    const rows = tables.find((t) => t.table === spec.name)?.rows ?? [];
    for (const column of spec.columns.filter((c) => c.hierarchy)) {
      const parent = new Map(
        rows.map((r) => [String(r.id), r[column.name] as string | null]),
      );
      for (const start of parent.keys()) {
        const seen = new Set<string>();
        let at: string | null | undefined = parent.get(start);
        while (at && !seen.has(at) && at !== start) {
          seen.add(at);
          at = parent.get(at);
        }
        if (at === start) {
          problems.push({
            code: "relation_hierarchy_cycle",
            model: spec.name,
            field: column.field,
            message: `Entry ${start} is its own ancestor`,
          });
        }
      }
    }
  }
  return problems;
}

/**
 * Model tables in an order where each row's to-one targets are inserted first: rows of a
 * hierarchy parent-first, tables by their references (a loop of optional references keeps
 * the given order; the database checks references at each insert).
 */
function orderForReferences(
  specs: readonly ModelSpec[],
  tables: Seed["tables"],
): Seed["tables"] {
  const ordered: Seed["tables"] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const byName = new Map(specs.map((s) => [s.name, s]));
  const visit = (name: string) => {
    if (placed.has(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const c of byName.get(name)?.columns ?? []) {
      if (c.kind === "relation" && c.target && c.target !== name) {
        visit(c.target);
      }
    }
    visiting.delete(name);
    placed.add(name);
    const table = tables.find((t) => t.table === name);
    if (table) {
      ordered.push({
        table: name,
        rows: parentsFirst(byName.get(name)!, table.rows),
      });
    }
  };
  for (const spec of specs) visit(spec.name);
  return ordered;
}

function parentsFirst(
  spec: ModelSpec,
  rows: Record<string, unknown>[],
): Record<string, unknown>[] {
  const parentColumn = spec.columns.find((c) => c.hierarchy);
  if (!parentColumn) return rows;
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  const out: Record<string, unknown>[] = [];
  const done = new Set<string>();
  const place = (row: Record<string, unknown>, depth: number) => {
    const id = String(row.id);
    if (done.has(id) || depth > rows.length) return;
    const parent = byId.get(String(row[parentColumn.name]));
    if (parent) place(parent, depth + 1);
    done.add(id);
    out.push(row);
  };
  for (const row of rows) place(row, 0);
  return out;
}
