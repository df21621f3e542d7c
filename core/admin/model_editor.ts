// The model editor's form: a posted form as a model definition, and the change-safety assessment shown before saving.
import { decide } from "../access/decide.ts";
import { entryContentFacts } from "../manage/content_facts.ts";
import {
  applyModelDefinition,
  type ApplyModelResult,
  assessModelChange,
  definitionOf,
  FIELD_TYPES,
  listRetainedKeys,
  type ModelChange,
  parseModelDefinition,
  type StoredModel,
  toWireModel,
} from "../models/mod.ts";
import { reindexModel } from "../search/index_documents.ts";
import type { AdminContext } from "./context.ts";
import { settingsFromForm } from "./field_settings.ts";
import { one } from "./form_values.ts";

/** Field types a person can add from the model editor. */
export const ADDABLE_TYPES = FIELD_TYPES;

/** The wire definition (config and validation as JSON text) the form edits. */
export type WireDefinition = {
  model: ReturnType<typeof toWireModel>["definition"]["model"];
  fields: Record<string, unknown>[];
};

/** The model's definition as the form edits it: each field's settings with config and rules as JSON text. */
export function wireDefinition(model: StoredModel): WireDefinition {
  const wire = toWireModel(model);
  return {
    model: wire.definition.model,
    fields: wire.definition.fields.map((f) => ({ ...f })),
  };
}

/**
 * Builds the definition the form describes: each kept field's label, flags, config and rules,
 * its new position, removals, and at most one added field. The services check everything.
 */
export function definitionFromForm(
  model: StoredModel,
  form: Record<string, unknown>,
): WireDefinition {
  const base = wireDefinition(model);
  const kept = base.fields.flatMap((field, index) => {
    const id = String(field.id);
    if (form[`remove.${id}`] !== undefined) return [];
    const position = Number(one(form[`position.${id}`]) || index + 1);
    const next: Record<string, unknown> = {
      ...field,
      label: one(form[`label.${id}`]) || field.label,
      required: form[`required.${id}`] !== undefined,
      localized: form[`localized.${id}`] !== undefined,
    };
    if (form[`config.${id}`] !== undefined) {
      next.config = one(form[`config.${id}`]) || "{}";
    }
    if (form[`validation.${id}`] !== undefined) {
      next.validation = one(form[`validation.${id}`]) || "{}";
    }
    // The settings controls of the field's kind, over the advanced JSON.
    Object.assign(
      next,
      settingsFromForm(String(field.type), form, `f.${id}`, {
        config: String(next.config ?? "{}"),
        validation: String(next.validation ?? "{}"),
      }),
    );
    return [{ position, index, field: next }];
  });
  kept.sort((a, b) => a.position - b.position || a.index - b.index);
  const fields = kept.map((k) => k.field);
  const key = one(form["new.key"]).trim();
  if (key !== "") {
    const type = one(form["new.type"]) || "text";
    const added: Record<string, unknown> = {
      key,
      label: one(form["new.label"]).trim() || key,
      type,
      required: form["new.required"] !== undefined,
      localized: form["new.localized"] !== undefined,
    };
    const typed = settingsFromForm(type, form, "new", {
      config: one(form["new.config"]).trim() || "{}",
      validation: "{}",
    });
    if (typed.config !== "{}") added.config = typed.config;
    if (typed.validation !== "{}") added.validation = typed.validation;
    const position = Number(one(form["new.position"]));
    if (Number.isInteger(position) && position >= 1) {
      fields.splice(position - 1, 0, added);
    } else fields.push(added);
  }
  return { model: base.model, fields };
}

/** What saving the form would change for existing content, before anything is written. */
export async function assessForm(
  ctx: AdminContext,
  model: StoredModel,
  definition: WireDefinition,
): Promise<
  | { ok: true; changes: ModelChange[] }
  | { ok: false; problems: { path: string; message: string }[] }
> {
  const parsed = parseModelDefinition(definition);
  if (!parsed.ok) {
    return {
      ok: false,
      problems: parsed.problems.map((p) => ({
        path: p.path,
        message: p.message,
      })),
    };
  }
  const { db, clock } = ctx.services;
  const changes = await assessModelChange(
    definitionOf(model),
    parsed.definition,
    entryContentFacts(db, ctx.site.id, model),
    await listRetainedKeys({ db, clock, siteId: ctx.site.id }, model.id),
  );
  return { ok: true, changes };
}

/** True when the person may change models (`model:apply`). */
export function mayApplyModels(ctx: AdminContext): boolean {
  return decide(ctx.authority, { action: "model:apply" }).ok;
}

/** Saves the definition through the models service at the revision the form was built from. */
export function saveDefinition(
  ctx: AdminContext,
  model: StoredModel,
  definition: WireDefinition,
  baseRevision: number,
): Promise<ApplyModelResult> {
  const { db, clock } = ctx.services;
  return applyModelDefinition(
    { db, clock, siteId: ctx.site.id },
    model.id,
    definition,
    {
      baseRevision,
      facts: (tx, m) => entryContentFacts(tx, ctx.site.id, m),
      onApplied: (tx, saved) => reindexModel(tx, ctx.site.id, saved.model_id),
    },
  );
}
