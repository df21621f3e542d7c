// The role editor's form: a permission matrix (models by actions), system permissions, and the
// field and language limits, to and from the role permission document.
import {
  ALL_MODELS,
  LANGUAGE_ACTIONS,
  type LanguageAction,
  MODEL_ACTIONS,
  type Permissions,
  SYSTEM_PERMISSIONS,
} from "../access/permissions.ts";
import { formList } from "./form_values.ts";

/** A parsed form field: one value, or several for a repeated name. */
type Posted = string | File | (string | File)[] | undefined;

/** What the role form posts, as `c.req.parseBody({ all: true })` reads it. */
export type RoleForm = Record<string, Posted>;

function keys(text: string): string[] {
  return [
    ...new Set(text.split(/[\s,]+/).map((k) => k.trim()).filter(Boolean)),
  ];
}

/** The text a list of field keys is edited as. */
export function keysText(keys: readonly string[] | undefined): string {
  return keys?.join(", ") ?? "";
}

/**
 * The permission document a role form describes. Model rows are `m.<model id or *>` (the
 * actions ticked), limits `fr.<model>` and `fw.<model>` (field keys; empty: every field),
 * system permissions `s`, languages `l.<action>` (empty: every language). Unknown actions
 * are passed on so the role service names them.
 */
export function permissionsFromForm(
  form: RoleForm,
  modelKeys: readonly string[],
): unknown {
  const models: Record<string, string[]> = {};
  const fields: Record<string, { read?: string[]; write?: string[] }> = {};
  for (const key of [ALL_MODELS, ...modelKeys]) {
    const actions = formList(form[`m.${key}`]);
    if (actions.length > 0) models[key] = actions;
    const read = keys(formList(form[`fr.${key}`]).join(","));
    const write = keys(formList(form[`fw.${key}`]).join(","));
    if (read.length > 0 || write.length > 0) {
      fields[key] = {
        ...(read.length > 0 ? { read } : {}),
        ...(write.length > 0 ? { write } : {}),
      };
    }
  }
  const languages: Record<string, string[]> = {};
  for (const action of LANGUAGE_ACTIONS) {
    const codes = formList(form[`l.${action}`]);
    if (codes.length > 0) languages[action] = codes;
  }
  return {
    models,
    system: formList(form.s),
    ...(Object.keys(fields).length > 0 ? { fields } : {}),
    ...(Object.keys(languages).length > 0 ? { languages } : {}),
  };
}

/** The matrix's columns and rows, for the page. */
export const MATRIX = {
  actions: MODEL_ACTIONS,
  system: SYSTEM_PERMISSIONS,
  languageActions: LANGUAGE_ACTIONS,
} as const;

/** What one matrix row shows ticked and typed. */
export interface MatrixRow {
  key: string;
  label: string;
  actions: string[];
  read: string;
  write: string;
}

/** The rows of a permission document: every model (and `*`), ticked as the document grants. */
export function matrixRows(
  permissions: Permissions,
  models: readonly { id: string; name: string }[],
): MatrixRow[] {
  return [{ id: ALL_MODELS, name: "All models" }, ...models].map((m) => ({
    key: m.id,
    label: m.name,
    actions: [...(permissions.models[m.id] ?? [])],
    read: keysText(permissions.fields?.[m.id]?.read),
    write: keysText(permissions.fields?.[m.id]?.write),
  }));
}

/** The languages each language-limited action is limited to (absent: every language). */
export function languageLimits(
  permissions: Permissions,
): Partial<Record<LanguageAction, string[]>> {
  return permissions.languages ?? {};
}
