// Emits the schema migration: a table per model, its `<model>translation` table, a junction
// table per list relation and accepted model, references between models once every table
// exists, and the trigger that keeps hierarchies free of loops even for concurrent writers.
import type {
  ColumnSpec,
  JunctionSpec,
  ModelSpec,
} from "./template/src/schema.ts";

const SQL_TYPES: Record<ColumnSpec["kind"], string> = {
  text: "text",
  rich_text: "text",
  number: "double precision",
  integer: "bigint",
  boolean: "boolean",
  date: "date",
  datetime: "timestamptz",
  select: "text",
  select_list: "jsonb",
  json: "jsonb",
  media_id: "uuid",
  media_list: "jsonb",
  media_url: "text",
  media_originals: "jsonb",
  rich_media: "jsonb",
  relation: "uuid",
  point: "jsonb",
};

const ID = "  id uuid primary key default gen_random_uuid()";

function columnLine(column: ColumnSpec): string {
  const type = SQL_TYPES[column.kind];
  if (column.kind === "media_originals" || column.kind === "rich_media") {
    return `  ${column.name} ${type} not null default '{}'`;
  }
  return `  ${column.name} ${type}${column.required ? " not null" : ""}`;
}

function createTable(comment: string, table: string, lines: string[]): string {
  return `-- ${comment}\ncreate table ${table} (\n${lines.join(",\n")}\n);\n`;
}

/** The table of a model, without references to other tables. */
export function modelTableSql(model: ModelSpec): string {
  const t = model.name;
  const lines = [ID, ...model.columns.map(columnLine)];
  for (const c of model.columns) {
    if (c.kind === "relation" && c.exclusive) {
      lines.push(`  constraint ${t}_${c.name}_key unique (${c.name})`);
    }
  }
  let out = createTable(model.label, t, lines);
  if (model.single) {
    out += `-- A single-entry model holds one row.\n` +
      `create unique index ${t}_single_entry on ${t} ((true));\n`;
  }
  return out;
}

/** The `<model>translation` table: one row per model row and language. */
export function translationTableSql(
  model: ModelSpec,
  locales: readonly string[],
): string {
  if (!model.translation) return "";
  const t = model.name;
  const tr = model.translation.table;
  const languages = locales.map((l) => `'${l.replaceAll("'", "")}'`).join(", ");
  return createTable(`Per-language values of ${model.label}`, tr, [
    ID,
    `  ${t}_id uuid not null constraint ${tr}_${t}_id_fkey references ${t} (id) on delete cascade`,
    `  lang text not null check (lang in (${languages}))`,
    ...model.translation.columns.map(columnLine),
    `  constraint ${tr}_lang_key unique (${t}_id, lang)`,
  ]);
}

/** A junction table of a list relation: ordered by `position`, per language when localized. */
export function junctionTableSql(
  owner: ModelSpec,
  field: string,
  j: JunctionSpec,
): string {
  const lang = j.localized ? ", lang" : "";
  return createTable(`${owner.label}.${field} -> ${j.target}`, j.table, [
    ID,
    `  owner_id uuid not null references ${owner.name} (id) on delete cascade`,
    `  target_id uuid not null references ${j.target} (id) on delete cascade`,
    "  position integer not null",
    ...(j.localized ? ["  lang text not null"] : []),
    `  constraint ${j.table}_pair_key unique (owner_id, target_id${lang})`,
    ...(j.exclusive
      ? [`  constraint ${j.table}_target_key unique (target_id${lang})`]
      : []),
  ]) +
    `create index ${j.table}_order_idx on ${j.table} (owner_id, position);\n`;
}

/**
 * The references of a model's to-one columns: a required link refuses its target's delete,
 * an optional one becomes null; a parent column also gets its loop guard.
 */
export function referencesSql(model: ModelSpec): string {
  let out = "";
  for (const c of model.columns) {
    if (c.kind !== "relation" || !c.target) continue;
    const action = c.required && !c.hierarchy ? "restrict" : "set null";
    out +=
      `alter table ${model.name} add constraint ${model.name}_${c.name}_fkey ` +
      `foreign key (${c.name}) references ${c.target} (id) on delete ${action};\n` +
      `create index ${model.name}_${c.name}_idx on ${model.name} (${c.name});\n`;
    if (c.hierarchy) out += hierarchyTriggerSql(model.name, c);
  }
  return out;
}

/** The loop guard of a parent column pointing at its own table. */
export function hierarchyTriggerSql(table: string, column: ColumnSpec): string {
  const fn = `${table}_${column.name}_no_cycle`;
  return `
-- A row may not become its own ancestor. The advisory lock makes concurrent reparenting take
-- turns, so two writes that would form a loop together cannot both pass.
create function ${fn}() returns trigger language plpgsql as $$
begin
  if new.${column.name} is null then return new; end if;
  perform pg_advisory_xact_lock(hashtext('${table}.${column.name}'));
  if exists (
    with recursive up(id) as (
      select new.${column.name}
      union
      select t.${column.name} from ${table} t join up on t.id = up.id
      where t.${column.name} is not null
    )
    select 1 from up where id = new.id
  ) then
    raise exception 'relation_hierarchy_cycle' using errcode = 'SV001',
      detail = json_build_object('field', '${column.field}',
        'targets', json_build_array(new.${column.name}))::text;
  end if;
  return new;
end $$;
create trigger ${fn} before insert or update of ${column.name} on ${table}
  for each row execute function ${fn}();
`;
}

/** The whole schema migration. */
export function schemaSql(
  models: readonly ModelSpec[],
  locales: readonly string[],
): string {
  return [
    "-- Generated by Stave: the tables of this backend. Add your own changes as new files in",
    "-- migrations/ named to sort after this one; each applies once, in name order.",
    "",
    ...models.map(modelTableSql),
    ...models.map((m) => translationTableSql(m, locales)).filter(Boolean),
    ...models.flatMap((m) =>
      m.lists.flatMap((l) =>
        l.junctions.map((j) => junctionTableSql(m, l.field, j))
      )
    ),
    "-- References between models",
    ...models.map(referencesSql).filter(Boolean),
  ].join("\n");
}
