// Content models: definitions, storage, change safety and field-value validation.
export {
  type DefinitionCode,
  type DefinitionRefusal,
  type DefinitionResult,
  type ModelDefinition,
  type ModelInfo,
  type ModelSettings,
  parseModelDefinition,
  UNIQUE_COMBINATION_LIMITS,
  type UniqueCombination,
  walkFields,
} from "./definition.ts";
export {
  FIELD_TYPES,
  type FieldDefinition,
  type FieldOf,
  type FieldType,
  isListField,
  MAX_COMPONENT_DEPTH,
  MEDIA_KINDS,
  type MediaKind,
  RELATION_CARDINALITIES,
} from "./field_types.ts";
export type { Condition, ConditionTerm } from "./condition.ts";
export { CONDITION_LIMITS, isShown } from "./visibility.ts";
export type { Problem } from "./problems.ts";
export {
  assessModelChange,
  type ChangeKind,
  type ContentFacts,
  type DefinitionDiff,
  diffDefinitions,
  type ModelChange,
  NO_CONTENT,
  type RetainedKey,
} from "./change_safety.ts";
export {
  applyModelDefinition,
  type ApplyModelOptions,
  type ApplyModelResult,
  createModel,
  type CreateModelResult,
  getModel,
  listModels,
  type ModelChangeBlocked,
  type ModelChanged,
  type ModelCollision,
  type ModelNotFound,
  type ModelSaved,
  updateModelInfo,
} from "./store.ts";
export {
  definitionOf,
  type ModelContext,
  type StoredModel,
} from "./store_rows.ts";
export {
  MAX_FOLDER_LENGTH,
  setModelFolder,
  type SetModelFolderResult,
} from "./model_folder.ts";
export {
  type RelationDependent,
  removeModel,
  type RemoveModelOptions,
  type RemoveModelResult,
} from "./remove_model.ts";
export { listRetainedKeys } from "./retained_keys.ts";
export { toWireModel, type WireField, type WireModel } from "./wire.ts";
export {
  fieldValidationFailed,
  type InspectedValues,
  inspectEntryValues,
  type ValidatedModel,
  validateEntryValues,
  type ValidateValuesOptions,
  type ValueProblem,
  type ValueReference,
} from "./validate_values.ts";
export {
  checkRichText,
  RICH_TEXT_LIMITS,
  type RichBlockRef,
  type RichTextReport,
} from "./rich_text.ts";
