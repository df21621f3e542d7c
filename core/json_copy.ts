// Copies of JSON data: what a jsonb column, JSON.parse or a literal of plain values holds.

/**
 * A deep copy of `value`, which holds only JSON data (plain objects, arrays, strings, numbers,
 * booleans and null). It answers what `structuredClone` would for such data at a tenth of the
 * cost: Deno's `structuredClone` serializes through the runtime, and the settings documents of
 * every entry command were copied that way several times per plugin publish
 * (docs/benchmarks.md, "Settings copied without structuredClone").
 */
export function copyJson<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyJson((value as Record<string, unknown>)[key]);
    // An own "__proto__" key (JSON.parse makes one) stays a key instead of setting the prototype.
    if (key === "__proto__") {
      Object.defineProperty(copy, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else copy[key] = item;
  }
  return copy as T;
}
