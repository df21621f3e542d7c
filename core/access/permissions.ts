// The permission vocabulary and the closed role permission document, with a parser that lists every reason.
// This module is browser compatible.
import { z } from "zod";

/** Model permissions, granted per model id or for every model (`*`). */
export const MODEL_ACTIONS = [
  "read",
  "read:own",
  "create",
  "update",
  "update:own",
  "delete",
  "restore",
  "publish",
  "unpublish",
  "review",
] as const;
/** One model permission. */
export type ModelAction = typeof MODEL_ACTIONS[number];

/** Site-wide system permissions. */
export const SYSTEM_PERMISSIONS = [
  "site:plugins",
  "site:settings",
  "site:infra",
  "site:deploy",
  "model:apply",
  "model:delete",
  "media:upload",
  "media:update",
  "media:delete",
  "role:manage",
  "data:import",
  "data:export",
  "content:restore",
  "ai:generate",
] as const;
/** One system permission. */
export type SystemPermission = typeof SYSTEM_PERMISSIONS[number];

/** Actions a role may limit to some languages (spec 2 part 2.3 item 6). */
export const LANGUAGE_ACTIONS = [
  "read",
  "create",
  "update",
  "delete",
  "restore",
  "review",
  "publish",
  "unpublish",
] as const;
/** One language-limited action. */
export type LanguageAction = typeof LANGUAGE_ACTIONS[number];

/** The model key that grants or limits every model. */
export const ALL_MODELS = "*";

/** Field limits for one model (or `*`); an absent list means every field. */
export interface FieldLimit {
  /** Field keys the role may read; unreadable fields are left out of every read. */
  read?: string[];
  /** Field keys the role may write; a field is writable only when also readable. */
  write?: string[];
}

/** The role permission document, normalised (lists deduplicated, both lists present). */
export interface Permissions {
  /** Model permissions by model id or `*`; grants add up across a model's key and `*`. */
  models: Record<string, ModelAction[]>;
  /** Site-wide permissions. */
  system: SystemPermission[];
  /** Field limits by model id or `*`; a model's own entry replaces the `*` entry whole. */
  fields?: Record<string, FieldLimit>;
  /** Languages allowed per action; an absent action allows every language. */
  languages?: Partial<Record<LanguageAction, string[]>>;
}

/** One reason a permission document is invalid: where, and what is wrong. */
export interface PermissionReason {
  path: string;
  message: string;
}

/** The answer of {@linkcode parsePermissions}. */
export type ParsePermissionsResult =
  | { ok: true; permissions: Permissions }
  | { ok: false; code: "invalid_permissions"; reasons: PermissionReason[] };

/** What the site knows, so references to unknown models or languages become reasons. */
export interface ParsePermissionsOptions {
  /** Model ids of the site; when given, any other model key is a reason. */
  models?: readonly string[];
  /** Language codes of the site; when given, any other language is a reason. */
  languages?: readonly string[];
}

const MODEL_KEY = /^(\*|[A-Za-z0-9][A-Za-z0-9_-]{0,99})$/;
const FIELD_KEY = /^[A-Za-z_][A-Za-z0-9_-]{0,99}$/;
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

function quoted(input: unknown): string {
  return typeof input === "string" ? `"${input}"` : JSON.stringify(input);
}

const modelKey = z.string().regex(MODEL_KEY, {
  error: (iss) =>
    `Invalid model key ${quoted(iss.input)}: expected "*" or a model id`,
});
const fieldKey = z.string().regex(FIELD_KEY, {
  error: (iss) => `Invalid field key ${quoted(iss.input)}`,
});
const language = z.string().regex(LANGUAGE, {
  error: (iss) => `Invalid language code ${quoted(iss.input)}`,
});
const modelAction = z.enum(MODEL_ACTIONS, {
  error: (iss) => `Unknown model permission ${quoted(iss.input)}`,
});
const systemPermission = z.enum(SYSTEM_PERMISSIONS, {
  error: (iss) => `Unknown system permission ${quoted(iss.input)}`,
});

const fieldLimitSchema = z.strictObject({
  read: z.array(fieldKey).optional(),
  write: z.array(fieldKey).optional(),
});

const languagesSchema = z.strictObject(
  Object.fromEntries(
    LANGUAGE_ACTIONS.map((action) => [action, z.array(language).optional()]),
  ) as Record<LanguageAction, z.ZodOptional<z.ZodArray<typeof language>>>,
);

/** The closed schema of a role permission document as sent and stored. */
export const permissionsSchema = z.strictObject({
  models: z.record(modelKey, z.array(modelAction)).optional(),
  system: z.array(systemPermission).optional(),
  fields: z.record(modelKey, fieldLimitSchema).optional(),
  languages: languagesSchema.optional(),
});

function pathText(path: readonly PropertyKey[]): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else text += text === "" ? String(part) : `.${String(part)}`;
  }
  return text === "" ? "(document)" : text;
}

function issueReasons(issue: z.core.$ZodIssue): PermissionReason[] {
  const path = pathText(issue.path);
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      path: pathText([...issue.path, key]),
      message: `Unknown key "${key}"`,
    }));
  }
  if (issue.code === "invalid_key") {
    const inner = issue.issues[0];
    return [{ path, message: inner?.message ?? issue.message }];
  }
  return [{ path, message: issue.message }];
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

function keysOf(value: unknown): string[] {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? Object.keys(value)
    : [];
}

/** Reasons naming models or languages the site lacks; reads the raw input defensively. */
function referenceReasons(
  input: unknown,
  options: ParsePermissionsOptions,
): PermissionReason[] {
  const reasons: PermissionReason[] = [];
  const doc = (keysOf(input).length > 0 ? input : {}) as Record<
    string,
    unknown
  >;
  if (options.models) {
    const known = new Set([ALL_MODELS, ...options.models]);
    for (const section of ["models", "fields"] as const) {
      for (const key of keysOf(doc[section])) {
        if (MODEL_KEY.test(key) && !known.has(key)) {
          reasons.push({
            path: `${section}.${key}`,
            message: `Unknown model "${key}"`,
          });
        }
      }
    }
  }
  if (options.languages) {
    const known = new Set(options.languages);
    const languages = (doc.languages ?? {}) as Record<string, unknown>;
    for (const action of keysOf(languages)) {
      const codes = languages[action];
      const knownAction = (LANGUAGE_ACTIONS as readonly string[]).includes(
        action,
      );
      if (!knownAction || !Array.isArray(codes)) continue;
      codes.forEach((code, i) => {
        if (
          typeof code === "string" && LANGUAGE.test(code) && !known.has(code)
        ) {
          reasons.push({
            path: `languages.${action}[${i}]`,
            message: `Unknown language "${code}": not a language of this site`,
          });
        }
      });
    }
  }
  return reasons;
}

/**
 * Reads a role permission document, answering every reason it is invalid at once
 * (`400 invalid_permissions`, spec 2 part 4.3), or the normalised document.
 */
export function parsePermissions(
  input: unknown,
  options: ParsePermissionsOptions = {},
): ParsePermissionsResult {
  const parsed = permissionsSchema.safeParse(input);
  const references = referenceReasons(input, options);
  if (!parsed.success) {
    return {
      ok: false,
      code: "invalid_permissions",
      reasons: [...parsed.error.issues.flatMap(issueReasons), ...references],
    };
  }
  const raw = parsed.data;
  const permissions: Permissions = {
    models: Object.fromEntries(
      Object.entries(raw.models ?? {}).map((
        [key, acts],
      ) => [key, unique(acts)]),
    ),
    system: unique(raw.system ?? []),
  };
  if (raw.fields) {
    permissions.fields = Object.fromEntries(
      Object.entries(raw.fields).map(([key, limit]) => {
        const out: FieldLimit = {};
        if (limit.read) out.read = unique(limit.read);
        if (limit.write) out.write = unique(limit.write);
        return [key, out];
      }),
    );
  }
  if (raw.languages) {
    const languages: Partial<Record<LanguageAction, string[]>> = {};
    for (const action of LANGUAGE_ACTIONS) {
      const codes = raw.languages[action];
      if (codes) languages[action] = unique(codes);
    }
    permissions.languages = languages;
  }
  if (references.length > 0) {
    return { ok: false, code: "invalid_permissions", reasons: references };
  }
  return { ok: true, permissions };
}

/** True when `value` names a model permission. */
export function isModelAction(value: string): value is ModelAction {
  return (MODEL_ACTIONS as readonly string[]).includes(value);
}

/** True when `value` names a system permission. */
export function isSystemPermission(value: string): value is SystemPermission {
  return (SYSTEM_PERMISSIONS as readonly string[]).includes(value);
}

/** The language-limited action a model permission answers to (`update:own` -> `update`). */
export function languageActionOf(action: ModelAction): LanguageAction {
  if (action === "read:own") return "read";
  if (action === "update:own") return "update";
  return action;
}

/** A permission document granting nothing. */
export function emptyPermissions(): Permissions {
  return { models: {}, system: [] };
}
