// Media folders: a tree of at most 5 levels and 500 folders per site, names unique under a parent ignoring case.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { type MediaContext, recordWrite } from "./items.ts";
import type { MediaRefusal } from "./upload.ts";

/** Folder limits (spec 2 part 8). */
export const FOLDER_LIMITS = {
  max_depth: 5,
  max_folders: 500,
  name_min: 1,
  name_max: 80,
} as const;

/** A folder as the API answers it (MED-027). */
export interface FolderView {
  id: string;
  parent_id: string | null;
  name: string;
  revision: number;
  /** 1 for a top-level folder. */
  depth: number;
  media_count: number;
  subtree_folder_count: number;
  subtree_media_count: number;
  created_at: string;
  updated_at: string;
}

interface FolderRow {
  id: string;
  parent_id: string | null;
  name: string;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

/** The site's tree, depth first (siblings by name), with counts, Unfiled and the limits (MED-030). */
export async function listFolders(db: Db, siteId: string): Promise<{
  data: FolderView[];
  unfiled: number;
  total: number;
  limits: typeof FOLDER_LIMITS;
}> {
  const rows = await db.selectFrom("media_folders").select([
    "id",
    "parent_id",
    "name",
    "revision",
    "created_at",
    "updated_at",
  ]).where("site_id", "=", siteId).execute() as FolderRow[];
  const counts = await db.selectFrom("media_files")
    .select(["folder_id", (eb) => eb.fn.countAll<string>().as("n")])
    .where("site_id", "=", siteId).groupBy("folder_id").execute();
  const own = new Map(counts.map((c) => [c.folder_id, Number(c.n)]));
  const children = new Map<string | null, FolderRow[]>();
  for (const row of rows) {
    const list = children.get(row.parent_id) ?? [];
    list.push(row);
    children.set(row.parent_id, list);
  }
  for (const list of children.values()) {
    list.sort((a, b) =>
      a.name.localeCompare(b.name, "en", { sensitivity: "base" }) ||
      (a.id < b.id ? -1 : 1)
    );
  }
  const data: FolderView[] = [];
  const visit = (row: FolderRow, depth: number): [number, number] => {
    const view: FolderView = {
      id: row.id,
      parent_id: row.parent_id,
      name: row.name,
      revision: row.revision,
      depth,
      media_count: own.get(row.id) ?? 0,
      subtree_folder_count: 0,
      subtree_media_count: 0,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: new Date(row.updated_at).toISOString(),
    };
    data.push(view);
    let folders = 0;
    let media = view.media_count;
    for (const child of children.get(row.id) ?? []) {
      const [f, m] = visit(child, depth + 1);
      folders += f + 1;
      media += m;
    }
    view.subtree_folder_count = folders;
    view.subtree_media_count = media;
    return [folders, media];
  };
  for (const top of children.get(null) ?? []) visit(top, 1);
  return {
    data,
    unfiled: own.get(null) ?? 0,
    total: rows.length,
    limits: FOLDER_LIMITS,
  };
}

async function folderView(
  db: Db,
  siteId: string,
  id: string,
): Promise<FolderView | null> {
  return (await listFolders(db, siteId)).data.find((f) => f.id === id) ?? null;
}

/** Depth of `id` (1 at the top) and the ids above it, nearest first. */
async function ancestry(
  db: Db,
  siteId: string,
  id: string,
): Promise<string[]> {
  const rows = await sql<{ id: string }>`
    with recursive up(id, parent_id, n) as (
      select id, parent_id, 0 from media_folders where site_id = ${siteId} and id = ${id}
      union all
      select f.id, f.parent_id, up.n + 1 from media_folders f
        join up on f.id = up.parent_id where f.site_id = ${siteId} and up.n < 64
    )
    select id from up order by n
  `.execute(db);
  return rows.rows.map((r) => r.id);
}

/** Levels below `id` including itself (1 for a leaf). */
async function subtreeHeight(db: Db, siteId: string, id: string) {
  const rows = await sql<{ h: number }>`
    with recursive down(id, n) as (
      select id, 1 from media_folders where site_id = ${siteId} and id = ${id}
      union all
      select f.id, down.n + 1 from media_folders f
        join down on f.parent_id = down.id where f.site_id = ${siteId} and down.n < 64
    )
    select max(n) as h from down
  `.execute(db);
  return Number(rows.rows[0]?.h ?? 1);
}

async function sibling(
  db: Db,
  siteId: string,
  parentId: string | null,
  name: string,
  except: string | null,
): Promise<string | null> {
  let query = db.selectFrom("media_folders").select("id")
    .where("site_id", "=", siteId)
    .where(sql<string>`lower(name)`, "=", name.toLowerCase());
  query = parentId === null
    ? query.where("parent_id", "is", null)
    : query.where("parent_id", "=", parentId);
  if (except) query = query.where("id", "!=", except);
  return (await query.executeTakeFirst())?.id ?? null;
}

async function exists(
  ctx: MediaContext,
  name: string,
  parentId: string | null,
  except: string | null,
) {
  const holder = await sibling(ctx.db, ctx.siteId, parentId, name, except);
  if (!holder) return null;
  return {
    ok: false as const,
    code: "media_folder_exists",
    folder: await folderView(ctx.db, ctx.siteId, holder),
  };
}

/** Serialises the folder commands of one site, so the 500 limit and unique names hold under races. */
async function lockSite(tx: Db, siteId: string) {
  await sql`select id from sites where id = ${siteId} for update`.execute(tx);
}

/** Creates a folder (MED-028, MED-029, MED-031). */
export async function createFolder(
  ctx: MediaContext,
  input: { name: string; parent_id: string | null },
): Promise<{ ok: true; folder: FolderView } | MediaRefusal> {
  const name = input.name.trim();
  return await ctx.db.transaction().execute(async (tx) => {
    const scoped = { ...ctx, db: tx };
    await lockSite(tx, ctx.siteId);
    if (input.parent_id) {
      const up = await ancestry(tx, ctx.siteId, input.parent_id);
      if (up.length === 0) {
        return {
          ok: false,
          code: "media_folder_not_found",
          folder_id: input.parent_id,
        };
      }
      if (up.length + 1 > FOLDER_LIMITS.max_depth) {
        return {
          ok: false,
          code: "media_folder_too_deep",
          max_depth: FOLDER_LIMITS.max_depth,
        };
      }
    }
    const count = await tx.selectFrom("media_folders")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("site_id", "=", ctx.siteId).executeTakeFirstOrThrow();
    if (Number(count.n) >= FOLDER_LIMITS.max_folders) {
      return {
        ok: false,
        code: "media_folder_limit",
        max_folders: FOLDER_LIMITS.max_folders,
      };
    }
    const taken = await exists(scoped, name, input.parent_id, null);
    if (taken) return taken;
    const id = crypto.randomUUID();
    const now = ctx.clock.now();
    await tx.insertInto("media_folders").values({
      id,
      site_id: ctx.siteId,
      parent_id: input.parent_id,
      name,
      revision: 1,
      created_at: now,
      updated_at: now,
    }).execute();
    const folder = (await folderView(tx, ctx.siteId, id))!;
    await recordWrite(tx, ctx, folder);
    return { ok: true as const, folder };
  });
}

/** Renames and/or moves a folder pinned to its revision (MED-031). */
export async function updateFolder(
  ctx: MediaContext,
  id: string,
  input: {
    expected_revision: number;
    name?: string;
    parent_id?: string | null;
  },
): Promise<{ ok: true; folder: FolderView } | MediaRefusal> {
  return await ctx.db.transaction().execute(async (tx) => {
    const scoped = { ...ctx, db: tx };
    await lockSite(tx, ctx.siteId);
    const current = await folderView(tx, ctx.siteId, id);
    if (!current) {
      return { ok: false, code: "media_folder_not_found", folder_id: id };
    }
    if (current.revision !== input.expected_revision) {
      return { ok: false, code: "media_folder_changed", folder: current };
    }
    const parentId = input.parent_id !== undefined
      ? input.parent_id
      : current.parent_id;
    if (parentId !== current.parent_id && parentId !== null) {
      const up = await ancestry(tx, ctx.siteId, parentId);
      if (up.length === 0) {
        return {
          ok: false,
          code: "media_folder_not_found",
          folder_id: parentId,
        };
      }
      if (up.includes(id)) {
        return {
          ok: false,
          code: "media_folder_cycle",
          folder_id: id,
          parent_id: parentId,
        };
      }
      const height = await subtreeHeight(tx, ctx.siteId, id);
      if (up.length + height > FOLDER_LIMITS.max_depth) {
        return {
          ok: false,
          code: "media_folder_too_deep",
          max_depth: FOLDER_LIMITS.max_depth,
        };
      }
    }
    const name = input.name !== undefined ? input.name.trim() : current.name;
    const taken = await exists(scoped, name, parentId, id);
    if (taken) return taken;
    await tx.updateTable("media_folders").set({
      name,
      parent_id: parentId,
      revision: current.revision + 1,
      updated_at: ctx.clock.now(),
    }).where("site_id", "=", ctx.siteId).where("id", "=", id).execute();
    const folder = (await folderView(tx, ctx.siteId, id))!;
    await recordWrite(tx, ctx, folder);
    return { ok: true as const, folder };
  });
}

/**
 * Deletes a folder and every folder below it; their files become Unfiled, never deleted
 * (MED-032, MED-033). The pins are the revision and the subtree counts the caller saw.
 */
export async function removeFolder(
  ctx: MediaContext,
  id: string,
  input: {
    expected_revision: number;
    expected_folders: number;
    expected_media: number;
  },
): Promise<
  | { ok: true; id: string; removed_folders: number; unfiled_media: number }
  | MediaRefusal
> {
  return await ctx.db.transaction().execute(async (tx) => {
    await lockSite(tx, ctx.siteId);
    const current = await folderView(tx, ctx.siteId, id);
    if (!current) {
      return { ok: false, code: "media_folder_not_found", folder_id: id };
    }
    if (
      current.revision !== input.expected_revision ||
      current.subtree_folder_count !== input.expected_folders ||
      current.subtree_media_count !== input.expected_media
    ) {
      return { ok: false, code: "media_folder_changed", folder: current };
    }
    // Files first (the foreign key would also unfile them; this keeps updated_at honest).
    await sql`
      with recursive down(id) as (
        select id from media_folders where site_id = ${ctx.siteId} and id = ${id}
        union all
        select f.id from media_folders f join down on f.parent_id = down.id
          where f.site_id = ${ctx.siteId}
      )
      update media_files set folder_id = null, updated_at = ${ctx.clock.now()}
      where site_id = ${ctx.siteId} and folder_id in (select id from down)
    `.execute(tx);
    await tx.deleteFrom("media_folders").where("site_id", "=", ctx.siteId)
      .where("id", "=", id).execute();
    const answer = {
      ok: true as const,
      id,
      removed_folders: current.subtree_folder_count + 1,
      unfiled_media: current.subtree_media_count,
    };
    await recordWrite(tx, ctx, answer);
    return answer;
  });
}
