// A Kysely dialect over embedded PGlite, so the same SQL and migrations run without a server.
// The service (core/db/database.ts), its emitted backend and the scheduling plugin share it; a
// plugin never imports the service, so it lives with the SDK.
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
import { Buffer } from "node:buffer";
import { serialize } from "pg-protocol";
import { preparedName } from "./prepared_names.ts";

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
    const { sql, parameters } = compiled;
    for (const observe of observers.get(this.pglite) ?? []) observe(sql);
    const name = parameters.length === 0 ? null : preparedName(sql);
    // Parameterless text may hold several statements (migrations), which only exec() accepts.
    const result = parameters.length === 0
      ? (await this.pglite.exec(sql, { rowMode: "object" })).at(-1) ??
        { rows: [], affectedRows: 0 }
      : name
      ? await runNamed(this.pglite, name, sql, parameters)
      : await this.pglite.query(sql, [...parameters], { rowMode: "object" });
    const command = sql.trimStart().slice(0, 6).toLowerCase();
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

/** Listeners told the text of every statement a dialect sends to an engine (test support). */
const observers = new WeakMap<PGlite, Set<(sql: string) => void>>();

/** Calls `observe` with each statement sent to `pglite` until the returned function is called. */
export function observeStatements(
  pglite: PGlite,
  observe: (sql: string) => void,
): () => void {
  let set = observers.get(pglite);
  if (!set) observers.set(pglite, set = new Set());
  set.add(observe);
  return () => set.delete(observe);
}

/** A statement prepared by name on one engine: its parameter types and result columns. */
interface NamedStatement {
  types: number[];
  fields: { name: string; dataTypeID: number }[];
}

/** The statements prepared on each engine, by name. */
const prepared = new WeakMap<PGlite, Map<string, NamedStatement>>();

/** Forgets the statements prepared on `pglite`, after a `discard all` deallocated them. */
export function forgetPreparedStatements(pglite: PGlite): void {
  prepared.delete(pglite);
}

/** A named statement the engine no longer has, or whose result columns changed under it. */
const STALE_STATEMENT = new Set(["26000", "0A000"]);

interface ProtocolMessage {
  name: string;
  fields?: { name: string; dataTypeID: number }[] | (string | null)[];
  dataTypeIDs?: number[];
  text?: string;
}

/**
 * Runs a data statement prepared by name: parsed, described and planned once per engine, then
 * bound and executed in one call into the engine. `pglite.query` parses, describes, binds,
 * describes and executes an unnamed statement in five calls and plans it every time, and the
 * planner reads each relation's size, reopening files PostgreSQL closed at the end of the last
 * transaction: about 4x the CPU per statement (docs/benchmarks.md, scheduler tick). Parameters
 * and rows go through the engine's own serializers and parsers, as `pglite.query` does.
 */
async function runNamed(
  pglite: PGlite,
  name: string,
  sql: string,
  parameters: readonly unknown[],
  retried = false,
): Promise<{ rows: unknown[]; affectedRows: number }> {
  let statements = prepared.get(pglite);
  if (!statements) prepared.set(pglite, statements = new Map());
  let statement = statements.get(name);
  if (!statement) {
    const { messages } = await pglite.execProtocol(
      Buffer.concat([
        // Closed first: a name the engine still holds from before it was forgotten here.
        serialize.close({ type: "S", name }),
        serialize.parse({ name, text: sql, types: [] }),
        serialize.describe({ type: "S", name }),
        serialize.sync(),
      ]),
    ) as { messages: ProtocolMessage[] };
    const described = messages.find((m) => m.name === "rowDescription");
    statement = {
      types: messages.find((m) => m.name === "parameterDescription")
        ?.dataTypeIDs ?? [],
      fields: (described?.fields ?? []) as NamedStatement["fields"],
    };
    statements.set(name, statement);
  }
  const engine = pglite as unknown as {
    serializers: Record<number, (value: unknown) => string>;
    parsers: Record<number, (text: string, type: number) => unknown>;
  };
  const values = parameters.map((value, i) => {
    if (value === null || value === undefined) return null;
    const serializer = engine.serializers[statement.types[i]];
    return serializer ? serializer(value) : String(value);
  });
  let messages: ProtocolMessage[];
  try {
    ({ messages } = await pglite.execProtocol(
      Buffer.concat([
        serialize.bind({ statement: name, values }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    ) as { messages: ProtocolMessage[] });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (retried || !code || !STALE_STATEMENT.has(code)) throw error;
    // Prepared before a session reset, or before a migration changed its columns: prepared
    // again (closing what the engine may still hold under the name).
    statements.delete(name);
    return await runNamed(pglite, name, sql, parameters, true);
  }
  const { fields } = statement;
  const rows: unknown[] = [];
  let affectedRows = 0;
  for (const message of messages) {
    if (message.name === "dataRow") {
      const texts = message.fields as (string | null)[];
      const row: Record<string, unknown> = {};
      for (let i = 0; i < texts.length; i++) {
        const text = texts[i];
        const parse = engine.parsers[fields[i].dataTypeID];
        row[fields[i].name] = text === null
          ? null
          : parse
          ? parse(text, fields[i].dataTypeID)
          : text;
      }
      rows.push(row);
    } else if (message.name === "commandComplete") {
      affectedRows = affectedRowsOf(message.text ?? "");
    }
  }
  return { rows, affectedRows };
}

/** The rows a command tag reports changed, as PGlite counts them. */
function affectedRowsOf(tag: string): number {
  const [command, a, b] = tag.split(" ");
  if (command === "INSERT") return Number.parseInt(b, 10);
  if (["UPDATE", "DELETE", "COPY", "MERGE"].includes(command)) {
    return Number.parseInt(a, 10);
  }
  return 0;
}
