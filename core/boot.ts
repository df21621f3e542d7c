// Opens the stores of one process from its settings: database (migrated), KV and island bundles.
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import type { Config } from "./config.ts";
import { openMigratedDatabase, type StepRunner } from "./db/open_migrated.ts";
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
  /** Times and reports each start-up step (core/startup_report.ts); silent by default. */
  step?: StepRunner;
}

/** Opens everything `config` names and answers the container with its closer. */
export async function openServices(
  config: Config,
  options: OpenServicesOptions = {},
): Promise<{ services: Services; close: () => Promise<void> }> {
  await Deno.mkdir(config.dataDir, { recursive: true });
  const { db } = await openMigratedDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl }
      : { pglitePath: `${config.dataDir}/pglite` },
    { step: options.step },
  );
  const kv = await openKvStore(config.kvPath);
  const assets: IslandAssets = options.buildIslands === false
    ? { boot: "", chunks: {} }
    : await (options.step ?? ((_, run) => run()))(
      "Admin scripts built",
      () => buildIslands({ root: PROJECT_ROOT, islands: manifest.islands }),
    );
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
