// This module is browser compatible.
// How a page document parse refuses: the error with its code and JSON path, the thrown Refusal
// that carries it out of nested readers, and the small value checks every reader shares.
import type { PageErrorCode } from "./vocabulary.ts";

/** A refusal: the code, a readable message, and where (`detail.path`, a JSON path from `$`). */
export interface PageError {
  code: PageErrorCode;
  message: string;
  detail: { path: string; section?: string };
}

export class Refusal {
  constructor(readonly error: PageError) {}
}

/** JSON path of `key` under `path`. */
export function pathOf(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}

export function refuse(
  code: PageErrorCode,
  path: string,
  message: string,
  section?: string,
): never {
  throw new Refusal({
    code,
    message,
    detail: section === undefined ? { path } : { path, section },
  });
}

const compiled = new Map<string, RegExp>();
export function matches(pattern: string, value: string): boolean {
  let re = compiled.get(pattern);
  if (!re) compiled.set(pattern, re = new RegExp(pattern));
  return re.test(value);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Refuses any key of `raw` outside `keys` (closed objects). */
export function closed(
  raw: Record<string, unknown>,
  keys: readonly string[],
  at: string,
  section?: string,
): void {
  for (const key of Object.keys(raw)) {
    if (!keys.includes(key)) {
      refuse("invalid_slide", pathOf(at, key), `Unknown key "${key}"`, section);
    }
  }
}
