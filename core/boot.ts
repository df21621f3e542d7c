// Opens the stores of one process from its settings: database (migrated), KV and island bundles.
import { type NewPassword, newPassword } from "./auth/password.ts";
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import type { Config } from "./config.ts";
import {
  DataFolderInUseError,
  type DataLock,
  lockDataFolders,
} from "./db/data_lock.ts";
import { changeFeedOf, type Db } from "./db/database.ts";
import { ReadReplicas } from "./db/read_replicas.ts";
import { TELEMETRY_ON } from "./telemetry/mod.ts";
import { instrumentKv } from "./telemetry/kv.ts";
import {
  openMigratedDatabase,
  silentStep,
  type StepRunner,
} from "./db/open_migrated.ts";
import { isEmptyDataFolder } from "./db/pglite_snapshot.ts";
import {
  copyPreparedDemo,
  hasPreparedDemo,
  preparedDemoFingerprint,
} from "./sites/demo_prepared.ts";
import { causeOf, describeDatabaseUrl, StartupError } from "./startup_error.ts";
import { openDeploymentKv, openKvStore } from "./kv/open.ts";
import { PROJECT_ROOT } from "./project_root.ts";
import { jsonLineLogger, type LogEntry, type Services } from "./services.ts";
import { buildIslands, type IslandAssets } from "./web/islands_build.ts";
import { readPrebuiltIslands } from "./web/islands_prebuilt.ts";
// The public part of the manifest lists every island too, without importing the admin pages.
import { manifest } from "../routes_public.gen.ts";

/** Options of {@link openServices}. */
export interface OpenServicesOptions {
  clock?: Clock;
  log?: (entry: LogEntry) => void;
  /**
   * Skip the esbuild step (commands that serve no pages). On Deno Deploy the bundles of
   * `deno task build` are read instead of built.
   */
  buildIslands?: boolean;
  /** Times and reports each start-up step (core/startup_report.ts); silent by default. */
  step?: StepRunner;
  /** Where prepared demos are kept (tests use a folder of their own). */
  preparedDir?: URL;
  /**
   * Hash a new password for a copied demo's admin while the database opens, for the caller to
   * hand to ensureDemoSite (the service's start). Commands that never claim the admin leave it off.
   */
  demoAdminPassword?: boolean;
}

/** Opens everything `config` names and answers the container with its closer. */
export async function openServices(
  config: Config,
  options: OpenServicesOptions = {},
): Promise<{
  services: Services;
  close: () => Promise<void>;
  /**
   * Set when the prepared demo was copied in and `demoAdminPassword` asked for it: the new
   * password of the copy's admin, hashed while the database opened (pass it to ensureDemoSite).
   */
  demoAdminPassword?: Promise<NewPassword>;
}> {
  const lock = prepareDataFolder(config);
  // esbuild bundles in its own process while this one opens the database: the two overlap.
  const islands = { root: PROJECT_ROOT, islands: manifest.islands };
  const building: Promise<IslandAssets> = options.buildIslands === false
    ? Promise.resolve({ boot: "", chunks: {} })
    : config.deployment
    ? readPrebuilt(islands)
    : (options.step ?? silentStep)(
      "Admin scripts built",
      () => buildIslands(islands),
    );
  // Awaited below; a failure to open the database first must not leave it unhandled.
  building.catch(() => {});
  let db: Db;
  let demoAdminPassword: Promise<NewPassword> | undefined;
  try {
    ({ db, demoAdminPassword } = await openStartupDatabase(config, options));
  } catch (error) {
    lock?.release();
    throw error;
  }
  let kv: Deno.Kv;
  let assets: IslandAssets;
  try {
    kv = await openKv(config.kvPath);
  } catch (error) {
    await db.destroy().catch(() => {});
    lock?.release();
    throw error;
  }
  try {
    assets = await building;
  } catch (error) {
    kv.close();
    await db.destroy().catch(() => {});
    lock?.release();
    throw error;
  }
  const reads = config.databaseUrl && config.databaseReadUrls.length > 0
    ? new ReadReplicas(db, config.databaseReadUrls, {
      maxLagMs: config.databaseReadMaxLagMs,
      poolMax: config.databasePoolMax,
    })
    : undefined;
  const services: Services = {
    config,
    db,
    kv: TELEMETRY_ON ? instrumentKv(kv) : kv,
    reads,
    clock: options.clock ?? systemClock,
    log: options.log ?? jsonLineLogger,
    assets,
  };
  return {
    services,
    demoAdminPassword,
    close: async () => {
      kv.close();
      await reads?.close();
      await db.destroy();
      lock?.release();
    },
  };
}

/**
 * Embedded PGlite belongs to one process: its folder and the KV file's folder are locked
 * before anything opens them. With PostgreSQL any number of processes share the KV file
 * (docs/deploy.md), so nothing is locked.
 */
function prepareDataFolder(config: Config): DataLock | null {
  // Deploy has no writable disk, and with PostgreSQL and its own KV nothing needs one.
  if (config.deployment) return null;
  try {
    Deno.mkdirSync(config.dataDir, { recursive: true });
    if (config.databaseUrl) return null;
    const folders = [config.dataDir];
    // A KV server's URL or the deployment's store is no folder of this machine.
    if (config.kvPath !== null && !/^https?:\/\//.test(config.kvPath)) {
      folders.push(config.kvPath.replace(/[^/]*$/, "") || ".");
    }
    return lockDataFolders(folders);
  } catch (error) {
    if (error instanceof DataFolderInUseError) throw error;
    throw new StartupError(
      `setting DATA_DIR: cannot use the folder "${config.dataDir}": ${
        causeOf(error)
      }`,
    );
  }
}

/**
 * An empty DATA_DIR of a service with the demo site starts from the prepared demo when this
 * machine holds one (core/sites/demo_prepared.ts): no cluster to create and no demo to seed.
 */
async function copyDemoWhenEmpty(
  config: Config,
  step: StepRunner,
  preparedDir: URL | undefined,
): Promise<boolean> {
  if (!await isEmptyDataFolder(`${config.dataDir}/pglite`)) return false;
  const fingerprint = await preparedDemoFingerprint(config);
  if (!fingerprint || !await hasPreparedDemo(fingerprint, preparedDir)) {
    return false;
  }
  return await step(
    "Prepared demo",
    () => copyPreparedDemo(config, fingerprint, preparedDir),
    (copied) =>
      copied ? "copied into the empty data folder" : "not copied, seeding",
  );
}

async function openStartupDatabase(
  config: Config,
  options: OpenServicesOptions,
): Promise<{ db: Db; demoAdminPassword?: Promise<NewPassword> }> {
  const step = options.step ?? silentStep;
  const where = config.databaseUrl
    ? `setting DATABASE_URL: cannot use PostgreSQL at ${
      describeDatabaseUrl(config.databaseUrl)
    }`
    : `setting DATA_DIR: cannot open the embedded database in "${config.dataDir}/pglite"`;
  const hint = config.databaseUrl
    ? ""
    : "; restore the folder from a backup, or move it away to start with an empty database";
  try {
    let demoAdminPassword: Promise<NewPassword> | undefined;
    if (
      !config.databaseUrl &&
      await copyDemoWhenEmpty(config, step, options.preparedDir) &&
      options.demoAdminPassword
    ) {
      // The copy's admin has no password and gets a new one once the database is open. scrypt
      // runs off this thread, so hashing it now overlaps opening PGlite (0.3 to 0.7 s of a
      // cold start). It is stored only by ensureDemoSite, after migrations, as before.
      demoAdminPassword = newPassword();
      // Awaited by the demo step; a start that fails before it must not leave it unhandled.
      demoAdminPassword.catch(() => {});
    }
    const { db } = await openMigratedDatabase(
      config.databaseUrl
        ? {
          url: config.databaseUrl,
          poolMax: config.databasePoolMax,
          pipeline: config.databasePipelineConnections,
        }
        : { pglitePath: `${config.dataDir}/pglite` },
      { step },
    );
    // The first public reads can be kept only once the process listens for commits.
    changeFeedOf(db)?.listen();
    return { db, demoAdminPassword };
  } catch (error) {
    throw new StartupError(`${where}: ${causeOf(error)}${hint}`);
  }
}

async function readPrebuilt(
  islands: Parameters<typeof readPrebuiltIslands>[0],
): Promise<IslandAssets> {
  try {
    return await readPrebuiltIslands(islands);
  } catch (error) {
    throw new StartupError(`DENO_DEPLOYMENT_ID is set: ${causeOf(error)}`);
  }
}

async function openKv(path: string | null): Promise<Deno.Kv> {
  if (path === null) {
    try {
      const kv = await openDeploymentKv();
      await kv.get(["stave", "startup-check"]);
      return kv;
    } catch (error) {
      throw new StartupError(
        `setting KV_PATH: cannot open the deployment's KV store: ${
          causeOf(error)
        }`,
      );
    }
  }
  try {
    const kv = await openKvStore(path);
    // SQLite reads the file lazily: one read proves it is a readable KV store.
    await kv.get(["stave", "startup-check"]);
    return kv;
  } catch (error) {
    throw new StartupError(
      `setting KV_PATH: cannot open the KV file "${path}": ${
        causeOf(error)
      }; restore it from a backup or move it away (it holds only short-lived state)`,
    );
  }
}
