// Starts the scheduling plugin: its database, KV, HTTP server and tick, from a config.
import type { ServiceUrlPolicy } from "../sdk/mod.ts";
import { createSchedulingApp } from "./app.tsx";
import {
  openSchedulerDb,
  type SchedulerDb,
  type SchedulerDbTarget,
} from "./core/db.ts";
import { issueCode } from "./core/installations.ts";
import { runTick, type TickReport } from "./core/tick.ts";
import { upkeepEmbedded } from "../sdk/pglite_upkeep.ts";
import { TokenBox } from "./core/token_box.ts";

/** What a running plugin offers its owner (main.ts or a test). */
export interface RunningScheduler {
  origin: string;
  manifestUrl: string;
  db: SchedulerDb;
  kv: Deno.Kv;
  /** One tick now (the cron calls the same). */
  tick(): Promise<TickReport>;
  /** Issues a one-time code as `POST /admin/activation-codes` would. */
  issueCode(installationId?: string): Promise<string>;
  close(): Promise<void>;
}

/** Options of startScheduler(). */
export interface StartSchedulerOptions {
  /** The public origin; default `http://<hostname>:<port>` once listening. */
  publicOrigin?: string;
  hostname?: string;
  port?: number;
  adminSecret: string;
  tokenKey: Uint8Array;
  database: SchedulerDbTarget;
  kv: Deno.Kv;
  servicePolicy: ServiceUrlPolicy;
  limits?: Partial<{
    maxAttempts: number;
    maxLatenessMs: number;
    leaseMs: number;
    maxRetryAfterMs: number;
  }>;
  now?: () => number;
  fetch?: typeof fetch;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  onListen?: (origin: string) => void;
}

/** Opens storage, serves the pages and routes, and answers the handle. */
export async function startScheduler(
  options: StartSchedulerOptions,
): Promise<RunningScheduler> {
  const db = await openSchedulerDb(options.database);
  const box = new TokenBox(options.tokenKey);
  const now = options.now ?? Date.now;
  const holder: { handler?: (req: Request) => Response | Promise<Response> } =
    {};
  const server = Deno.serve(
    {
      hostname: options.hostname ?? "127.0.0.1",
      port: options.port ?? 0,
      onListen() {},
    },
    (req) => holder.handler?.(req) ?? new Response(null, { status: 503 }),
  );
  const origin = options.publicOrigin ??
    `http://${options.hostname ?? "127.0.0.1"}:${server.addr.port}`;
  const app = createSchedulingApp({
    origin,
    adminSecret: options.adminSecret,
    db,
    kv: options.kv,
    box,
    servicePolicy: options.servicePolicy,
    now,
    fetch: options.fetch,
    leaseMs: options.limits?.leaseMs,
    sleep: options.sleep,
  });
  holder.handler = app.fetch;
  options.onListen?.(origin);
  const limits = {
    maxAttempts: 5,
    maxLatenessMs: 900_000,
    leaseMs: 60_000,
    maxRetryAfterMs: 300_000,
    ...options.limits,
  };
  return {
    origin,
    manifestUrl: `${origin}/svc/manifest.json`,
    db,
    kv: options.kv,
    tick: async () => {
      // The embedded store runs no autovacuum: the tick plans on statistics of the schedules
      // written since the last one (plugins/sdk/pglite_upkeep.ts).
      if (!("url" in options.database)) await upkeepEmbedded(db);
      return await runTick({
        db,
        kv: options.kv,
        box,
        now,
        limits,
        servicePolicy: options.servicePolicy,
        fetch: options.fetch,
        random: options.random,
        sleep: options.sleep,
      });
    },
    issueCode: async (installationId) =>
      (await issueCode(
        options.kv,
        installationId === undefined ? "activate" : "rotate",
        installationId ?? null,
        now(),
      )).code,
    close: async () => {
      await server.shutdown();
      await db.destroy();
    },
  };
}
