// Kysely's statements on PostgreSQL run as prepared statements, one per distinct text and
// connection: `pg` sends an unnamed statement otherwise, which the server parses, analyses and
// plans on every run. A plugin publish spent more of PostgreSQL's CPU parsing and planning its
// statements than running them (docs/benchmarks.md, scheduler tick); a prepared one is parsed
// once per connection and, once the server finds its generic plan no worse, planned once too.
import { preparedName } from "../../plugins/sdk/prepared_names.ts";
import type pg from "pg";

/** Statements a connection prepares at most; past it, new texts run unnamed as before. */
export const PREPARED_PER_CONNECTION = 200;
/**
 * The clients already wrapped, each with what a new checkout of it resets (a `begin` held back
 * by the checkout before and never sent).
 */
const checkedOutAgain = new WeakMap<object, () => void>();

/**
 * Makes `client` run Kysely's statements (a text with bind values, no callback) as prepared
 * statements named by {@link preparedName}, up to {@link PREPARED_PER_CONNECTION} of them; every
 * other call goes to `pg` unchanged, but for a pipelined client's `begin` (held back to go with
 * the next statement). Call on every checkout: the first call wraps, later ones only forget a
 * `begin` held back by the checkout before.
 */
export function prepareQueriesOf<C extends pg.PoolClient>(client: C): C {
  const again = checkedOutAgain.get(client);
  if (again) {
    again();
    return client;
  }
  const prepared = new Set<string>();
  const query = client.query.bind(client) as (
    ...args: unknown[]
  ) => Promise<unknown>;
  const run = (args: unknown[]): Promise<unknown> => {
    const [text, values] = args;
    if (
      args.length === 2 && typeof text === "string" && Array.isArray(values) &&
      values.length > 0
    ) {
      const name = preparedName(text);
      if (
        name !== null &&
        (prepared.has(name) || prepared.size < PREPARED_PER_CONNECTION)
      ) {
        prepared.add(name);
        return query({ name, text, values });
      }
    }
    return query(...args);
  };
  const pipelined = (client as { pipeline?: boolean }).pipeline === true;
  let beginHeld = false;
  client.query = ((...args: unknown[]) => {
    if (!pipelined) return run(args);
    if (!beginHeld && isBare(args, "begin")) {
      beginHeld = true;
      return Promise.resolve(commandAnswer("BEGIN"));
    }
    if (!beginHeld) return run(args);
    beginHeld = false;
    // A transaction that ran nothing has nothing to end.
    if (isBare(args, "commit")) return Promise.resolve(commandAnswer("COMMIT"));
    if (isBare(args, "rollback")) {
      return Promise.resolve(commandAnswer("ROLLBACK"));
    }
    return withBegin(client, () => query("begin"), () => run(args));
  }) as C["query"];
  // A `begin` still held when the connection went back to the pool was never sent: the next
  // checkout starts outside a transaction, as it would have after a rollback.
  checkedOutAgain.set(client, () => beginHeld = false);
  return client;
}

/**
 * Kysely's `begin` is held back and sent in one socket write with the transaction's first
 * statement: on a pipelined client (`pg`'s `pipeline` option, which sends a statement without
 * waiting for the one before to answer) the two go out together and are answered in order.
 * Every write transaction saves a round trip: on a machine of two cores, waking PostgreSQL for
 * a statement costs the service more CPU than anything else a write does (docs/benchmarks.md).
 * The statement answers only once `begin` has: a failed `begin` fails it, as it would have.
 */
function withBegin(
  client: pg.PoolClient,
  begin: () => Promise<unknown>,
  statement: () => Promise<unknown>,
): Promise<unknown> {
  const stream = (client as unknown as {
    connection?: { stream?: { cork?(): void; uncork?(): void } };
  }).connection?.stream;
  stream?.cork?.();
  let begun: Promise<unknown>;
  let answered: Promise<unknown>;
  try {
    begun = begin();
    answered = statement();
  } finally {
    stream?.uncork?.();
  }
  return Promise.all([begun, answered]).then(([, result]) => result);
}

/** What `pg` answers for a transaction command, for the ones answered without sending. */
function commandAnswer(command: string) {
  return { command, rowCount: null, rows: [] };
}

/** Whether `args` are Kysely's call for the bare command `command` (no values). */
function isBare(args: unknown[], command: string): boolean {
  return args.length === 2 && args[0] === command &&
    Array.isArray(args[1]) && args[1].length === 0;
}
