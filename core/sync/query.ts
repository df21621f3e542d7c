// Strict parsing of public query strings: known keys only, each once, never empty.

/** A query problem: which rule failed, worded for the client. */
export interface QueryProblem {
  message: string;
}

/**
 * Reads `url`'s query as single values of `allowed` keys; any other key, a repeated key or an
 * empty value is a problem.
 */
export function singleParams<K extends string>(
  url: URL,
  allowed: readonly K[],
): { ok: true; params: Partial<Record<K, string>> } | {
  ok: false;
  message: string;
} {
  const params: Partial<Record<K, string>> = {};
  for (const [key, value] of url.searchParams) {
    if (!(allowed as readonly string[]).includes(key)) {
      return { ok: false, message: `Unknown parameter "${key}"` };
    }
    if (key in params) {
      return { ok: false, message: `Parameter "${key}" is repeated` };
    }
    if (value === "") {
      return { ok: false, message: `Parameter "${key}" is empty` };
    }
    params[key as K] = value;
  }
  return { ok: true, params };
}

/** An integer in `[min, max]` written plainly (no sign, no leading zero), else null. */
export function boundedInt(
  text: string | undefined,
  min: number,
  max: number,
  fallback: number,
): number | null {
  if (text === undefined) return fallback;
  if (!/^[1-9][0-9]{0,5}$/.test(text)) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}
