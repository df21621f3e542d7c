// A Kysely dialect over embedded PGlite, so the same SQL and migrations run without a server.
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import type { PGlite } from "@electric-sql/pglite";

/** Options of {@link PGliteDialect}. */
export interface PGliteDialectOptions {
  /**
   * Leave the engine open when the Kysely instance is destroyed (test support lends one engine
   * to test after test); the instance itself refuses further queries either way.
   */
  keepOpen?: boolean;
}

/** Dialect for an opened PGlite instance. */
export class PGliteDialect implements Dialect {
  constructor(
    readonly pglite: PGlite,
    readonly options: PGliteDialectOptions = {},
  ) {}
  createAdapter(): DialectAdapter {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite, this.options);
  }
  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
}

/**
 * PGlite is one session, so the driver hands out its single connection to one holder at a
 * time; a transaction keeps it until commit or rollback, and other queries wait their turn.
 */
class PGliteDriver implements Driver {
  #queue: Promise<void> = Promise.resolve();
  #connection: PGliteConnection;
  #destroyed = false;

  constructor(
    readonly pglite: PGlite,
    readonly options: PGliteDialectOptions,
  ) {
    this.#connection = new PGliteConnection(pglite);
  }

  async init(): Promise<void> {
    await this.pglite.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#destroyed) throw new Error("This database has been closed");
    let release!: () => void;
    const turn = new Promise<void>((resolve) => release = resolve);
    const previous = this.#queue;
    this.#queue = previous.then(() => turn);
    await previous;
    this.#connection.release = release;
    return this.#connection;
  }

  async beginTransaction(
    conn: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const level = settings.isolationLevel
      ? ` isolation level ${settings.isolationLevel}`
      : "";
    await conn.executeQuery(
      { sql: `begin${level}`, parameters: [] } as unknown as CompiledQuery,
    );
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(
      { sql: "commit", parameters: [] } as unknown as CompiledQuery,
    );
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(
      { sql: "rollback", parameters: [] } as unknown as CompiledQuery,
    );
  }

  releaseConnection(conn: DatabaseConnection): Promise<void> {
    (conn as PGliteConnection).release?.();
    return Promise.resolve();
  }

  async destroy(): Promise<void> {
    this.#destroyed = true;
    if (!this.options.keepOpen && !this.pglite.closed) {
      await this.pglite.close();
    }
  }
}

class PGliteConnection implements DatabaseConnection {
  release?: () => void;
  constructor(readonly pglite: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // Parameterless text may hold several statements (migrations), which only exec() accepts.
    const result = compiled.parameters.length === 0
      ? (await this.pglite.exec(compiled.sql, { rowMode: "object" })).at(-1) ??
        { rows: [], affectedRows: 0 }
      : await this.pglite.query(compiled.sql, [...compiled.parameters], {
        rowMode: "object",
      });
    const command = compiled.sql.trimStart().slice(0, 6).toLowerCase();
    const changes = ["insert", "update", "delete", "merge "].includes(command);
    return {
      rows: result.rows as R[],
      numAffectedRows: changes && result.affectedRows !== undefined
        ? BigInt(result.affectedRows)
        : undefined,
    };
  }

  // deno-lint-ignore require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error(
      "Streaming queries are not supported on PGlite: use a paged query instead",
    );
  }
}
