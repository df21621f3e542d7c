// What a process knows of the database's commits without asking: a generation number that
// moves whenever a commit that wrote anything is announced (migration 0269 has every table
// announce its changes on the `stave_changes` channel). Work kept in memory under a generation,
// such as public answers, stays right while the generation has not moved.
//
// On PostgreSQL one connection of the process's own listens, and the process moves the
// generation itself when a write it sent through its pool returns: a write made by this process
// has moved the generation before the writer resumes, and commits of other processes arrive as
// soon as PostgreSQL delivers them to the idle listener. Every pooled connection listened
// before; then each commit woke every idle connection of every process to hand it the notice,
// about 200 us of the machine's CPU per commit (bench/change_feed.ts, docs/benchmarks.md). While the
// listener is down (before it first connects, after it was lost) a notice could go unseen, so
// the generation is unknown, and each listener that comes or goes moves it. PGlite has one
// session, which hears its own notices before the commit returns.
import type pg from "pg";
import type { PGlite } from "@electric-sql/pglite";

/** The channel migration 0269's triggers announce on. */
export const CHANGES_CHANNEL = "stave_changes";

/** The generation of one database's commits, as one process has heard of them. */
export class ChangeFeed {
  #generation = 0;
  #listening = 0;
  #waiting: (() => void)[] = [];
  /** Commits announced since the feed opened (tests and telemetry). */
  announced = 0;

  /**
   * The current generation: the same number twice means no commit that wrote anything was
   * announced between the two reads. Null while no connection listens.
   */
  generation(): number | null {
    return this.#listening > 0 ? this.#generation : null;
  }

  /** Resolves when the generation next moves, or a listener comes or goes. */
  moved(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /**
   * Starts listening now rather than at the first ask for the generation, so that the first
   * reads can be kept (a service at start-up). The embedded engine's feed listens from the start.
   */
  listen(): void {}

  /**
   * Takes `client`'s writes as announced by this process itself ({@linkcode announceWritesOf}):
   * a feed that hears notices over a connection of its own skips that backend's.
   */
  ownConnection(_client: Partial<OwnConnection>): void {}

  /** A commit was announced. */
  changed(): void {
    this.announced++;
    this.#move();
  }

  /** A connection started listening: notices sent while none listened may be lost. */
  listenerUp(): void {
    this.#listening++;
    this.#move();
  }

  /** A listening connection is gone. */
  listenerDown(): void {
    this.#listening--;
    this.#move();
  }

  #move(): void {
    this.#generation++;
    if (this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/** The part of a `pg` client the listener uses. */
export interface ListeningClient {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
  on(
    event: "notification",
    listener: (notice: pg.Notification) => void,
  ): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  once(event: "end", listener: () => void): unknown;
}

/** The part of a pooled `pg` client {@linkcode ChangeFeed.ownConnection} reads. */
export interface OwnConnection {
  processID?: number | null;
  once(event: "end", listener: () => void): unknown;
}

/** After a failed attempt, the listener waits this long before the next one (asked by a read). */
export const LISTEN_RETRY_MS = 1_000;

/**
 * A change feed whose notices come over a connection of its own, opened by `open` at
 * {@linkcode ListeningFeed.listen} (the service at start-up) or when the generation is first
 * asked for (a process that serves no public read, such as a command, never opens it). A lost
 * connection is opened again at once; a failed attempt is tried again when the generation is
 * asked for at least {@link LISTEN_RETRY_MS} later, so no timer keeps the process alive.
 */
export class ListeningFeed extends ChangeFeed {
  #open: () => ListeningClient;
  #now: () => number;
  #client: ListeningClient | null = null;
  #attempt: Promise<void> | null = null;
  #failedAt = -Infinity;
  #closed = false;
  /** Backends of this process's pool, whose writes the pool announces itself. */
  #ownBackends = new Set<number>();

  constructor(
    open: () => ListeningClient,
    now: () => number = performance.now.bind(performance),
  ) {
    super();
    this.#open = open;
    this.#now = now;
  }

  override generation(): number | null {
    const generation = super.generation();
    if (
      generation === null && this.#now() - this.#failedAt >= LISTEN_RETRY_MS
    ) {
      this.#listen();
    }
    return generation;
  }

  override ownConnection(client: Partial<OwnConnection>): void {
    const backend = client.processID;
    if (!backend || !client.once) return;
    this.#ownBackends.add(backend);
    client.once("end", () => this.#ownBackends.delete(backend));
  }

  override listen(): void {
    this.#listen();
  }

  /** Resolves once the attempt to listen under way, if any, has ended (tests). */
  async settled(): Promise<void> {
    await this.#attempt;
  }

  /** Ends the listening connection; the generation is unknown from then on. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#attempt;
    const client = this.#client;
    this.#client = null;
    if (client) await client.end().catch(() => {});
  }

  #listen(): void {
    if (this.#closed || this.#attempt || this.#client) return;
    const client = this.#open();
    let up = false;
    let gone = false;
    const lost = () => {
      if (gone) return;
      gone = true;
      if (this.#client === client) this.#client = null;
      if (!up) return;
      this.listenerDown();
      // Lost while listening (a restart, an operator's pg_terminate_backend): tried again at
      // once; a server still away fails that attempt, and the next waits for a read.
      this.#listen();
    };
    client.on("notification", (notice) => {
      // A notice of this process's own commit arrives after the pool moved the generation for
      // it: moving it again would drop what was read and kept in between, for nothing.
      if (
        notice.channel === CHANGES_CHANNEL &&
        !this.#ownBackends.has(notice.processId)
      ) this.changed();
    });
    // Without a listener, `pg` throws a lost connection's error out of its socket's handler.
    client.on("error", lost);
    client.once("end", lost);
    this.#attempt = (async () => {
      try {
        await client.connect();
        await client.query(`listen ${CHANGES_CHANNEL}`);
      } catch {
        gone = true;
        this.#failedAt = this.#now();
        await client.end().catch(() => {});
        return;
      } finally {
        this.#attempt = null;
      }
      if (gone) return;
      if (this.#closed) {
        await client.end().catch(() => {});
        return;
      }
      this.#client = client;
      up = true;
      this.listenerUp();
    })();
  }
}

/**
 * Moves `feed` whenever a statement sent through `client` may have changed a table, once its
 * answer is in and before the caller resumes: a transaction's `commit` when the transaction ran
 * anything, and outside a transaction any statement but a plain read. Call on every checkout;
 * the first call wraps (and tells `feed` the connection is its own), later ones forget a
 * transaction the connection was left in.
 */
export function announceWritesOf<
  C extends { query: unknown } & Partial<OwnConnection>,
>(
  client: C,
  feed: ChangeFeed,
): C {
  const again = announcing.get(client);
  if (again) {
    again();
    return client;
  }
  feed.ownConnection(client);
  const query = client.query as (...args: unknown[]) => unknown;
  let inTransaction = false;
  let wrote = false;
  const moveAfter = (result: unknown): unknown => {
    if (!isPromise(result)) return result;
    return result.then((value) => {
      feed.changed();
      return value;
    }, (error) => {
      feed.changed();
      throw error;
    });
  };
  client.query = ((...args: unknown[]) => {
    const [first] = args;
    const text = typeof first === "string"
      ? first
      : (first as { text?: unknown } | null)?.text;
    const kind = statementKind(typeof text === "string" ? text : "");
    if (kind === "begin") {
      inTransaction = true;
      wrote = false;
    } else if (kind === "end") {
      const ended = inTransaction && wrote;
      inTransaction = false;
      wrote = false;
      if (ended) return moveAfter(query.apply(client, args));
    } else if (inTransaction) {
      wrote = true;
    } else if (kind === "write") {
      const callback = args.at(-1);
      if (typeof callback === "function") {
        // pg's callback form: moved before the caller hears of the answer.
        args[args.length - 1] = (...answer: unknown[]) => {
          feed.changed();
          return callback(...answer);
        };
        return query.apply(client, args);
      }
      return moveAfter(query.apply(client, args));
    }
    return query.apply(client, args);
  }) as C["query"];
  announcing.set(client, () => {
    inTransaction = false;
    wrote = false;
  });
  return client;
}

const announcing = new WeakMap<object, () => void>();

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * What a statement does to the feed: `begin` and `end` (commit or rollback) of a transaction,
 * a `read` that cannot change a table (a top-level `select`, a session setting, `listen`), or
 * a `write`: anything else, `with` statements included, since most of those write.
 */
export function statementKind(
  text: string,
): "begin" | "end" | "read" | "write" {
  const head = /^\s*([a-z]+)(\s+[a-z]+)?/i.exec(text);
  const word = head?.[1].toLowerCase() ?? "";
  const next = head?.[2]?.trim().toLowerCase();
  switch (word) {
    case "begin":
      return "begin";
    case "start":
      return next === "transaction" ? "begin" : "write";
    case "commit":
    case "end":
      return "end";
    case "rollback":
      // `rollback to savepoint` stays in the transaction.
      return next === "to" ? "read" : "end";
    case "abort":
      return "end";
    case "select":
    case "show":
    case "set":
    case "reset":
    case "listen":
    case "unlisten":
    case "savepoint":
    case "release":
      return "read";
    default:
      return "write";
  }
}

/** Has the embedded engine's one session listen for announced commits. */
export function watchPglite(pglite: PGlite): ChangeFeed {
  const feed = new ChangeFeed();
  pglite.listen(CHANGES_CHANNEL, () => feed.changed()).then(
    () => feed.listenerUp(),
    () => {},
  );
  return feed;
}
