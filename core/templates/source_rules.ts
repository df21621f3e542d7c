// Source rules of a template candidate (spec 3 part 4.8 rule 1, TPL-003): checked at upload and
// again at acceptance, before and apart from any build.
import type { TemplateManifest } from "./manifest.ts";
import { LOCKFILE_PATH } from "./manifest.ts";

/** Limits of an uploaded source (docs/templates.md, "Limits"). */
export const SOURCE_LIMITS = {
  files: 300,
  fileBytes: 512 * 1024,
  totalBytes: 4 * 1024 * 1024,
} as const;

/** Which source rule refused. */
export type SourceRule =
  | "case_collision"
  | "build_output"
  | "dependency_folder"
  | "unpaired_surrogate"
  | "too_many_files"
  | "file_too_large"
  | "source_too_large"
  | "missing_file"
  | "invalid_path";

/** A refusal of the source rules: the rule and the paths it concerns. */
export interface SourceRefusal {
  ok: false;
  code: "template_source_refused";
  rule: SourceRule;
  paths: string[];
}

const encoder = new TextEncoder();
// Relative paths of letters, digits, `.`, `_` and `-`; no empty, `.` or `..` segment.
const SOURCE_PATH =
  /^(?:[A-Za-z0-9_][A-Za-z0-9._-]*\/)*[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/**
 * Checks the source files against the rules every candidate passes, in a fixed order so one
 * source always gets the same answer. Paths were already checked for shape by the manifest's
 * schema (relative, no dot segments).
 */
export function checkSourceRules(
  source: Record<string, string>,
  manifest: TemplateManifest,
): { ok: true; bytes: number } | SourceRefusal {
  const paths = Object.keys(source).sort();
  const refuse = (rule: SourceRule, concerned: string[]): SourceRefusal => ({
    ok: false,
    code: "template_source_refused",
    rule,
    paths: concerned.slice(0, 20),
  });
  if (paths.length > SOURCE_LIMITS.files) {
    return refuse("too_many_files", []);
  }
  // JSON carries lone surrogates ("\ud800") that UTF-8 cannot; refuse rather than mangle them.
  const unpaired = paths.filter((p) =>
    !p.isWellFormed() || !source[p].isWellFormed()
  );
  if (unpaired.length > 0) return refuse("unpaired_surrogate", unpaired);
  const badPaths = paths.filter((p) =>
    p.length > 200 || !SOURCE_PATH.test(p) || p.split("/").includes("__proto__")
  );
  if (badPaths.length > 0) return refuse("invalid_path", badPaths);
  const segments = (p: string) => p.split("/");
  const dist = paths.filter((p) => segments(p).includes("dist"));
  if (dist.length > 0) return refuse("build_output", dist);
  const deps = paths.filter((p) => segments(p).includes("node_modules"));
  if (deps.length > 0) return refuse("dependency_folder", deps);
  // Two paths one file system would merge are two files on another: never accept both.
  const byFolded = new Map<string, string[]>();
  for (const p of paths) {
    const folded = p.toLowerCase();
    byFolded.set(folded, [...byFolded.get(folded) ?? [], p]);
  }
  const colliding = [...byFolded.values()].filter((g) => g.length > 1).flat();
  if (colliding.length > 0) return refuse("case_collision", colliding);
  let total = 0;
  const large: string[] = [];
  for (const p of paths) {
    const size = encoder.encode(source[p]).length;
    total += size;
    if (size > SOURCE_LIMITS.fileBytes) large.push(p);
  }
  if (large.length > 0) return refuse("file_too_large", large);
  if (total > SOURCE_LIMITS.totalBytes) return refuse("source_too_large", []);
  const needed = [
    manifest.entry,
    LOCKFILE_PATH,
    ...(manifest.registered_sections ?? []).map((s) => s.component),
  ];
  const missing = needed.filter((p) => !(p in source));
  if (missing.length > 0) return refuse("missing_file", missing);
  return { ok: true, bytes: total };
}
