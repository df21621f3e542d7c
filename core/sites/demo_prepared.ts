// A prepared demo site: the embedded data folder and media files right after a start seeded the
// demo, so the next start on an empty DATA_DIR copies them (a fraction of a second) instead of
// creating the cluster and saving some sixty entries through the services (10 to 15 s).
//
// The services stay the one source: a copy is made on this machine by a start that seeded the
// demo itself, and is named by a digest of everything that decided its rows (the code under
// core/, which includes the migrations, deno.json and deno.lock) and of the settings written into
// it (demo domain, public URL). Any change names another copy; the old one is removed when the new
// one is saved. A copy's administrator has no usable password: the start that copies it gives the
// administrator a new one (ensureDemoSite), so no two data folders share a secret.
import type { Config } from "../config.ts";
import { type Db, openDatabase, pgliteOf } from "../db/database.ts";
import {
  cannotWriteCache,
  filesUnder,
  FINGERPRINT_LENGTH,
  isEmptyDataFolder,
  SNAPSHOT_DIR,
} from "../db/pglite_snapshot.ts";
import { sha256HexOfParts } from "../kv/digest.ts";

/**
 * The password hash a prepared copy's administrator holds: not a `scrypt$…` hash, so no password
 * ever matches it (verifyPassword), and the start that finds it sets a fresh password.
 */
export const PREPARED_PASSWORD_HASH = "prepared-demo$no-password";

const ROOT = new URL("../../", import.meta.url);
const CORE_DIR = new URL("core/", ROOT);
const PROJECT_FILES = ["deno.json", "deno.lock"].map((name) =>
  new URL(name, ROOT)
);

/** Where a start on `config` keeps its embedded database and local media files. */
function folders(config: Config) {
  return {
    pglite: `${config.dataDir}/pglite`,
    media: `${config.dataDir}/media`,
  };
}

/**
 * Digest naming the prepared demo for `config`, or null when none may be used: PostgreSQL, media
 * in S3 (a copy holds local files only), no demo site, or source files that cannot be read (a
 * compiled or remote deployment).
 */
export async function preparedDemoFingerprint(
  config: Config,
): Promise<string | null> {
  if (!config.demoSite || config.databaseUrl || config.mediaS3) return null;
  const parts: (string | Uint8Array)[] = [
    `demo:${config.demoDomain}`,
    `url:${config.publicUrl}`,
  ];
  try {
    for (const file of [...PROJECT_FILES, ...await filesUnder(CORE_DIR)]) {
      parts.push(
        file.pathname.slice(ROOT.pathname.length),
        await Deno.readFile(file),
      );
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    if (error instanceof Deno.errors.PermissionDenied) return null;
    throw error;
  }
  return sha256HexOfParts(parts).slice(0, FINGERPRINT_LENGTH);
}

/** The folder of the prepared demo named `fingerprint`. */
export function preparedDemoDir(fingerprint: string, dir = SNAPSHOT_DIR): URL {
  return new URL(`demo-${fingerprint}/`, dir);
}

/** True when this machine holds the prepared demo named `fingerprint`. */
export function hasPreparedDemo(
  fingerprint: string,
  dir = SNAPSHOT_DIR,
): Promise<boolean> {
  return isEmptyDataFolder(
    `${preparedDemoDir(fingerprint, dir).pathname}pglite`,
  )
    .then((empty) => !empty);
}

/**
 * Copies the prepared demo into `config`'s empty DATA_DIR and answers true, or answers false
 * (touching nothing) when there is no such copy or the folder already holds a database.
 */
export async function copyPreparedDemo(
  config: Config,
  fingerprint: string,
  dir = SNAPSHOT_DIR,
): Promise<boolean> {
  const source = preparedDemoDir(fingerprint, dir).pathname;
  const target = folders(config);
  if (!await hasPreparedDemo(fingerprint, dir)) return false;
  if (!await isEmptyDataFolder(target.pglite)) return false;
  // Copied under a temporary name and renamed, so a start stopped halfway never leaves a folder
  // that looks like a database. A copy that fails (a parallel start replaced the prepared demo
  // meanwhile) only costs the speed-up: the start seeds the demo itself.
  const temporary = `${config.dataDir}/.pglite-${crypto.randomUUID()}`;
  try {
    await copyTree(`${source}pglite`, temporary);
    await Deno.remove(target.pglite, { recursive: true }).catch(() => {});
    await Deno.rename(temporary, target.pglite);
  } catch {
    await Deno.remove(temporary, { recursive: true }).catch(() => {});
    return false;
  }
  await copyTree(`${source}media`, target.media, { keepExisting: true });
  return true;
}

/**
 * Saves the demo `db` (just seeded on `config`'s DATA_DIR) as the prepared demo named
 * `fingerprint`, with its administrator's password removed, and removes older prepared demos.
 * Answers false when it cannot be written; that only costs the next empty start its speed-up.
 */
export async function savePreparedDemo(
  db: Db,
  config: Config,
  fingerprint: string,
  dir = SNAPSHOT_DIR,
): Promise<boolean> {
  const pglite = pgliteOf(db);
  if (!pglite) return false;
  const final = preparedDemoDir(fingerprint, dir).pathname;
  const temporary = new URL(`.demo-${crypto.randomUUID()}/`, dir).pathname;
  try {
    await Deno.mkdir(temporary, { recursive: true });
    // A dump read into a second embedded database gives a closed data folder to copy later,
    // without stopping the one this process serves from.
    const copy = await openDatabase({
      pglitePath: `${temporary}pglite`,
      snapshot: await pglite.dumpDataDir("none"),
    });
    try {
      await copy.updateTable("users")
        .set({ password_hash: PREPARED_PASSWORD_HASH })
        .execute();
    } finally {
      await copy.destroy();
    }
    await copyTree(folders(config).media, `${temporary}media`);
    await Deno.rename(temporary, final);
    // Older prepared demos are never used again (their code is gone).
    for await (const entry of Deno.readDir(dir)) {
      if (
        entry.isDirectory && entry.name.startsWith("demo-") &&
        entry.name !== `demo-${fingerprint}`
      ) {
        await Deno.remove(new URL(entry.name, dir), { recursive: true })
          .catch(() => {});
      }
    }
    return true;
  } catch (error) {
    await Deno.remove(temporary, { recursive: true }).catch(() => {});
    // Another process saved the same copy first: that one serves.
    if (await hasPreparedDemo(fingerprint, dir)) return true;
    if (cannotWriteCache(error)) return false;
    throw error;
  }
}

/** Copies the files under `from` into `to`, creating folders; a missing `from` copies nothing. */
async function copyTree(
  from: string,
  to: string,
  options: { keepExisting?: boolean } = {},
): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(from));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  await Deno.mkdir(to, { recursive: true });
  for (const entry of entries) {
    const source = `${from}/${entry.name}`;
    const target = `${to}/${entry.name}`;
    if (entry.isDirectory) await copyTree(source, target, options);
    else if (!options.keepExisting || !await exists(target)) {
      await Deno.copyFile(source, target);
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
