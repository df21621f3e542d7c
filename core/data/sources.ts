// Import sources: a named format and what imports from it do (docs/imports-exports.md).
import type { Selectable } from "kysely";
import type { Db } from "../db/database.ts";
import type { ImportSourcesTable } from "../db/schema.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import type { SourceOptions } from "./import.ts";
import type { JobContext } from "./jobs.ts";

export type SourceRow = Selectable<ImportSourcesTable>;

/** The site's sources, oldest first. */
export async function listSources(
  db: Db,
  siteId: string,
): Promise<SourceRow[]> {
  return await db.selectFrom("import_sources").selectAll()
    .where("site_id", "=", siteId).orderBy("created_at").orderBy("id")
    .execute();
}

/** The source a keyed create wrote (a lost answer's proof). */
export async function sourceByKey(
  db: Db,
  siteId: string,
  keyDigest: string,
): Promise<SourceRow | null> {
  return await db.selectFrom("import_sources").selectAll()
    .where("site_id", "=", siteId).where("key_digest", "=", keyDigest)
    .executeTakeFirst() ?? null;
}

/** Creates a source; a name the site already uses is `import_source_name_taken`. */
export async function createSource(
  ctx: JobContext,
  input: { name: string; format: string; options: SourceOptions },
): Promise<
  { ok: true; source: SourceRow } | {
    ok: false;
    code: "import_source_name_taken";
  }
> {
  const taken = await ctx.db.selectFrom("import_sources").select("id")
    .where("site_id", "=", ctx.siteId).where("name", "=", input.name)
    .executeTakeFirst();
  if (taken) return { ok: false, code: "import_source_name_taken" };
  const source = await ctx.db.insertInto("import_sources").values({
    id: crypto.randomUUID(),
    site_id: ctx.siteId,
    name: input.name,
    format: input.format,
    options: JSON.stringify(input.options),
    key_digest: ctx.keyDigest,
    created_by: JSON.stringify(
      await snapshotActor(ctx.db, ctx.siteId, ctx.actor),
    ),
    created_at: ctx.clock.now(),
  }).onConflict((oc) => oc.columns(["site_id", "name"]).doNothing())
    .returningAll().executeTakeFirst();
  return source
    ? { ok: true, source }
    : { ok: false, code: "import_source_name_taken" };
}
