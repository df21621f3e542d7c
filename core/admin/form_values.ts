// Reading values of a posted admin form (Hono's parseBody with `all: true`): a name posted once is
// a value, posted again an array of them.

/** The first value posted under a name, as text ("" when none). */
export function one(value: unknown): string {
  return String(Array.isArray(value) ? value[0] ?? "" : value ?? "");
}

/** Every text value posted under a name, in order (files left out). */
export function formList(value: unknown): string[] {
  const list = Array.isArray(value)
    ? value
    : value === undefined
    ? []
    : [value];
  return list.filter((v): v is string => typeof v === "string");
}
