// The names Kysely's statements are prepared under, by text: shared by the service's pooled
// PostgreSQL clients (core/db/prepared_queries.ts) and the embedded PGlite dialect beside this
// file, which the scheduling plugin uses too (a plugin never imports the service).
import { createHash } from "node:crypto";

/** Statement names by text, shared by every connection (cleared when full). */
const names = new Map<string, string>();
const NAMES_MAX = 5_000;
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
