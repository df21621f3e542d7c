// Kysely's statements on PostgreSQL run as prepared statements, one per distinct text and
// connection: `pg` sends an unnamed statement otherwise, which the server parses, analyses and
// plans on every run. A plugin publish spent more of PostgreSQL's CPU parsing and planning its
// statements than running them (docs/benchmarks.md, scheduler tick); a prepared one is parsed
// once per connection and, once the server finds its generic plan no worse, planned once too.
import { createHash } from "node:crypto";
import type pg from "pg";

/** Statements a connection prepares at most; past it, new texts run unnamed as before. */
export const PREPARED_PER_CONNECTION = 200;
/** Statement names by text, shared by every connection (cleared when full). */
const names = new Map<string, string>();
const NAMES_MAX = 5_000;
/** The names each connection has prepared. */
const preparedOn = new WeakMap<object, Set<string>>();
const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * The name `text` is prepared under, or null when it runs unnamed: statements other than data
 * reads and writes (transaction control, settings, notifications), and any text with a `*`
 * outside `count(*)`. A prepared statement's result columns are fixed when it is parsed, and
 * `select *` after a migration added a column fails ("cached plan must not change result
 * type"); arithmetic with `*` is left unnamed with it, which costs nothing but the saving.
 */
export function preparedName(text: string): string | null {
  let name = names.get(text);
  if (name !== undefined) return name || null;
  name = DATA_STATEMENT.test(text) &&
      !text.replace(/count\(\*\)/gi, "").includes("*")
    ? `k_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`
    : "";
  if (names.size >= NAMES_MAX) names.clear();
  names.set(text, name);
  return name || null;
}

/**
 * Makes `client` run Kysely's statements (a text with bind values, no callback) as prepared
 * statements named by {@link preparedName}, up to {@link PREPARED_PER_CONNECTION} of them; every
 * other call goes to `pg` unchanged. Idempotent per client.
 */
export function prepareQueriesOf<C extends pg.PoolClient>(client: C): C {
  if (preparedOn.has(client)) return client;
  const prepared = new Set<string>();
  preparedOn.set(client, prepared);
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
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
  }) as C["query"];
  return client;
}
