// Pure readings of one permission document: what it grants on a model, and its field and language limits.
// This module is browser compatible.
import {
  ALL_MODELS,
  isSystemPermission,
  type LanguageAction,
  type ModelAction,
  type Permissions,
  type SystemPermission,
} from "./permissions.ts";
import type { Need } from "./scopes.ts";

/** The model permissions a document grants on `model`: its own key plus `*`. */
export function modelActionsOn(
  permissions: Permissions,
  model: string,
): Set<ModelAction> {
  return new Set([
    ...(permissions.models[ALL_MODELS] ?? []),
    ...(model === ALL_MODELS ? [] : permissions.models[model] ?? []),
  ]);
}

/** True when the document grants the system permission. */
export function holdsSystem(
  permissions: Permissions,
  permission: SystemPermission,
): boolean {
  return permissions.system.includes(permission);
}

/**
 * True when the document meets one need on `model`. `read` is also met by `read:own`,
 * and `update` by `update:own`, when `own` says the item belongs to the acting person.
 */
export function meetsNeed(
  permissions: Permissions,
  need: Need,
  on: { model?: string; own: boolean },
): boolean {
  if (isSystemPermission(need)) return holdsSystem(permissions, need);
  if (on.model === undefined) return false;
  const held = modelActionsOn(permissions, on.model);
  if (need === "read" || need === "read:own") {
    return held.has("read") || (on.own && held.has("read:own"));
  }
  if (need === "update" || need === "update:own") {
    return held.has("update") || (on.own && held.has("update:own"));
  }
  return held.has(need);
}

/** Field limits in force on one model; null means every field. */
export interface ResolvedFieldLimit {
  read: ReadonlySet<string> | null;
  /** Writable fields, already narrowed to readable ones. */
  write: ReadonlySet<string> | null;
}

/**
 * The field limit in force on `model`: the model's own entry when it has one, else the
 * `*` entry, else none. A field is writable only when it is also readable.
 */
export function resolveFieldLimit(
  permissions: Permissions,
  model: string,
): ResolvedFieldLimit {
  const fields = permissions.fields ?? {};
  const entry = Object.hasOwn(fields, model)
    ? fields[model]
    : fields[ALL_MODELS];
  const read = entry?.read ? new Set(entry.read) : null;
  let write = entry?.write ? new Set(entry.write) : null;
  if (read) {
    write = new Set([...(write ?? read)].filter((key) => read.has(key)));
  }
  return { read, write };
}

/** The languages allowed for an action; null means every language. */
export function allowedLanguagesOf(
  permissions: Permissions,
  action: LanguageAction,
): readonly string[] | null {
  return permissions.languages?.[action] ?? null;
}

/**
 * The field key a limit judges a path by: `seo.meta_title` and `faqs[2].question` are
 * judged by their root field (`seo`, `faqs`).
 */
export function fieldRoot(path: string): string {
  const end = path.search(/[.[]/);
  return end === -1 ? path : path.slice(0, end);
}

/** The touched field paths whose root field is outside `allowed` (null allows all). */
export function fieldsOutside(
  allowed: ReadonlySet<string> | null,
  fields: readonly string[],
): string[] {
  if (!allowed) return [];
  return fields.filter((path) => !allowed.has(fieldRoot(path)));
}

/** The touched languages outside `allowed` (null allows all). */
export function languagesOutside(
  allowed: readonly string[] | null,
  languages: readonly string[],
): string[] {
  if (!allowed) return [];
  return [...new Set(languages)].filter((code) => !allowed.includes(code));
}

/**
 * True when the document narrows reading (a read field limit or read language limit),
 * which refuses a whole-site export (`export_limited_role`, spec 2 part 2.3 item 6).
 */
export function narrowsReading(permissions: Permissions): boolean {
  const readLimited = Object.values(permissions.fields ?? {}).some((limit) =>
    limit.read !== undefined
  );
  return readLimited || permissions.languages?.read !== undefined;
}
