// Opens the database: real PostgreSQL through `pg` when a URL is given, embedded PGlite otherwise.
import {
  type CompiledQuery,
  Kysely,
  type KyselyConfig,
  PostgresDialect,
} from "kysely";
import pg from "pg";
import type { PGlite } from "@electric-sql/pglite";
import { PGliteDialect } from "../../plugins/sdk/pglite_dialect.ts";
import {
  announceWritesOf,
  type ChangeFeed,
  ListeningFeed,
  watchPglite,
} from "./change_feed.ts";
import { pipelineFor, type StatementPipeline } from "./pipeline.ts";
import { prepareQueriesOf } from "./prepared_queries.ts";
import type { Database } from "./schema.ts";
import { DEFAULT_POOL_MAX, defaultPipelineConnections } from "../config.ts";
import { discardWhenLost, guardPool } from "../../plugins/sdk/pg_faults.ts";
import {
  forgetPool,
  observePool,
  recordQuery,
  TELEMETRY_ON,
} from "../telemetry/mod.ts";

/** With telemetry on, each statement Kysely runs becomes a span (core/telemetry/mod.ts). */
const queryLog: KyselyConfig["log"] = TELEMETRY_ON
  ? (event) =>
    recordQuery(
      event.query.sql,
      event.queryDurationMillis,
      event.level === "error",
    )
  : undefined;

/** The typed query builder every service receives. */
export type Db = Kysely<Database>;

/**
 * Where the database lives. An embedded target may start from a `snapshot` (a dumped PGlite
 * data folder, see pglite_snapshot.ts) instead of an empty cluster.
 */
export type DatabaseTarget = {
  url: string;
  /** Connections held open at most; {@link DEFAULT_POOL_MAX} when absent. */
  poolMax?: number;
  /**
   * Connections that run named statements pipelined (pipeline.ts), 0 for none; a share of
   * `poolMax` when absent.
   */
  pipeline?: number;
} | {
  pglitePath: string | null;
  snapshot?: Blob | null;
};

/** PostgreSQL's type id of int8 (`pg_type.oid`), PGlite's `types.INT8`. */
const INT8_OID = 20;

// int8 (counts, sums) answers as a JS number on both drivers so code never sees two shapes.
pg.types.setTypeParser(INT8_OID, (value: string) => Number(value));

// The pool behind each PostgreSQL Kysely instance, for named (prepared) statements.
const pools = new WeakMap<Db, pg.Pool>();
// The pipelined connections running each primary handle's named statements (pipeline.ts).
const pipelines = new WeakMap<Db, StatementPipeline>();
// The embedded engine behind each PGlite Kysely instance, to dump it as a snapshot.
const pglites = new WeakMap<Db, PGlite>();

// What each primary handle has heard of the database's commits (replicas have none: a replica
// may not yet show a commit the primary announced).
const feeds = new WeakMap<Db, ChangeFeed>();

/** The commits announced to `db`'s connections; undefined for a read-replica handle. */
export function changeFeedOf(db: Db): ChangeFeed | undefined {
  return feeds.get(db);
}

/** The PGlite engine of an embedded database, or undefined on PostgreSQL. */
export function pgliteOf(db: Db): PGlite | undefined {
  return pglites.get(db);
}

/**
 * Runs a compiled query as a named prepared statement on PostgreSQL, so the server plans it
 * once per connection; values stay bind parameters. Transactions and PGlite run it as usual.
 * Give each distinct SQL text its own name: a name is bound to its text on every connection.
 *
 * Named statements are the public reads', each built to use the same indexes whatever its
 * values, so they run on a connection set to one generic plan per statement
 * (`plan_cache_mode = force_generic_plan`). Left to choose, PostgreSQL planned a search anew
 * on every run (its estimate of the generic plan, which cannot see the words, stayed above the
 * custom ones): 0.7 ms of planning for 0.25 ms of work (docs/benchmarks.md, round eight).
 * Every other query runs on a connection with the server's own setting.
 */
export async function executeNamed<R>(
  db: Db,
  name: string,
  query: CompiledQuery<R>,
): Promise<R[]> {
  const pool = db.isTransaction ? undefined : pools.get(db);
  if (!pool) return (await db.executeQuery(query)).rows;
  const pipeline = pipelines.get(db);
  const run = () =>
    pipeline
      ? pipeline.run(name, query.sql, [...query.parameters]) as Promise<R[]>
      : runNamed(pool, name, query);
  if (!TELEMETRY_ON) return await run();
  const started = performance.now();
  try {
    const rows = await run();
    recordQuery(query.sql, performance.now() - started, false, name);
    return rows;
  } catch (error) {
    recordQuery(query.sql, performance.now() - started, true, name);
    throw error;
  }
}

function runNamed<R>(
  pool: pg.Pool,
  name: string,
  query: CompiledQuery<R>,
): Promise<R[]> {
  const config = { name, text: query.sql, values: [...query.parameters] };
  // Callbacks, as `pool.query` runs a query: the connection goes back to the pool the moment
  // the answer is in, before the caller resumes. Awaiting each step instead cost 58-68 us per
  // statement against 41-51 us (16 callers on 10 connections, a one-row statement). An error
  // while the connection is out discards it, as `pool.query` does.
  return new Promise<R[]>((resolve, reject) => {
    pool.connect((
      connectError: Error | undefined,
      client: pg.PoolClient | undefined,
      release: (error?: Error | boolean) => void,
    ) => {
      if (connectError || !client) return reject(connectError);
      let done = false;
      const finish = (error: Error | undefined, rows?: R[]) => {
        if (done) return;
        done = true;
        client.removeListener("error", finish);
        release(error);
        if (error) reject(error);
        else resolve(rows!);
      };
      client.once("error", finish);
      const run = () => {
        try {
          client.query(
            config,
            (error: Error | null, result: pg.QueryResult) =>
              finish(error ?? undefined, result?.rows as R[]),
          );
        } catch (error) {
          finish(error as Error);
        }
      };
      if (genericPlans.has(client)) return run();
      client.query(
        "set plan_cache_mode = force_generic_plan",
        (error: Error | null) => {
          if (error) return finish(error);
          genericPlans.add(client);
          run();
        },
      );
    });
  });
}

/** Pooled connections set to generic plans by {@link executeNamed}. */
const genericPlans = new WeakSet<pg.PoolClient>();

/**
 * The pool as Kysely sees it: a connection {@link executeNamed} set to generic plans is set back
 * to the server's own setting first (one round trip, only when a connection changes hands
 * between the public reads and other work).
 */
function serverPlanned(pool: pg.Pool, feed: ListeningFeed | undefined) {
  return {
    async connect(): Promise<pg.PoolClient> {
      let client = prepareQueriesOf(discardWhenLost(await pool.connect()));
      if (feed) client = announceWritesOf(client, feed);
      if (genericPlans.has(client)) {
        try {
          await client.query("reset plan_cache_mode");
        } catch (error) {
          client.release(error as Error);
          throw error;
        }
        genericPlans.delete(client);
      }
      return client;
    },
    end: () => pool.end(),
    // For cancelling a query Kysely opens a connection of its own with these.
    Client: pool.Client,
    options: pool.options,
  };
}

/** Kysely over a `pg` pool, which it ends on destroy whatever ran on it. */
class PoolDb extends Kysely<Database> {
  readonly #pool: pg.Pool;
  readonly #feed: ListeningFeed | undefined;

  /** `feed` hears of the writes sent through this handle, and listens for the rest. */
  constructor(pool: pg.Pool, name: string, feed?: ListeningFeed) {
    super({
      dialect: new PostgresDialect({ pool: serverPlanned(pool, feed) }),
      log: queryLog,
    });
    this.#pool = pool;
    this.#feed = feed;
    observePool(pool, name);
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    // Kysely ends the pool only when it has run a query itself. Named statements run on the
    // pool directly (executeNamed), and after them alone the pool's idle connections, which
    // never time out, kept the process alive after destroy.
    if (!this.#pool.ending) await this.#pool.end();
    await pipelines.get(this)?.close();
    await this.#feed?.close();
    forgetPool(this.#pool);
  }
}

/** Opens a Kysely instance for the target; `pglitePath: null` is an in-memory database. */
export async function openDatabase(target: DatabaseTarget): Promise<Db> {
  if ("url" in target) {
    const poolMax = target.poolMax ?? DEFAULT_POOL_MAX;
    const pool = new pg.Pool({
      connectionString: target.url,
      max: poolMax,
      // Idle connections stay open (at most `max` of them). With an idle timeout the pool arms
      // a timer each time a query hands its connection back and clears it on the next: about
      // 4-6 us of every public read (docs/benchmarks.md, issue 18 round seven).
      idleTimeoutMillis: 0,
      // How an operator finds the service's sessions in pg_stat_activity (a URL's or PGAPPNAME's
      // application_name wins).
      fallback_application_name: "stave",
      // A statement goes out without waiting for the one before it to answer; Kysely still
      // awaits each, so only a transaction's held-back `begin` rides along with its first
      // statement (prepared_queries.ts).
      pipeline: true,
    });
    // A connection the server drops (restart, failover, an operator's pg_terminate_backend),
    // idle or handed out, must not end the process: the pool discards it and opens another on
    // the next query, and the request that was using it answers 503 (docs/deploy.md).
    guardPool(pool, (error) => {
      console.error(
        `PostgreSQL connection lost: ${error.message}; the pool opens a new one on the next query`,
      );
    });
    // One connection of its own listens for commits; the pool's connections do not.
    const feed = new ListeningFeed(() =>
      new pg.Client({
        ...pool.options,
        fallback_application_name: "stave-listener",
      })
    );
    const db = new PoolDb(pool, "primary", feed);
    pools.set(db, pool);
    feeds.set(db, feed);
    const pipeline = pipelineFor(
      pool,
      target.pipeline ?? defaultPipelineConnections(poolMax),
    );
    if (pipeline) pipelines.set(db, pipeline);
    return db;
  }
  // Imported here: a service on PostgreSQL never loads the embedded engine (about 6 MiB).
  const [{ PGlite }, { pg_trgm }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/pg_trgm"),
  ]);
  const options = {
    parsers: { [INT8_OID]: (value: string) => Number(value) },
    loadDataDir: target.snapshot ?? undefined,
    // PGlite before 0.4 opened `template1` and every existing data folder keeps its tables
    // there; later versions open `postgres` unless told (EMBEDDED_DATABASE).
    database: EMBEDDED_DATABASE,
    // Trigram indexes serve the admin's title search (migration 0232), as on PostgreSQL.
    extensions: { pg_trgm },
  };
  const pglite = target.pglitePath === null
    ? new PGlite(options)
    : new PGlite(target.pglitePath, options);
  await pglite.waitReady;
  return dbOverPglite(pglite);
}

// One feed per engine: several handles over one engine share its one listening session.
const feedsOfPglite = new WeakMap<PGlite, ChangeFeed>();

function watchedPglite(pglite: PGlite): ChangeFeed {
  const feed = watchPglite(pglite);
  feedsOfPglite.set(pglite, feed);
  return feed;
}

/** The database inside a PGlite data folder that holds Stave's tables. */
export const EMBEDDED_DATABASE = "template1";

/** A Kysely instance over an opened PGlite engine; `keepOpen` leaves the engine open on destroy. */
export function dbOverPglite(
  pglite: PGlite,
  options: { keepOpen?: boolean } = {},
): Db {
  const db = new Kysely<Database>({
    dialect: new PGliteDialect(pglite, options),
    log: queryLog,
  });
  pglites.set(db, pglite);
  feeds.set(db, feedsOfPglite.get(pglite) ?? watchedPglite(pglite));
  return db;
}

// The primary behind each replica handle, for the rare read path that must write (a key
// created on first use) and for answers that must see the newest commits.
const primaries = new WeakMap<Db, Db>();

/** The primary of a read-replica handle, or `db` itself when it is the primary. */
export function primaryOf(db: Db): Db {
  return primaries.get(db) ?? db;
}

/** Options of {@link openReplicaDb}. */
export interface ReplicaDbOptions {
  /** Connections held open to the replica at most. */
  poolMax?: number;
  /** Called when a connection to the replica cannot be made (the read went to the primary). */
  onUnreachable?: (error: Error) => void;
}

/**
 * A handle that reads from a PostgreSQL replica at `url`. When no connection to the replica can
 * be made (it stopped, it is restarting, its address does not answer within 1 s) the query runs
 * on a connection of `primary` instead, so a replica that goes away fails no read.
 */
export function openReplicaDb(
  url: string,
  primary: Db,
  options: ReplicaDbOptions = {},
): Db {
  const primaryPool = pools.get(primary);
  if (!primaryPool) {
    throw new Error(
      "Cannot open a read replica: the primary is not PostgreSQL",
    );
  }
  const replicaPool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? DEFAULT_POOL_MAX,
    idleTimeoutMillis: 0,
    connectionTimeoutMillis: 1_000,
    fallback_application_name: "stave-reader",
  });
  guardPool(replicaPool, (error) => {
    console.error(
      `PostgreSQL read replica connection lost: ${error.message}; reads use the primary until it answers again`,
    );
  });
  const connect = async (): Promise<pg.PoolClient> => {
    try {
      return await replicaPool.connect();
    } catch (error) {
      options.onUnreachable?.(error as Error);
      return await primaryPool.connect();
    }
  };
  // What PoolDb and executeNamed use of a pg.Pool: connect (as a promise or with a callback),
  // end, and what Kysely needs to cancel a query.
  const failover = {
    connect(
      callback?: (
        error: Error | undefined,
        client: pg.PoolClient | undefined,
        release: (error?: Error | boolean) => void,
      ) => void,
    ) {
      const connecting = connect();
      if (!callback) return connecting;
      connecting.then(
        (client) =>
          callback(undefined, client, (error) => client.release(error)),
        (error) => callback(error, undefined, () => {}),
      );
    },
    get ending() {
      return replicaPool.ending;
    },
    get totalCount() {
      return replicaPool.totalCount;
    },
    get idleCount() {
      return replicaPool.idleCount;
    },
    get waitingCount() {
      return replicaPool.waitingCount;
    },
    end: () => replicaPool.end(),
    Client: replicaPool.Client,
    options: replicaPool.options,
  } as unknown as pg.Pool;
  const db = new PoolDb(failover, "replica");
  pools.set(db, failover);
  primaries.set(db, primary);
  return db;
}
