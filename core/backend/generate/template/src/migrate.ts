// Applies migrations/*.sql in name order, each once, then loads seed/content.json (the content
// published when the backend was generated) once. Relation ids of the seed are checked before
// anything is applied: a dangling one refuses with `relation_ids_dangling`.
import { sql } from "kysely";
import type { Db } from "./db.ts";
import type { BackendSchema } from "./schema.ts";

/** The seed: rows per table, in an order that satisfies foreign keys. */
export interface Seed {
  tables: { table: string; rows: Record<string, unknown>[] }[];
}

/** One relation id of the seed whose target is absent. */
export interface DanglingId {
  model: string;
  column: string;
  row_id: string;
  missing: string;
}

/** Refusal of a deployment whose seed names rows that do not exist. */
export class DanglingIdsError extends Error {
  readonly code = "relation_ids_dangling";
  constructor(readonly dangling: DanglingId[]) {
    super(
      `relation_ids_dangling: ${
        dangling.map((d) =>
          `${d.model}.${d.column} of ${d.row_id} -> ${d.missing}`
        )
          .join("; ")
      }`,
    );
  }
}

/** The relation ids of `seed` that name no row of the seed. */
export function danglingIds(schema: BackendSchema, seed: Seed): DanglingId[] {
  const ids = new Map<string, Set<string>>();
  for (const { table, rows } of seed.tables) {
    ids.set(table, new Set(rows.map((r) => String(r.id))));
  }
  const rowsOf = (table: string) =>
    seed.tables.find((t) => t.table === table)?.rows ?? [];
  const found: DanglingId[] = [];
  for (const model of schema.models) {
    for (const column of model.columns) {
      if (column.kind !== "relation" || !column.target) continue;
      for (const row of rowsOf(model.name)) {
        const value = row[column.name];
        if (value == null) continue;
        if (!ids.get(column.target)?.has(String(value))) {
          found.push({
            model: model.name,
            column: column.name,
            row_id: String(row.id),
            missing: String(value),
          });
        }
      }
    }
    for (const list of model.lists) {
      for (const junction of list.junctions) {
        for (const row of rowsOf(junction.table)) {
          if (!ids.get(junction.target)?.has(String(row.target_id))) {
            found.push({
              model: model.name,
              column: list.field,
              row_id: String(row.owner_id),
              missing: String(row.target_id),
            });
          }
        }
      }
    }
  }
  return found;
}

/** Reads seed/content.json. */
export async function readSeed(root: URL): Promise<Seed> {
  return JSON.parse(
    await Deno.readTextFile(new URL("seed/content.json", root)),
  ) as Seed;
}

/**
 * Applies what has not been applied yet; answers the names applied. A seed with dangling
 * relation ids is refused before anything is applied.
 */
export async function migrate(
  db: Db,
  root: URL,
  schema: BackendSchema,
): Promise<string[]> {
  const seed = await readSeed(root);
  const dangling = danglingIds(schema, seed);
  if (dangling.length > 0) throw new DanglingIdsError(dangling);
  const names: string[] = [];
  for await (const entry of Deno.readDir(new URL("migrations/", root))) {
    if (entry.isFile && entry.name.endsWith(".sql")) names.push(entry.name);
  }
  names.sort();
  await sql`create table if not exists _migrations (
    name text primary key, applied_at timestamptz not null default now())`
    .execute(db);
  const applied: string[] = [];
  // One transaction: two starts racing on one database apply each migration once.
  await db.transaction().execute(async (trx) => {
    await sql`lock table _migrations in exclusive mode`.execute(trx);
    const done = new Set(
      (await trx.selectFrom("_migrations").select("name").execute()).map((r) =>
        r.name as string
      ),
    );
    for (const name of names) {
      if (done.has(name)) continue;
      const text = await Deno.readTextFile(new URL(`migrations/${name}`, root));
      await sql.raw(text).execute(trx);
      await trx.insertInto("_migrations").values({ name }).execute();
      applied.push(name);
    }
    if (!done.has("seed/content.json")) {
      for (const { table, rows } of seed.tables) {
        for (let i = 0; i < rows.length; i += 500) {
          await trx.insertInto(table).values(
            rows.slice(i, i + 500).map(encodeRow),
          )
            .execute();
        }
      }
      await trx.insertInto("_migrations").values({ name: "seed/content.json" })
        .execute();
      applied.push("seed/content.json");
    }
  });
  return applied;
}

/** JSON values go to jsonb columns as text. */
export function encodeRow(
  row: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map((
      [k, v],
    ) => [k, v !== null && typeof v === "object" ? JSON.stringify(v) : v]),
  );
}
