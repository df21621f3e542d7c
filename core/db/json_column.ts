// A JSON column's value as read: PostgreSQL's driver parses `json`/`jsonb`, while PGlite may
// answer the text, so every reader of a JSON column goes through this one function.

/** The parsed value of a JSON column, whichever driver answered it. */
export function jsonColumn<T = unknown>(value: unknown): T {
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}
