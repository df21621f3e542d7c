// The exclusive lock of an embedded data folder: one process at a time may open PGlite and its KV file.

/** A held lock; `release()` lets the next process in. */
export interface DataLock {
  /** The lock files held, for messages and tests. */
  readonly paths: readonly string[];
  release(): void;
}

/**
 * Refused because another process holds the folder. Its message is the one line an operator
 * reads: which folder and which process id.
 */
export class DataFolderInUseError extends Error {
  override name = "DataFolderInUseError";
  constructor(readonly folder: string, readonly holderPid: number | null) {
    super(
      `Data folder "${folder}" is in use by ${
        holderPid === null ? "another process" : `process ${holderPid}`
      }: stop it first, or give this process its own DATA_DIR (or DATABASE_URL); nothing was changed`,
    );
  }
}

/** The lock file of a data folder. */
export function lockFileOf(folder: string): string {
  return `${folder.replace(/\/+$/, "") || "/"}/stave.lock`;
}

/**
 * Takes the exclusive advisory lock of each folder (`stave.lock` inside it holds the holder's
 * process id), without waiting: when any is held elsewhere, releases what it took and throws
 * {@link DataFolderInUseError}. The lock is tied to the open file, so a process that dies
 * (even killed) releases it; a stale file left behind is simply locked again.
 *
 * Use it before opening anything a single process owns: embedded PGlite under `DATA_DIR`
 * and the KV file beside it. Every `deno task svc` command takes the same lock through
 * `openServices`, so it cannot write behind a running service's back.
 */
export function lockDataFolders(folders: readonly string[]): DataLock {
  const held: Deno.FsFile[] = [];
  const paths: string[] = [];
  const release = () => {
    for (const file of held.splice(0)) {
      try {
        file.unlockSync();
      } catch { /* closing releases it too */ }
      file.close();
    }
  };
  // A folder named twice (KV file inside DATA_DIR) is locked once: a second open file of the
  // same process would conflict with the first.
  for (const folder of new Set(folders.map(normalize))) {
    const path = lockFileOf(folder);
    const file = Deno.openSync(path, {
      read: true,
      write: true,
      create: true,
    });
    if (!file.tryLockSync(true)) {
      file.close();
      release();
      throw new DataFolderInUseError(folder, readPid(path));
    }
    file.truncateSync(0);
    file.writeSync(new TextEncoder().encode(`${Deno.pid}\n`));
    held.push(file);
    paths.push(path);
  }
  return { paths, release };
}

function normalize(folder: string): string {
  const trimmed = folder.replace(/\/+$/, "") || "/";
  Deno.mkdirSync(trimmed, { recursive: true });
  return Deno.realPathSync(trimmed);
}

function readPid(path: string): number | null {
  try {
    const pid = Number(Deno.readTextFileSync(path).trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}
