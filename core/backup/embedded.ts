// Backup and restore of the embedded store (`deno task svc backup` / `restore`): the PGlite data
// folder as PGlite dumps it, every KV entry, every media object and form attachment, in one folder
// with a manifest of SHA-256 digests that a restore checks before it writes anything.
import { deserialize, serialize } from "node:v8";
import { Buffer } from "node:buffer";
import type { Config } from "../config.ts";
import { type Db, openDatabase, pgliteOf } from "../db/database.ts";
import { lockDataFolders } from "../db/data_lock.ts";
import { isEmptyDataFolder } from "../db/pglite_snapshot.ts";
import { openKvStore } from "../kv/open.ts";
import { mediaStorageFor } from "../media/storage_of.ts";
import type { MediaStorage } from "../media/storage.ts";

const FORMAT = 1;
const MANIFEST = "manifest.json";
const DATABASE = "database.tar.gz";
const KV = "kv.jsonl";

/** What a backup holds, written last so a folder without it is no backup. */
export interface BackupManifest {
  format: number;
  createdAt: string;
  /** SHA-256 (hex) of every file of the backup but the manifest, by path inside it. */
  files: Record<string, string>;
  counts: { kvEntries: number; media: number; attachments: number };
}

/** A refusal with the reason to print; nothing was changed. */
export class BackupRefused extends Error {
  override name = "BackupRefused";
}

/** What {@link backupEmbedded} reads: the opened stores of a service whose data folder it holds. */
export interface BackupSource {
  config: Config;
  db: Db;
  kv: Deno.Kv;
  media?: MediaStorage;
}

/**
 * Writes a backup of the embedded store into `out` (a new or empty folder). The caller holds the
 * data folder's lock (`openServices` takes it), so no process writes while the backup is made:
 * a service running on the folder makes the command refuse before it gets here.
 */
export async function backupEmbedded(
  source: BackupSource,
  out: string,
): Promise<BackupManifest> {
  if (source.config.databaseUrl) {
    throw new BackupRefused(
      "svc backup copies the embedded store; with DATABASE_URL use pg_dump and back up the media (docs/deploy.md)",
    );
  }
  const pglite = pgliteOf(source.db);
  if (!pglite) throw new BackupRefused("The database is not the embedded one");
  await requireEmptyFolder(out, "--out");
  const files: Record<string, string> = {};
  const write = async (path: string, bytes: Uint8Array) => {
    const file = `${out}/${path}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeFile(file, bytes, { mode: 0o600 });
    files[path] = await digest(bytes);
  };
  const dump = await pglite.dumpDataDir("gzip");
  await write(DATABASE, new Uint8Array(await dump.arrayBuffer()));

  const lines: string[] = [];
  for await (const entry of source.kv.list({ prefix: [] })) {
    lines.push(encodeKvEntry(entry.key, entry.value));
  }
  await write(KV, new TextEncoder().encode(lines.join("\n")));

  const storage = source.media ?? mediaStorageFor(source.config);
  let media = 0;
  for await (const object of storage.list("")) {
    const stream = await storage.read(object.key);
    if (!stream) continue;
    await write(
      `media/${object.key}`,
      new Uint8Array(await new Response(stream).arrayBuffer()),
    );
    media++;
  }
  // With media in files, form attachments are files of their own folder (core/forms).
  let attachments = 0;
  if (storage.kind === "files") {
    const root = `${source.config.dataDir}/form-attachments`;
    for (const path of await filesUnder(root)) {
      await write(
        `form-attachments/${path}`,
        await Deno.readFile(`${root}/${path}`),
      );
      attachments++;
    }
  }
  const manifest: BackupManifest = {
    format: FORMAT,
    createdAt: new Date().toISOString(),
    files,
    counts: { kvEntries: lines.length, media, attachments },
  };
  await Deno.writeTextFile(
    `${out}/${MANIFEST}`,
    JSON.stringify(manifest, null, 2) + "\n",
    { mode: 0o600 },
  );
  return manifest;
}

/**
 * Restores the backup in `from` into the empty data folder `config` names: the database, KV and
 * media. Refuses, changing nothing, when the folder already holds a database, the backup is
 * incomplete or a file's digest differs, or another process holds the folder.
 */
export async function restoreEmbedded(
  config: Config,
  from: string,
): Promise<BackupManifest> {
  if (config.databaseUrl) {
    throw new BackupRefused(
      "svc restore fills an empty embedded store; with DATABASE_URL use pg_restore (docs/deploy.md)",
    );
  }
  const manifest = await readManifest(from);
  for (const [path, want] of Object.entries(manifest.files)) {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(`${from}/${path}`);
    } catch {
      throw new BackupRefused(
        `The backup "${from}" is incomplete: "${path}" is missing; nothing was restored`,
      );
    }
    if (await digest(bytes) !== want) {
      throw new BackupRefused(
        `The backup "${from}" is damaged: "${path}" does not match its digest; nothing was restored`,
      );
    }
  }
  await Deno.mkdir(config.dataDir, { recursive: true });
  const folders = [config.dataDir];
  if (config.kvPath && !/^https?:\/\//.test(config.kvPath)) {
    folders.push(config.kvPath.replace(/[^/]*$/, "") || ".");
  }
  const lock = lockDataFolders(folders);
  try {
    if (!await isEmptyDataFolder(`${config.dataDir}/pglite`)) {
      throw new BackupRefused(
        `DATA_DIR "${config.dataDir}" already holds a database: restore into an empty data folder; nothing was restored`,
      );
    }
    const db = await openDatabase({
      pglitePath: `${config.dataDir}/pglite`,
      snapshot: new Blob([await Deno.readFile(`${from}/${DATABASE}`)]),
    });
    await db.destroy();

    const kv = await openKvStore(config.kvPath);
    try {
      const text = await Deno.readTextFile(`${from}/${KV}`);
      for (const line of text.split("\n")) {
        if (line === "") continue;
        const { key, value } = decodeKvEntry(line);
        await kv.set(key, value);
      }
    } finally {
      kv.close();
    }

    const storage = mediaStorageFor(config);
    for (const path of Object.keys(manifest.files)) {
      const bytes = () => Deno.readFile(`${from}/${path}`);
      if (path.startsWith("media/")) {
        await storage.put(
          path.slice("media/".length),
          await bytes(),
          "application/octet-stream",
        );
      } else if (path.startsWith("form-attachments/")) {
        const key = path.slice("form-attachments/".length);
        if (storage.kind === "s3") {
          await storage.put(path, await bytes(), "application/octet-stream");
        } else {
          const file = `${config.dataDir}/form-attachments/${key}`;
          await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), {
            recursive: true,
          });
          await Deno.writeFile(file, await bytes(), { mode: 0o600 });
        }
      }
    }
    return manifest;
  } finally {
    lock.release();
  }
}

/** One KV entry as a line: its key and value in V8's structured-clone form, base64. */
export function encodeKvEntry(key: Deno.KvKey, value: unknown): string {
  const stored = value instanceof Deno.KvU64
    ? { u64: value.value.toString() }
    : { value };
  return Buffer.from(serialize({ key, ...stored })).toString("base64");
}

/** The inverse of {@link encodeKvEntry}. */
export function decodeKvEntry(
  line: string,
): { key: Deno.KvKey; value: unknown } {
  const decoded = deserialize(Buffer.from(line, "base64")) as {
    key: Deno.KvKey;
    value?: unknown;
    u64?: string;
  };
  return {
    key: decoded.key,
    value: decoded.u64 !== undefined
      ? new Deno.KvU64(BigInt(decoded.u64))
      : decoded.value,
  };
}

async function readManifest(from: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await Deno.readTextFile(`${from}/${MANIFEST}`));
  } catch {
    throw new BackupRefused(
      `"${from}" is no backup (no readable ${MANIFEST}); nothing was restored`,
    );
  }
  if (manifest.format !== FORMAT || !manifest.files?.[DATABASE]) {
    throw new BackupRefused(
      `"${from}" is a backup of another format; nothing was restored`,
    );
  }
  return manifest;
}

async function requireEmptyFolder(path: string, option: string) {
  try {
    for await (const _ of Deno.readDir(path)) {
      throw new BackupRefused(
        `${option} "${path}" is not empty: give a new or empty folder`,
      );
    }
  } catch (error) {
    if (error instanceof BackupRefused) throw error;
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await Deno.mkdir(path, { recursive: true, mode: 0o700 });
}

async function filesUnder(root: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const entry of Deno.readDir(`${root}/${prefix}`)) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory) found.push(...await filesUnder(root, path));
      else if (entry.isFile) found.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort();
}

async function digest(bytes: Uint8Array): Promise<string> {
  const hash = await crypto.subtle.digest(
    "SHA-256",
    bytes as Uint8Array<ArrayBuffer>,
  );
  return Array.from(
    new Uint8Array(hash),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
