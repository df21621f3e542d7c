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
  // Between a `begin` and its `commit` or `rollback`, as Kysely sent them.
  let inTransaction = false;
  // What waits for the transaction's next statement: its `begin` first while it has sent none.
  const held: Held[] = [];
  const beginHeld = () => held[0]?.label === BEGIN;
  client.query = ((...args: unknown[]) => {
    if (!pipelined) return run(args);
    if (!inTransaction && isBare(args, "begin")) {
      inTransaction = true;
      held.push({ label: BEGIN, send: () => query("begin") });
      return Promise.resolve(commandAnswer("BEGIN"));
    }
    const label = inTransaction ? heldLabelOfText(args) : null;
    if (label !== null) {
      held.push({ label, send: () => run(args) });
      return Promise.resolve(commandAnswer("HELD"));
    }
    const commit = isBare(args, "commit");
    const rollback = isBare(args, "rollback");
    if (commit || rollback) inTransaction = false;
    // A transaction that sent nothing has nothing to end; statements held for a transaction
    // that is rolled back change nothing, so they are dropped.
    if (rollback || (commit && held.length === 1 && beginHeld())) {
      const unsent = beginHeld();
      held.length = 0;
      if (unsent) {
        return Promise.resolve(commandAnswer(commit ? "COMMIT" : "ROLLBACK"));
      }
    }
    if (held.length === 0) return run(args);
    return sendTogether(client, held.splice(0), () => run(args));
  }) as C["query"];
  // A `begin` or statement still held when the connection went back to the pool was never
  // sent: the next checkout starts outside a transaction, as it would have after a rollback.
  checkedOutAgain.set(client, () => {
    inTransaction = false;
    held.length = 0;
  });
  return client;
}

/** A statement held back, with the label a failure of it is known by. */
interface Held {
  label: string;
  send: () => Promise<unknown>;
}

/** The label of a held `begin`: its failure is no statement's to name. */
const BEGIN = "";

/**
 * Kysely's `begin`, and any statement of a transaction whose text ends with {@link heldMark}, is
 * held back and sent in one socket write with the transaction's next statement: on a pipelined
 * client (`pg`'s `pipeline` option, which sends a statement without waiting for the one before
 * to answer) they go out together and are answered in order. Each saves a round trip: on a
 * machine of two cores, waking PostgreSQL for a statement costs the service more CPU than
 * anything else a write does (docs/benchmarks.md). The statement answers only once those before
 * it have: a held statement that failed fails it with its own error (so a `commit` after a
 * failed audit entry rejects, and the transaction, which PostgreSQL ended, changed nothing).
 */
function sendTogether(
  client: pg.PoolClient,
  before: readonly Held[],
  statement: () => Promise<unknown>,
): Promise<unknown> {
  const stream = (client as unknown as {
    connection?: { stream?: { cork?(): void; uncork?(): void } };
  }).connection?.stream;
  stream?.cork?.();
  const sent: Promise<unknown>[] = [];
  try {
    for (const { send } of before) sent.push(send());
    sent.push(statement());
  } finally {
    stream?.uncork?.();
  }
  // The first failure in the order sent, which caused the rest (they ran in an aborted
  // transaction), whichever promise settled first.
  return Promise.allSettled(sent).then((outcomes) => {
    const failed = outcomes.findIndex((o) => o.status === "rejected");
    if (failed === -1) {
      return (outcomes.at(-1) as PromiseFulfilledResult<unknown>).value;
    }
    const error = (outcomes[failed] as PromiseRejectedResult).reason;
    const label = before[failed]?.label;
    if (label && error !== null && typeof error === "object") {
      heldFailures.set(error, label);
    }
    throw error;
  });
}

/**
 * The end a statement's text takes to be held back until the transaction's next statement (a
 * write whose answer nobody reads, such as an audit entry). A statement that fails while held
 * fails the next one with its error; {@link heldLabelOf} tells whose error it was. Outside a
 * transaction, and on the embedded engine, such a statement runs at once like any other.
 */
export function heldMark(label: string): string {
  if (!HELD_LABEL.test(label)) throw new Error(`Bad held label "${label}"`);
  return `${HELD_PREFIX}${label}`;
}

const HELD_PREFIX = "\n-- held until the next statement: ";
const HELD_LABEL = /^\w{1,32}$/;

/** The labels of held statements that failed, by the error they failed with. */
const heldFailures = new WeakMap<object, string>();

/** The label of the held statement that `error` came from, if it came from one. */
export function heldLabelOf(error: unknown): string | undefined {
  return error !== null && typeof error === "object"
    ? heldFailures.get(error)
    : undefined;
}

/** The label a statement's text ends with after {@link heldMark}, or null. */
function heldLabelOfText(args: unknown[]): string | null {
  const [text] = args;
  if (typeof text !== "string") return null;
  // A template literal closing on a line of its own leaves a newline and indentation after the
  // mark; without this the statement was silently sent at once.
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) <= 32) end--;
  // Only the end can hold the mark: searched there, not through the whole text.
  const at = text.indexOf(
    HELD_PREFIX,
    Math.max(0, end - HELD_PREFIX.length - 32),
  );
  if (at === -1) return null;
  const label = text.slice(at + HELD_PREFIX.length, end);
  return HELD_LABEL.test(label) ? label : null;
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
