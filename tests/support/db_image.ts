// Seeded test databases kept between tests and test files: a setup that takes seconds (the demo
// site is some 200 saves and publications) runs once per version of the code and engine, and
// every test then starts from a copy of its result, as the migrated schema already does.
//
// An image is named by a digest of everything that can change what the seed writes (core/, the
// test support code, the pinned libraries) and of the seed's own variant, so a code change never
// reuses a stale image. PGlite images are data-folder dumps under .cache/test-images/; PostgreSQL
// images are template databases on the test server. Files the seed writes (media) are kept in a
// folder beside the image and copied into each test's own folder.
import pg from "pg";
import { type Db, openDatabase, pgliteOf } from "../../core/db/database.ts";
import { migrateToLatest } from "../../core/db/migrate.ts";
import { openMigratedDatabase } from "../../core/db/open_migrated.ts";
import {
  filesUnder,
  FINGERPRINT_LENGTH,
} from "../../core/db/pglite_snapshot.ts";
import { sha256HexSync } from "../../core/kv/digest.ts";
import { adminQuery, createScratchDatabase, migratedTemplate } from "./db.ts";

const ROOT = new URL("../../", import.meta.url);
const IMAGE_DIR = new URL(".cache/test-images/", ROOT);
/** What a seed may depend on: every file under these folders, and these files. */
const SOURCE_DIRS = ["core/", "tests/support/"];
const SOURCE_FILES = [
  "deno.json",
  "deno.lock",
  "tests/admin/helpers.ts",
  "tests/admin/demo_helpers.ts",
  "tests/public/helpers.ts",
];

/** A seeded database to copy: what the seed answered, and where its data is. */
export type DbImage<T> =
  & { meta: T; filesDir: string }
  & ({ engine: "pglite"; dump: Blob } | {
    engine: "postgres";
    template: string;
  });

/** Writes a seed's data into `db`; files it keeps go into `filesDir`. */
export type Seed<T> = (db: Db, filesDir: string) => Promise<T>;

const images = new Map<string, Promise<DbImage<unknown>>>();

/**
 * The image of `seed` under `variant` (name every option that changes what it writes) on the
 * engine this run targets: made the first time it is missing, then read from the cache.
 * `meta` must be JSON.
 */
export function seededImage<T>(
  variant: string,
  seed: Seed<T>,
): Promise<DbImage<T>> {
  const url = Deno.env.get("DATABASE_URL") ?? "";
  const memo = `${url}\0${variant}`;
  let image = images.get(memo);
  if (!image) {
    image = imageOf(url, variant, seed);
    images.set(memo, image);
    image.catch(() => images.delete(memo));
  }
  return image as Promise<DbImage<T>>;
}

/** What an image records beside its data: the seed's answer and the folder of its files. */
interface ImageIndex<T> {
  meta: T;
  /** When the image was made (ms since 1970), so stale ones can be told apart. */
  made_at: number;
  /** Folder name under IMAGE_DIR holding the files this very build wrote. */
  files: string;
}

async function imageOf<T>(
  url: string,
  variant: string,
  seed: Seed<T>,
): Promise<DbImage<T>> {
  const code = await codeDigest();
  const name = `${code}_${sha256HexSync(variant).slice(0, 8)}`;
  return url
    ? await postgresImage(url, code, name, seed)
    : await pgliteImage(code, name, seed);
}

/**
 * Runs `seed` on `db` and keeps the files it wrote in a folder of this build's own (parallel
 * builds never share one), answering the index to record with the image.
 */
async function build<T>(
  db: Db,
  name: string,
  seed: Seed<T>,
): Promise<ImageIndex<T>> {
  const building = await Deno.makeTempDir({ prefix: "stave-image-" });
  try {
    const meta = await seed(db, building);
    const files = `${name}-${crypto.randomUUID()}-files`;
    await Deno.mkdir(IMAGE_DIR, { recursive: true });
    await copyImageFiles(building, new URL(`${files}/`, IMAGE_DIR).pathname);
    return { meta, files, made_at: Date.now() };
  } finally {
    await Deno.remove(building, { recursive: true }).catch(() => {});
  }
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

function filesOf(index: ImageIndex<unknown>): string {
  return new URL(`${index.files}/`, IMAGE_DIR).pathname;
}

async function pgliteImage<T>(
  code: string,
  name: string,
  seed: Seed<T>,
): Promise<DbImage<T>> {
  // The index names the dump and files of one build; it is written last, by rename, so a reader
  // sees one whole image even when parallel test processes made theirs at the same time.
  const indexFile = new URL(`${name}.json`, IMAGE_DIR);
  try {
    const index = JSON.parse(await Deno.readTextFile(indexFile)) as
      & ImageIndex<T>
      & { dump: string };
    const dump = new Blob([
      await Deno.readFile(new URL(index.dump, IMAGE_DIR)),
    ]);
    // A dump whose files are gone is made again (its index is then replaced).
    if (await isFolder(filesOf(index))) {
      return {
        engine: "pglite",
        meta: index.meta,
        dump,
        filesDir: filesOf(index),
      };
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await dropStale(code);
  const { db } = await openMigratedDatabase({ pglitePath: null });
  try {
    const index = await build(db, name, seed);
    const dump = await pgliteOf(db)!.dumpDataDir("none");
    const dumpName = `${name}-${crypto.randomUUID()}.tar`;
    await writeByRename(
      new URL(dumpName, IMAGE_DIR),
      new Uint8Array(await dump.arrayBuffer()),
    );
    await writeByRename(
      indexFile,
      new TextEncoder().encode(JSON.stringify({ ...index, dump: dumpName })),
    );
    return {
      engine: "pglite",
      meta: index.meta,
      dump,
      filesDir: filesOf(index),
    };
  } finally {
    await db.destroy();
  }
}

async function postgresImage<T>(
  url: string,
  code: string,
  name: string,
  seed: Seed<T>,
): Promise<DbImage<T>> {
  const template = `stave_image_${name}`;
  const existing = await templateIndex<T>(url, template);
  if (existing && await isFolder(filesOf(existing))) {
    return {
      engine: "postgres",
      meta: existing.meta,
      template,
      filesDir: filesOf(existing),
    };
  }
  if (existing) {
    // The template outlives working copies on a shared server: one made from another copy (or
    // before .cache/ was cleared) has no files here, so it is made again.
    await adminQuery(url, `drop database if exists ${template} with (force)`);
  }
  await dropStale(code, url);
  // Renamed into a template that later runs reuse, so it is kept where the server keeps its own.
  const scratch = await createScratchDatabase(url, {
    template: await migratedTemplate(url),
    lasting: true,
  });
  try {
    const db = await openDatabase({ url: scratch.url });
    let index: ImageIndex<T>;
    try {
      await migrateToLatest(db);
      index = await build(db, name, seed);
    } finally {
      await db.destroy();
    }
    const scratchName = new URL(scratch.url).pathname.slice(1);
    // The comment carries the index, so a template and what it records appear together.
    await adminQuery(
      url,
      `comment on database ${scratchName} is ${literal(JSON.stringify(index))}`,
    );
    try {
      await adminQuery(
        url,
        `alter database ${scratchName} rename to ${template}`,
      );
    } catch (error) {
      // 42P04: a parallel test process made the same image first; use theirs, with its index
      // (its ids and files are not this build's).
      if ((error as { code?: string }).code !== "42P04") throw error;
      await scratch.drop();
      const theirs = await templateIndex<T>(url, template);
      if (!theirs) throw error;
      index = theirs;
    }
    return {
      engine: "postgres",
      meta: index.meta,
      template,
      filesDir: filesOf(index),
    };
  } catch (error) {
    await scratch.drop();
    throw error;
  }
}

/** The index of an existing template, or null when there is none. */
async function templateIndex<T>(
  url: string,
  template: string,
): Promise<ImageIndex<T> | null> {
  // No row (no such database) and no comment both answer null.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query(
      "select shobj_description(oid, 'pg_database') as meta from pg_database where datname = $1",
      [template],
    );
    const text = result.rows[0]?.meta as string | undefined;
    return text ? JSON.parse(text) as ImageIndex<T> : null;
  } finally {
    await client.end();
  }
}

/** How old an image of another version of the code must be before a test run removes it. */
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

/**
 * Removes the images of other versions of the code made over six hours ago, so a working copy
 * (or a test server) does not collect them. Younger ones stay: another working copy, or this one
 * before an edit, may be running tests on them at this moment.
 */
async function dropStale(code: string, url?: string): Promise<void> {
  const cutoff = Date.now() - STALE_AFTER_MS;
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    let names: string[];
    try {
      const result = await client.query(
        "select datname, shobj_description(oid, 'pg_database') as index from pg_database where datname like 'stave\\_image\\_%' and datname not like $1",
        [`stave\\_image\\_${code}\\_%`],
      );
      names = result.rows.filter((row: { index: string | null }) => {
        const madeAt = row.index
          ? Number(JSON.parse(row.index).made_at ?? 0)
          : 0;
        return madeAt < cutoff;
      }).map((row: { datname: string }) => row.datname);
    } finally {
      await client.end();
    }
    for (const name of names) {
      await adminQuery(url, `drop database if exists ${name} with (force)`)
        .catch(() => {});
    }
    return;
  }
  try {
    for await (const entry of Deno.readDir(IMAGE_DIR)) {
      if (entry.name.startsWith(code)) continue;
      const path = new URL(entry.name, IMAGE_DIR);
      const made = (await Deno.stat(path).catch(() => null))?.mtime;
      if (made && made.getTime() >= cutoff) continue;
      await Deno.remove(path, { recursive: true }).catch(() => {});
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** Copies the files of an image into `target` (made if missing). */
export async function copyImageFiles(
  source: string,
  target: string,
): Promise<void> {
  await Deno.mkdir(target, { recursive: true });
  for await (const entry of Deno.readDir(source)) {
    const from = `${source}/${entry.name}`;
    const to = `${target}/${entry.name}`;
    if (entry.isDirectory) await copyImageFiles(from, to);
    else if (entry.isFile) await Deno.copyFile(from, to);
  }
}

async function writeByRename(target: URL, bytes: Uint8Array): Promise<void> {
  const temporary = new URL(`${target.href}.${crypto.randomUUID()}.tmp`);
  await Deno.writeFile(temporary, bytes);
  await Deno.rename(temporary, target);
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

let code: Promise<string> | undefined;

/** Digest of every source a seed may depend on, once per process. */
function codeDigest(): Promise<string> {
  code ??= (async () => {
    const files: string[] = [...SOURCE_FILES];
    for (const dir of SOURCE_DIRS) {
      for (const file of await filesUnder(new URL(dir, ROOT))) {
        files.push(file.pathname.slice(ROOT.pathname.length));
      }
    }
    files.sort();
    const hash: string[] = [];
    for (const file of files) {
      const bytes = await Deno.readFile(new URL(file, ROOT)).catch(() =>
        new Uint8Array()
      );
      hash.push(file, sha256HexSync(bytes));
    }
    return sha256HexSync(hash.join("\0")).slice(0, FINGERPRINT_LENGTH);
  })();
  return code;
}
