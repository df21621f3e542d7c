// Opens the database a process runs on and brings it to the latest migration, from a prepared snapshot when the embedded folder is empty.
import {
  type DatabaseTarget,
  type Db,
  openDatabase,
  pgliteOf,
} from "./database.ts";
import { migrateToLatest } from "./migrate.ts";
import {
  isEmptyDataFolder,
  migrationsFingerprint,
  readSnapshot,
  saveSnapshot,
} from "./pglite_snapshot.ts";

/** Runs one timed start-up step; the default runs it silently. */
export type StepRunner = <T>(
  label: string,
  run: () => Promise<T>,
  detail?: (result: T) => string,
) => Promise<T>;

/** Runs `run` without reporting. */
export const silentStep: StepRunner = (_label, run) => run();

/** Options of {@link openMigratedDatabase}. */
export interface OpenMigratedOptions {
  step?: StepRunner;
  /** Use and make prepared snapshots (default true); tests of the replay path turn it off. */
  snapshots?: boolean;
  /** Where snapshots are kept (tests use a folder of their own). */
  snapshotDir?: URL;
}

/**
 * Opens `target` and applies every pending migration. An empty embedded database starts from the
 * snapshot of the current migrations when one exists; when none does, the migrations are
 * replayed and the result is saved as that snapshot for the next empty start.
 */
export async function openMigratedDatabase(
  target: DatabaseTarget,
  options: OpenMigratedOptions = {},
): Promise<{ db: Db; fromSnapshot: boolean }> {
  const step = options.step ?? silentStep;
  if ("url" in target) {
    const db = await openDatabase(target);
    await migrate(db, step);
    return { db, fromSnapshot: false };
  }
  const fresh = target.pglitePath === null ||
    await isEmptyDataFolder(target.pglitePath);
  const fingerprint = fresh && options.snapshots !== false
    ? await migrationsFingerprint()
    : null;
  let snapshot = await readSnapshot(fingerprint, options.snapshotDir);
  let db: Db | undefined;
  if (snapshot) {
    try {
      db = await step(
        "Embedded database from the prepared schema",
        () => openDatabase({ pglitePath: target.pglitePath, snapshot }),
      );
    } catch {
      // An unreadable snapshot only costs the speed-up: clear what it left and start empty.
      snapshot = null;
      if (target.pglitePath !== null) {
        await Deno.remove(target.pglitePath, { recursive: true })
          .catch(() => {});
      }
    }
  }
  db ??= await step(
    fresh ? "Embedded database created" : "Embedded database opened",
    () => openDatabase({ pglitePath: target.pglitePath }),
  );
  try {
    await migrate(db, step);
    if (fresh && !snapshot && fingerprint) {
      await step(
        "Prepared schema saved for the next empty start",
        () => saveSnapshot(pgliteOf(db)!, fingerprint, options.snapshotDir),
      );
    }
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, fromSnapshot: snapshot !== null };
}

async function migrate(db: Db, step: StepRunner): Promise<void> {
  await step(
    "Migrations",
    () => migrateToLatest(db),
    (applied) =>
      applied.length === 0 ? "none pending" : `${applied.length} applied`,
  );
}
