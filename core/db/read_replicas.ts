// PostgreSQL read replicas for public reads (DATABASE_READ_URL): which handle a read may use now,
// judged by each replica's replay position against the primary's, re-checked at most once a second.
import { sql } from "kysely";
import { type Db, openReplicaDb } from "./database.ts";
import { settledWithin } from "../settled_within.ts";

/** Options of {@link ReadReplicas}. */
export interface ReadReplicasOptions {
  /** A replica further behind than this answers nothing until it catches up. */
  maxLagMs: number;
  /** How long a replica's state is trusted before it is checked again; 1 s unless set. */
  recheckMs?: number;
  /** Bound on one check; a replica that does not answer in time counts as down. */
  checkTimeoutMs?: number;
  /** Connections each replica's pool holds at most. */
  poolMax?: number;
  /** Milliseconds since the epoch; injected by tests. */
  now?: () => number;
}

/** What the last check of one replica found. */
export interface ReplicaState {
  /** Reachable, in recovery (a standby) and within the lag bound. */
  usable: boolean;
  /** `down`, `not_a_standby` or `lagging` when not usable. */
  reason: "ok" | "down" | "not_a_standby" | "lagging";
  /** How far behind the primary its replay was, in ms (0 when caught up). */
  lagMs: number;
  checkedAt: number;
}

interface Replica {
  db: Db;
  state: ReplicaState | null;
  checking: Promise<ReplicaState> | null;
  /** Connections to it that could not be made, so a check that ran on the primary says "down". */
  unreachable: number;
}

/**
 * The replicas of one primary. {@link reader} answers a replica that is up, replaying, and no more
 * than `maxLagMs` behind, in turn; the primary when none is. A replica that stops between checks
 * fails no read: its handle connects to the primary instead (database.ts `openReplicaDb`).
 */
export class ReadReplicas {
  readonly #primary: Db;
  readonly #replicas: Replica[];
  readonly #options: Required<Omit<ReadReplicasOptions, "poolMax">>;
  #turn = 0;

  constructor(primary: Db, urls: string[], options: ReadReplicasOptions) {
    this.#primary = primary;
    this.#options = {
      maxLagMs: options.maxLagMs,
      recheckMs: options.recheckMs ?? 1_000,
      checkTimeoutMs: options.checkTimeoutMs ?? 1_000,
      now: options.now ?? Date.now,
    };
    this.#replicas = urls.map((url) => {
      const replica: Replica = {
        db: null!,
        state: null,
        checking: null,
        unreachable: 0,
      };
      replica.db = openReplicaDb(url, primary, {
        poolMax: options.poolMax,
        // Seen failing by a read: the next read does not try it until it is checked again.
        onUnreachable: () => {
          replica.unreachable++;
          replica.state = {
            usable: false,
            reason: "down",
            lagMs: 0,
            checkedAt: this.#options.now(),
          };
        },
      });
      return replica;
    });
  }

  /** The primary: writes, the admin, and reads that must see their own writes. */
  get primary(): Db {
    return this.#primary;
  }

  /** A handle for a public read: a usable replica in turn, else the primary. */
  async reader(): Promise<Db> {
    const states = await Promise.all(
      this.#replicas.map((replica) => this.#current(replica)),
    );
    const usable = this.#replicas.filter((_, i) => states[i].usable);
    if (usable.length === 0) return this.#primary;
    this.#turn = (this.#turn + 1) % usable.length;
    return usable[this.#turn].db;
  }

  /** Each replica's last known state, checking those not checked within `recheckMs`. */
  async states(): Promise<ReplicaState[]> {
    return await Promise.all(this.#replicas.map((r) => this.#current(r)));
  }

  /** Closes every replica's pool (the primary is closed by its owner). */
  async close(): Promise<void> {
    await Promise.all(this.#replicas.map((r) => r.db.destroy()));
  }

  #current(replica: Replica): Promise<ReplicaState> {
    const state = replica.state;
    if (
      state && this.#options.now() - state.checkedAt < this.#options.recheckMs
    ) return Promise.resolve(state);
    // One check at a time per replica; reads arriving meanwhile wait for the same one (two short
    // statements, bounded by checkTimeoutMs), so no read trusts a state older than recheckMs.
    replica.checking ??= this.#check(replica).finally(() => {
      replica.checking = null;
    });
    return replica.checking;
  }

  async #check(replica: Replica): Promise<ReplicaState> {
    const checkedAt = this.#options.now();
    const unreachable = replica.unreachable;
    const answered = await settledWithin(
      measureLag(this.#primary, replica.db).catch(() => null),
      this.#options.checkTimeoutMs,
    );
    const lag = answered.settled && replica.unreachable === unreachable
      ? answered.value
      : null;
    let state: ReplicaState;
    if (!lag) state = { usable: false, reason: "down", lagMs: 0, checkedAt };
    else if (!lag.standby) {
      state = { usable: false, reason: "not_a_standby", lagMs: 0, checkedAt };
    } else if (lag.lagMs > this.#options.maxLagMs) {
      state = { usable: false, reason: "lagging", lagMs: lag.lagMs, checkedAt };
    } else state = { usable: true, reason: "ok", lagMs: lag.lagMs, checkedAt };
    replica.state = state;
    return state;
  }
}

/**
 * How far a standby's replay is behind the primary: 0 when it has replayed everything the primary
 * has written, else the age of the last transaction it replayed (an idle primary writes nothing,
 * so the age alone would call a caught-up replica late).
 */
async function measureLag(
  primary: Db,
  replica: Db,
): Promise<{ standby: boolean; lagMs: number } | null> {
  // Read on the replica first: the primary's position is then the later one, never the earlier.
  const seen = await sql<{
    standby: boolean;
    replayed: string | null;
    age_ms: number | null;
  }>`select pg_is_in_recovery() as standby,
      pg_last_wal_replay_lsn()::text as replayed,
      (extract(epoch from (clock_timestamp() - pg_last_xact_replay_timestamp())) * 1000)::float8 as age_ms`
    .execute(replica);
  const row = seen.rows[0];
  // The handle fell back to the primary's connection: that is no replica.
  if (!row.standby) return { standby: false, lagMs: 0 };
  const written = await sql<
    { lsn: string }
  >`select pg_current_wal_lsn()::text as lsn`
    .execute(primary);
  if (!row.replayed) return { standby: true, lagMs: Number.POSITIVE_INFINITY };
  if (lsnValue(row.replayed) >= lsnValue(written.rows[0].lsn)) {
    return { standby: true, lagMs: 0 };
  }
  return {
    standby: true,
    lagMs: Math.max(0, row.age_ms ?? Number.POSITIVE_INFINITY),
  };
}

/** An LSN (`16/B374D848`) as one comparable number. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split("/");
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}
