// Statements of the write path built and compiled once per process, their values bound per run.
// Kysely builds a statement as a tree of frozen nodes and compiles it to text on every run: in
// CPU profiles of the Management API and plugin publishes that was 12-17% of the service's
// busy time (docs/benchmarks.md), for texts that never change between requests.
import {
  type Compilable,
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
} from "kysely";
import type { Database } from "./schema.ts";

/** What runs a compiled statement: the database handle or a transaction of it. */
export interface StatementRunner {
  executeQuery<R>(query: CompiledQuery<R>): Promise<{ rows: R[] }>;
}

/**
 * Builds statements without running them. Every handle Stave opens (PostgreSQL or the
 * embedded engine) compiles with PostgreSQL's compiler and no plugins, so one compiled text
 * serves them all.
 */
const builder = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** A value a statement is built with before its real values are known. */
class Slot {
  constructor(
    readonly name: string,
    readonly index: number | null = null,
    readonly key: string | null = null,
  ) {
    Object.freeze(this);
  }
  // A slot turned into text, JSON or a number was used to shape the statement, not bound as
  // one of its values: its text would then be the same whatever the value.
  [Symbol.toPrimitive](): never {
    throw new Error(
      `Prebuilt statement: value "${this.name}" may only be bound, not used to build the text`,
    );
  }
  toJSON(): never {
    return this[Symbol.toPrimitive]();
  }
}

/** What a prebuilt statement's build answers: a query builder, or `sql` text. */
export type Buildable<R> = Compilable<R> | RawBuilder<R>;

/**
 * Where each bind value of a compiled statement comes from: a named value (or a column of the
 * row, or of the row at `index` of the list, that a value holds), or a constant.
 */
type Source = { slot: Slot } | { constant: unknown };

/**
 * Stand-ins for the columns of the row a stand-in value holds, each bound from that row's
 * column: `values(rowOf(v.group, GROUP_COLUMNS))` inserts the run's `group` row.
 */
export function rowOf<T extends object, C extends keyof T & string>(
  stand: T,
  columns: readonly C[],
): Pick<T, C> {
  return rowAt(stand, null, columns);
}

/** Stand-ins for `count` rows of the list a stand-in value holds (see {@link rowOf}). */
export function rowsOf<T extends object, C extends keyof T & string>(
  stand: readonly T[],
  count: number,
  columns: readonly C[],
): Pick<T, C>[] {
  return Array.from({ length: count }, (_, i) => rowAt(stand, i, columns));
}

/**
 * Stand-ins for the first `count` items of the list a stand-in value holds, each bound as a
 * value of its own: `id in (${sql.join(itemsOf(v.ids, count))})`. A statement that binds a
 * whole list as one array (`= any($1::uuid[])`) has one text for any length, but PostgreSQL
 * cannot tell the array's length when it plans the statement once for every run, so it may
 * plan it again on every run instead (docs/benchmarks.md, "Publish reads planned once").
 */
export function itemsOf<T>(stand: readonly T[], count: number): T[] {
  if (!(stand instanceof Slot) || stand.index !== null) {
    throw new Error(
      "Prebuilt statement: items are read from a value's stand-in",
    );
  }
  return Array.from(
    { length: count },
    (_, i) => new Slot(stand.name, i) as unknown as T,
  );
}

function rowAt<C extends string>(
  stand: unknown,
  index: number | null,
  columns: readonly C[],
) {
  if (!(stand instanceof Slot) || stand.index !== null) {
    throw new Error(
      "Prebuilt statement: rows are read from a value's stand-in",
    );
  }
  const row = {} as Record<C, Slot>;
  for (const column of columns) {
    row[column] = new Slot(stand.name, index, column);
  }
  // deno-lint-ignore no-explicit-any
  return row as any;
}

/**
 * A statement whose text is built and compiled on its first run; later runs bind their values
 * to it. `build` receives a builder that cannot run anything and stand-ins for the values: it
 * must use each only as a bound value (a `where`, a `values`, a `${}` in `sql`), never to
 * choose the statement's shape. A statement with shapes builds one prebuilt statement per
 * shape. Using a value to shape the text throws on the first run, and so does a value the
 * compiled text does not bind.
 */
export class Prebuilt<V extends Record<string, unknown>, R> {
  readonly #build: (db: Kysely<Database>, values: V) => Buildable<R>;
  #compiled: CompiledQuery<R> | null = null;
  #sources: Source[] = [];

  constructor(build: (db: Kysely<Database>, values: V) => Buildable<R>) {
    this.#build = build;
  }

  /** The statement with `values` bound, to run with a handle's or transaction's `executeQuery`. */
  bind(values: V): CompiledQuery<R> {
    const compiled = this.#compiled ?? this.#compile();
    const sources = this.#sources;
    const parameters = new Array(sources.length);
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i];
      if ("constant" in source) {
        parameters[i] = source.constant;
        continue;
      }
      const { name, index, key } = source.slot;
      let value = values[name];
      if (index !== null) value = (value as unknown[])[index];
      if (key !== null) value = (value as Record<string, unknown>)[key];
      parameters[i] = value;
    }
    return {
      sql: compiled.sql,
      query: compiled.query,
      queryId: compiled.queryId,
      parameters,
    };
  }

  /** Every row the statement answers. */
  async rows(db: StatementRunner, values: V): Promise<R[]> {
    return (await db.executeQuery(this.bind(values))).rows;
  }

  /** The first row the statement answers, or undefined. */
  async first(db: StatementRunner, values: V): Promise<R | undefined> {
    return (await this.rows(db, values))[0];
  }

  #compile(): CompiledQuery<R> {
    const slots = new Map<string, Slot>();
    const stand = new Proxy({}, {
      get(_, name) {
        if (typeof name !== "string") return undefined;
        let slot = slots.get(name);
        if (!slot) slots.set(name, slot = new Slot(name));
        return slot;
      },
    }) as V;
    // A query builder compiles with the builder it came from, `sql` text with the one given.
    const compiled = (this.#build(builder, stand) as RawBuilder<R>).compile(
      builder,
    );
    const sources = compiled.parameters.map((p): Source =>
      p instanceof Slot ? { slot: p } : { constant: p }
    );
    for (const name of slots.keys()) {
      if (!sources.some((s) => "slot" in s && s.slot.name === name)) {
        throw new Error(
          `Prebuilt statement: value "${name}" is not bound by the statement's text`,
        );
      }
    }
    this.#sources = sources;
    return this.#compiled = compiled;
  }
}

/** {@link Prebuilt}: a statement built and compiled once, its values bound on each run. */
export function prebuilt<V extends Record<string, unknown>, R>(
  build: (db: Kysely<Database>, values: V) => Buildable<R>,
): Prebuilt<V, R> {
  return new Prebuilt(build);
}

/**
 * Prebuilt statements by shape (such as how many rows a statement writes), each made on its
 * first use and kept under `key` of its shape (the shape itself by default). Past `max` shapes a
 * shape gets a statement of its own, compiled on each run.
 */
export function prebuiltShapes<S, V extends Record<string, unknown>, R>(
  make: (shape: S) => Prebuilt<V, R>,
  options: { key?: (shape: S) => unknown; max?: number } = {},
): (shape: S) => Prebuilt<V, R> {
  const { key = (shape: S) => shape, max = 32 } = options;
  const shapes = new Map<unknown, Prebuilt<V, R>>();
  return (shape) => {
    const name = key(shape);
    let statement = shapes.get(name);
    if (statement === undefined) {
      statement = make(shape);
      if (shapes.size < max) shapes.set(name, statement);
    }
    return statement;
  };
}
