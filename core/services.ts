// The service container: every store and setting a request or command needs, built once per process.
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import type { Db } from "./db/database.ts";
import type { ReadReplicas } from "./db/read_replicas.ts";
import type { IslandAssets } from "./web/islands_build.ts";
import type { MediaStorage } from "./media/storage.ts";
import type { OutboundOptions } from "./plugins/outbound.ts";

/** One structured log line; values must never hold a secret. */
export type LogEntry =
  & { level: "info" | "warn" | "error"; msg: string }
  & Record<string, unknown>;

/** What routes reach through `c.var.services`, and commands receive directly. */
export interface Services {
  config: Config;
  db: Db;
  kv: Deno.Kv;
  /**
   * PostgreSQL read replicas (`DATABASE_READ_URL`): public reads take their handle from here
   * (core/public/replica_reads.ts); absent, everything reads `db`.
   */
  reads?: ReadReplicas;
  clock: Clock;
  log: (entry: LogEntry) => void;
  assets: IslandAssets;
  /** Where media bytes live; made from `config` on first use when absent (core/media/storage_of.ts). */
  media?: MediaStorage;
  /** Aborted when the process begins to stop (SIGTERM): readiness then fails so balancers drain it. */
  stopping?: AbortSignal;
  /** Overrides for calls to plugins (tests shorten time limits); the policy always comes from `config`. */
  pluginOutbound?: Omit<OutboundOptions, "policy">;
}

/** Writes log entries as JSON lines on stdout. */
export function jsonLineLogger(entry: LogEntry): void {
  console.log(JSON.stringify(entry));
}
