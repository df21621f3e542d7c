// Problems found in a model definition or in entry values, each named by its full path.
import type { z } from "zod";

/** One thing wrong, at a path such as `fields[2].config.options[0]` or `faqs[2].question`. */
export interface Problem {
  path: string;
  code: string;
  message: string;
}

/** Appends a key (`a.b`) or an index (`a[2]`) to a path; the empty path is the root. */
export function joinPath(base: string, segment: string | number): string {
  if (typeof segment === "number") return `${base}[${segment}]`;
  return base === "" ? segment : `${base}.${segment}`;
}

/** Turns zod issues into problems under `base`, all with one code; unknown keys are named. */
export function zodProblems(
  error: z.ZodError,
  base: string,
  code: string,
): Problem[] {
  const problems: Problem[] = [];
  for (const issue of error.issues) {
    const path = issue.path.reduce<string>(
      (p, s) => joinPath(p, typeof s === "number" ? s : String(s)),
      base,
    );
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        problems.push({
          path: joinPath(path, key),
          code,
          message: `Unknown key "${key}"`,
        });
      }
    } else {
      problems.push({ path, code, message: issue.message });
    }
  }
  return problems;
}

/** Reads JSON text into a value; objects and other values pass through unchanged. */
export function readJsonText(
  value: unknown,
): { ok: true; value: unknown } | { ok: false; message: string } {
  if (typeof value !== "string") return { ok: true, value };
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch (error) {
    return {
      ok: false,
      message: `Cannot parse JSON text: ${(error as Error).message}`,
    };
  }
}

/** JSON with object keys sorted, so two equal values always print the same. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    return Object.fromEntries(
      Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]),
    );
  });
}

/** Length in characters (code points), the unit every length rule counts in. */
export function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
