// A whole application on a fresh test database and in-memory KV, for HTTP tests without a port.
import type { Hono } from "hono";
import { ManualClock } from "../../core/clock.ts";
import { loadConfig } from "../../core/config.ts";
import { createApp } from "../../core/server.ts";
import type { AppEnv } from "../../core/web/env.ts";
import type { LogEntry, Services } from "../../core/services.ts";
import { buildIslands } from "../../core/web/islands_build.ts";
import { manifest } from "../../routes.gen.ts";
import { PROJECT_ROOT } from "../../core/server.ts";
import { openKvStore } from "../../core/kv/open.ts";
import { openTestDb, type TestDbStart } from "./db.ts";

/** A running test application and what a test needs to look inside it. */
export interface TestApp {
  app: Hono<AppEnv>;
  services: Services;
  clock: ManualClock;
  /** Every log entry the app wrote, for asserting what is (not) logged. */
  logs: LogEntry[];
  engine: "postgres" | "pglite";
  close(): Promise<void>;
}

/** Options of {@link openTestApp}. */
export interface OpenTestAppOptions {
  env?: Record<string, string>;
  /** Build the island bundles (only tests that load pages in a browser need them). */
  islands?: boolean;
  /** Start from a copy of a seeded database instead of an empty one (see db_image.ts). */
  from?: TestDbStart;
}

/** Where every test app's clock starts, so seeded images and the tests that copy them agree. */
export const TEST_CLOCK_START = "2026-11-23T10:00:00.000Z";

/** Opens an application whose clock only moves when the test moves it. */
export async function openTestApp(
  options: OpenTestAppOptions = {},
): Promise<TestApp> {
  const { db, engine, close } = await openTestDb(options.from);
  const kv = await openKvStore(null);
  const clock = new ManualClock(TEST_CLOCK_START);
  const logs: LogEntry[] = [];
  const config = loadConfig({ DEMO_SITE: "false", ...options.env });
  const assets = options.islands
    ? await buildIslands({ root: PROJECT_ROOT, islands: manifest.islands })
    : {
      boot: "",
      chunks: Object.fromEntries(
        manifest.islands.map((i) => [i.name, `/_static/build/${i.name}.js`]),
      ),
    };
  const services: Services = {
    config,
    db,
    kv,
    clock,
    log: (entry) => logs.push(entry),
    assets,
  };
  return {
    app: createApp(services),
    services,
    clock,
    logs,
    engine,
    close: async () => {
      kv.close();
      await close();
    },
  };
}
