// Tells a lost PostgreSQL connection from a failed statement, and keeps a `pg` pool's dropped
// connections from ending the process. The service (core/db/database.ts) and the scheduling
// plugin share this module; a plugin never imports the service, so it lives with the SDK.

/** SQLSTATE codes of a server that ended the session: shutdown, crash, or starting up. */
const SESSION_ENDED = new Set(["57P01", "57P02", "57P03"]);

/** Socket errors of a connection the network or the server dropped, or could not open. */
const SOCKET_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTCONN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * Messages of `pg` and `pg-pool` for a connection that is gone or never came: the socket ended
 * ("Connection terminated unexpectedly"), a later query on the dead client ("Client has
 * encountered a connection error and is not queryable"), or no connection within the pool's
 * timeout.
 */
const DRIVER_MESSAGES = [
  /^Connection terminated\b/,
  /^Client has encountered a connection error\b/,
  /^timeout exceeded when trying to connect$/,
  /\bECONNRESET\b/,
];

/** How deep {@link isConnectionError} follows `cause`. */
const MAX_CAUSES = 5;

/**
 * True when `error` means the database connection failed, not the statement: SQLSTATE class 08
 * (connection exception), 57P01/57P02/57P03 (the server ended or refuses the session), a socket
 * error, or `pg`'s own messages for a dropped connection. Such a failure wrote nothing the
 * caller was told of and is worth retrying; any other error is the statement's own. Follows
 * `cause` a few levels, as wrappers keep the driver's error there.
 */
export function isConnectionError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && current; depth++) {
    if (typeof current !== "object") return false;
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string") {
      if (code.length === 5 && code.startsWith("08")) return true;
      if (SESSION_ENDED.has(code) || SOCKET_CODES.has(code)) return true;
    }
    if (
      typeof message === "string" &&
      DRIVER_MESSAGES.some((pattern) => pattern.test(message))
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The part of a `pg` client {@link guardPool} listens on. */
export interface ClientEvents {
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** The part of a `pg.Pool` {@link guardPool} listens on. */
export interface PoolEvents {
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "connect", listener: (client: ClientEvents) => void): unknown;
}

/**
 * Keeps a dropped connection from ending the process. `pg` emits `error` on a client whose
 * socket the server closed, outside any query's promise: on an idle client the pool listens and
 * re-emits it on the pool; on a client handed out (inside a transaction, between two queries)
 * nobody listens, and an `error` event without a listener is thrown as uncaught. Every client
 * gets a listener of its own when it connects, so each lost connection is reported once to
 * `report`; the client is unusable from then on, its queries fail with a connection error and
 * the pool discards it on release and opens a new one on demand.
 */
export function guardPool(
  pool: PoolEvents,
  report: (error: Error) => void,
): void {
  // The pool re-emits an idle client's error after the client's own listener saw it.
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    let reported = false;
    client.on("error", (error) => {
      // One line per connection: a dead socket may also emit "Connection terminated" after
      // the server's own message.
      if (reported) return;
      reported = true;
      // Sockets have been seen to fail with `null`: the report always gets an Error.
      report(error instanceof Error ? error : new Error(String(error)));
    });
  });
}

/** The part of a pooled `pg` client {@link discardWhenLost} wraps. */
export interface PooledClient {
  // deno-lint-ignore no-explicit-any
  query(...args: any[]): any;
  release(error?: Error | boolean): void;
}

/** Clients a query has seen lose their connection. */
const lostClients = new WeakSet<object>();
/** Clients whose `query` already reports lost connections. */
const watchedClients = new WeakSet<object>();

/**
 * Makes a checked-out client go back to the pool as discarded when one of its queries failed
 * with a connection error. The server's "terminating connection" reaches the query before the
 * socket closes, so the pool would otherwise take the client back as healthy and hand the dead
 * connection to the next request (Kysely releases without an error). Call on every checkout:
 * the pool gives each checkout a `release` of its own.
 */
export function discardWhenLost<C extends PooledClient>(client: C): C {
  const release = client.release;
  client.release = (error?: Error | boolean) =>
    release.call(client, error ?? (lostClients.has(client) || undefined));
  if (!watchedClients.has(client)) {
    watchedClients.add(client);
    const query = client.query;
    client.query = function (...args: unknown[]) {
      const result = query.apply(client, args);
      if (result && typeof result.then === "function") {
        result.then(undefined, (error: unknown) => {
          if (isConnectionError(error)) lostClients.add(client);
        });
      }
      return result;
    };
  }
  return client;
}
