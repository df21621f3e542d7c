// Opens the stores of one process from its settings: database (migrated), KV and island bundles.
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import type { Config } from "./config.ts";
import { openDatabase } from "./db/database.ts";
import { migrateToLatest } from "./db/migrate.ts";
import { openKvStore } from "./kv/open.ts";
import { PROJECT_ROOT } from "./server.ts";
import { jsonLineLogger, type Services } from "./services.ts";
import type { LogEntry } from "./web/env.ts";
import { buildIslands, type IslandAssets } from "./web/islands_build.ts";
import { manifest } from "../routes.gen.ts";

/** Options of {@link openServices}. */
export interface OpenServicesOptions {
  clock?: Clock;
  log?: (entry: LogEntry) => void;
  /** Skip the esbuild step (commands that serve no pages). */
  buildIslands?: boolean;
}

/** Opens everything `config` names and answers the container with its closer. */
export async function openServices(
  config: Config,
  options: OpenServicesOptions = {},
): Promise<{ services: Services; close: () => Promise<void> }> {
  await Deno.mkdir(config.dataDir, { recursive: true });
  const db = await openDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl }
      : { pglitePath: `${config.dataDir}/pglite` },
  );
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const kv = await openKvStore(config.kvPath);
  const assets: IslandAssets = options.buildIslands === false
    ? { boot: "", chunks: {} }
    : await buildIslands({ root: PROJECT_ROOT, islands: manifest.islands });
  const services: Services = {
    config,
    db,
    kv,
    clock: options.clock ?? systemClock,
    log: options.log ?? jsonLineLogger,
    assets,
  };
  return {
    services,
    close: async () => {
      kv.close();
      await db.destroy();
    },
  };
}
