// Problems of a zod refusal as `{ path, message }`, with unknown keys marked so routes answer `invalid_request` (MAPI-003).
import type { z } from "zod";

/** One problem inside a document; `unknown_key` marks a key the closed schema does not know. */
export interface DocumentProblem {
  path: string;
  message: string;
  unknown_key?: true;
}

/**
 * Flattens zod issues into problems, one per unknown key (its path ends with the key), with
 * `prefix` before every path (`items.` for menu items).
 */
export function documentProblems(
  issues: readonly z.core.$ZodIssue[],
  prefix = "",
): DocumentProblem[] {
  const problems: DocumentProblem[] = [];
  for (const issue of issues) {
    const at = `${prefix}${issue.path.map(String).join(".")}`;
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        problems.push({
          path: at ? `${at}.${key}` : key,
          message: "unknown key",
          unknown_key: true,
        });
      }
    } else {
      problems.push({ path: at, message: issue.message });
    }
  }
  return problems;
}

/** The unknown keys among `problems`, for the `invalid_request` refusal of a closed body. */
export function unknownKeys(
  problems: readonly DocumentProblem[],
): DocumentProblem[] {
  return problems.filter((p) => p.unknown_key);
}
