// A prepared embedded database: PGlite's data folder right after every migration, so an empty DATA_DIR (or a test) starts without initdb and replay.
//
// The migrations stay the one source: a snapshot is made from them on this machine the first
// time it is missing, and is named by a digest of every migration file, so a changed, added or
// removed migration names another snapshot and the old one is never used: that start replays the
// migrations as before (and leaves the new snapshot for the next one).
import type { PGlite } from "@electric-sql/pglite";
import { sha256HexOfParts } from "../kv/digest.ts";

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url);
/** deno.json pins the PGlite version; a dump is only read by the version that wrote it. */
const DENO_JSON = new URL("../../deno.json", import.meta.url);
/** Where snapshots are kept: git-ignored, beside the project. */
export const SNAPSHOT_DIR: URL = new URL(
  "../../.cache/pglite/",
  import.meta.url,
);

/** Hex characters of a prepared cache's name: 96 bits of its sources' SHA-256 digest. */
export const FINGERPRINT_LENGTH = 24;

/**
 * Digest of the migration files (names and text) and of the pinned PGlite version, or null when
 * they cannot be read (a compiled or remote deployment): then no snapshot is used and the
 * migrations are replayed.
 */
export async function migrationsFingerprint(
  dir: URL = MIGRATIONS_DIR,
): Promise<string | null> {
  const files: string[] = [];
  try {
    const pinned = /"npm:@electric-sql\/pglite@[^"]+"/.exec(
      await Deno.readTextFile(DENO_JSON),
    )?.[0] ?? "unpinned";
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".ts")) files.push(entry.name);
    }
    files.sort();
    const parts: string[] = [pinned];
    for (const file of files) {
      parts.push(file, await Deno.readTextFile(new URL(file, dir)));
    }
    return sha256HexOfParts(parts).slice(0, FINGERPRINT_LENGTH);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    if (error instanceof Deno.errors.PermissionDenied) return null;
    throw error;
  }
}

/** The snapshot file of `fingerprint`. */
export function snapshotFile(fingerprint: string, dir = SNAPSHOT_DIR): URL {
  return new URL(`schema-${fingerprint}.tar.gz`, dir);
}

/** The snapshot for the current migrations, or null when there is none yet (or it cannot be read). */
export async function readSnapshot(
  fingerprint: string | null,
  dir = SNAPSHOT_DIR,
): Promise<Blob | null> {
  if (!fingerprint) return null;
  try {
    return new Blob([await Deno.readFile(snapshotFile(fingerprint, dir))]);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    if (error instanceof Deno.errors.PermissionDenied) return null;
    throw error;
  }
}

/**
 * Saves `pglite`'s data folder as the snapshot of `fingerprint`. Call it only right after the
 * migrations ran on an empty database. Written to a temporary name and renamed, so parallel
 * tests and processes never read half a file; a failure to write only costs the speed-up.
 */
export async function saveSnapshot(
  pglite: PGlite,
  fingerprint: string,
  dir = SNAPSHOT_DIR,
): Promise<boolean> {
  try {
    const dump = await pglite.dumpDataDir("gzip");
    await Deno.mkdir(dir, { recursive: true });
    const target = snapshotFile(fingerprint, dir);
    const temporary = new URL(
      `.schema-${fingerprint}-${crypto.randomUUID()}.tmp`,
      dir,
    );
    await Deno.writeFile(temporary, new Uint8Array(await dump.arrayBuffer()));
    await Deno.rename(temporary, target);
    return true;
  } catch (error) {
    if (cannotWriteCache(error)) return false;
    throw error;
  }
}

/**
 * True for a failure to write a prepared cache that only costs its speed-up: a read-only or
 * missing folder, or a file system without the operation.
 */
export function cannotWriteCache(error: unknown): boolean {
  return error instanceof Deno.errors.PermissionDenied ||
    error instanceof Deno.errors.NotFound ||
    error instanceof Deno.errors.NotSupported;
}

/** Every file under `dir`, in any depth, sorted by path. */
export async function filesUnder(dir: URL): Promise<URL[]> {
  const found: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      found.push(...await filesUnder(new URL(`${entry.name}/`, dir)));
    } else if (entry.isFile) found.push(new URL(entry.name, dir));
  }
  return found.sort((a, b) => a.pathname < b.pathname ? -1 : 1);
}

/** True when `path` holds no PGlite data folder yet. */
export async function isEmptyDataFolder(path: string): Promise<boolean> {
  try {
    await Deno.stat(`${path}/PG_VERSION`);
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
}
