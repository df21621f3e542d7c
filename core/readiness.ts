// Readiness: whether this process can serve requests now, as a load balancer asks it.
import { sql } from "kysely";
import type { Services } from "./services.ts";
import { mediaStorageOf } from "./media/storage_of.ts";
import { settledWithin } from "./settled_within.ts";

/** How long one store may take to answer before it counts as unavailable. */
export const READINESS_CHECK_MS = 2_000;

/** One store's state: answered in time, failed, or too slow. */
export type CheckState = "ok" | "unavailable" | "timeout";

/** The readiness answer: every store checked, and whether the process is stopping. */
export interface Readiness {
  ready: boolean;
  stopping: boolean;
  checks: { database: CheckState; kv: CheckState; storage: CheckState };
}

/** Options of {@link checkReadiness}. */
export interface ReadinessOptions {
  /** Aborted when the process begins to stop: readiness then fails so balancers drain it. */
  stopping?: AbortSignal;
  /** Bound on each check; tests shorten it. */
  timeoutMs?: number;
}

/**
 * Checks PostgreSQL, KV and media storage in parallel, each within a short bound. A stopping
 * process is never ready, whatever its stores say.
 */
export async function checkReadiness(
  services: Services,
  options: ReadinessOptions = {},
): Promise<Readiness> {
  const bound = options.timeoutMs ?? READINESS_CHECK_MS;
  const [database, kv, storage] = await Promise.all([
    within(bound, () => sql`select 1`.execute(services.db)),
    within(bound, () => services.kv.get(["stave", "readiness"])),
    // A key nobody writes: a store that answers "no such object" is reachable.
    within(bound, () => mediaStorageOf(services).stat("stave/readiness-probe")),
  ]);
  const stopping = options.stopping?.aborted ?? false;
  const checks = { database, kv, storage };
  const ready = !stopping &&
    Object.values(checks).every((state) => state === "ok");
  return { ready, stopping, checks };
}

async function within(
  ms: number,
  check: () => Promise<unknown>,
): Promise<CheckState> {
  const answered = await settledWithin(
    check().then((): CheckState => "ok", (): CheckState => "unavailable"),
    ms,
  );
  return answered.settled ? answered.value : "timeout";
}
