// The model as the management API answers it: field config, validation, derived and ui as JSON text.
import type { ModelInfo } from "./definition.ts";
import type { FieldDefinition } from "./field_types.ts";
import type { StoredModel } from "./store_rows.ts";
import type { Condition } from "./condition.ts";

/** A field on the wire (spec 2 part 2.3): the four JSON parts are text. */
export interface WireField {
  id: string;
  key: string;
  label: string;
  type: FieldDefinition["type"];
  required: boolean;
  unique: boolean;
  private: boolean;
  localized: boolean;
  config: string;
  validation: string;
  derived: string | null;
  ui: string | null;
  visibility: Condition | null;
}

/** `GET /models/{id}`: the whole definition with its revision and `updated_at` (MOD-007). */
export interface WireModel {
  model_id: string;
  revision: number;
  updated_at: string;
  folder: string | null;
  definition: { model: ModelInfo; fields: WireField[] };
}

/** Shapes a saved model for the management API; `parseModelDefinition` reads it back. */
export function toWireModel(model: StoredModel): WireModel {
  const { name, slug, description, kind, isPublic, enableI18n, settings } =
    model;
  return {
    model_id: model.id,
    revision: model.revision,
    updated_at: model.updatedAt.toISOString(),
    folder: model.folder,
    definition: {
      model: { name, slug, description, kind, isPublic, enableI18n, settings },
      fields: model.fields.map(toWireField),
    },
  };
}

function toWireField(field: FieldDefinition): WireField {
  const text = (v: unknown) => v === null ? null : JSON.stringify(v);
  return {
    id: field.id ?? "",
    key: field.key,
    label: field.label,
    type: field.type,
    required: field.required,
    unique: field.unique,
    private: field.private,
    localized: field.localized,
    config: JSON.stringify(field.config),
    validation: JSON.stringify(field.validation),
    derived: text(field.derived),
    ui: text(field.ui),
    visibility: field.visibility,
  };
}
