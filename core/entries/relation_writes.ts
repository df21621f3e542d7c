// Resolves a relation field's write form (a list, `{ set }`, or `{ connect, disconnect, move }`) into the stored list.
import type { FieldOf } from "../models/field_types.ts";
import { isToMany } from "../models/field_types.ts";
import type { LifecycleRefusal } from "./types.ts";

/** A relation field of a model. */
export type RelationField = FieldOf<"relation">;

/** Where in a list a connected or moved target goes; absent means `end`. */
export type RelationPosition =
  | "start"
  | "end"
  | { before: string }
  | { after: string };

/** What a write form resolves to: the value to store, or a refusal (nothing is written). */
export type RelationWriteResult =
  | { ok: true; value: unknown }
  | LifecycleRefusal;

const FORM_KEYS = new Set(["set", "connect", "disconnect", "move"]);

/** The target id a stored or written item names, lower-cased; null when it names none. */
export function itemId(item: unknown): string | null {
  if (typeof item === "string") return item.toLowerCase();
  if (typeof item === "object" && item !== null && !Array.isArray(item)) {
    const id = (item as { id?: unknown }).id;
    return typeof id === "string" ? id.toLowerCase() : null;
  }
  return null;
}

/** True when `value` is a `{ set }` or `{ connect, disconnect, move }` write form. */
export function isWriteForm(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return false;
  }
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => FORM_KEYS.has(k));
}

class FormError extends Error {
  constructor(readonly refusal: LifecycleRefusal) {
    super(refusal.code);
  }
}

interface FormInput {
  field: RelationField;
  /** The list stored now (for a to-one field: zero or one item). */
  base: readonly unknown[];
  value: unknown;
  locale: string;
  /** `locale` when the field keeps a list per language, else null (for refusals). */
  listLocale: string | null;
}

function invalid(input: FormInput, message: string): never {
  throw new FormError({
    ok: false,
    code: "field_validation_failed",
    errors: [{
      path: input.field.key,
      code: "relation_write_invalid",
      message,
      locale: input.locale,
    }],
  });
}

function refuse(
  input: FormInput,
  code: "relation_position_not_ordered" | "relation_duplicate_target",
  ids: string[],
): never {
  throw new FormError({
    ok: false,
    code,
    relation: { field: input.field.key, locale: input.listLocale, ids },
  });
}

/** The stored form of a written item: a `{ model, id }` keeps its model, anything else its id. */
function stored(item: unknown): unknown {
  if (typeof item === "string") return item;
  const ref = item as { model?: unknown; id?: unknown; position?: unknown };
  if (typeof ref !== "object" || ref === null || Array.isArray(ref)) {
    return item;
  }
  return ref.model === undefined ? ref.id : { model: ref.model, id: ref.id };
}

function positionOf(input: FormInput, item: unknown): RelationPosition {
  if (typeof item !== "object" || item === null) return "end";
  const position = (item as { position?: unknown }).position;
  if (position === undefined) return "end";
  if (!input.field.config.ordered) {
    refuse(input, "relation_position_not_ordered", [itemId(item) ?? ""]);
  }
  if (position === "start" || position === "end") return position;
  if (typeof position === "object" && position !== null) {
    const keys = Object.keys(position);
    const anchor = (position as Record<string, unknown>)[keys[0]];
    if (
      keys.length === 1 && (keys[0] === "before" || keys[0] === "after") &&
      typeof anchor === "string"
    ) {
      return keys[0] === "before" ? { before: anchor } : { after: anchor };
    }
  }
  return invalid(
    input,
    `Field "${input.field.key}" takes a position "start", "end", { before: id } or { after: id }`,
  );
}

function place(
  input: FormInput,
  list: unknown[],
  item: unknown,
  position: RelationPosition,
): void {
  if (position === "end") return void list.push(item);
  if (position === "start") return void list.unshift(item);
  const anchor = "before" in position ? position.before : position.after;
  const at = list.findIndex((x) => itemId(x) === anchor.toLowerCase());
  if (at < 0) {
    invalid(
      input,
      `Field "${input.field.key}" places a target next to "${anchor}", which is not in the list`,
    );
  }
  list.splice("before" in position ? at : at + 1, 0, item);
}

function asList(input: FormInput, value: unknown, key: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  if (typeof value === "string" || typeof value === "object") return [value];
  return invalid(
    input,
    `Field "${input.field.key}" expects a list in "${key}"`,
  );
}

function duplicates(list: readonly unknown[]): string[] {
  const ids = list.map(itemId).filter((id): id is string => id !== null);
  return [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
}

function resolveMany(input: FormInput, form: Record<string, unknown>) {
  if ("set" in form) {
    if (Object.keys(form).length > 1) {
      invalid(
        input,
        `Field "${input.field.key}": "set" cannot combine with other changes`,
      );
    }
    return asList(input, form.set, "set").map(stored);
  }
  const list = [...input.base];
  const gone = new Set(
    asList(input, form.disconnect, "disconnect").map(itemId),
  );
  for (let i = list.length - 1; i >= 0; i--) {
    if (gone.has(itemId(list[i]))) list.splice(i, 1);
  }
  const connects = asList(input, form.connect, "connect");
  const taken = connects.map(itemId).filter((id) =>
    id !== null && list.some((x) => itemId(x) === id)
  ) as string[];
  const twice = [...new Set([...taken, ...duplicates(connects)])];
  if (twice.length > 0) refuse(input, "relation_duplicate_target", twice);
  for (const item of connects) {
    place(input, list, stored(item), positionOf(input, item));
  }
  const moves = asList(input, form.move, "move");
  if (moves.length > 0 && !input.field.config.ordered) {
    refuse(
      input,
      "relation_position_not_ordered",
      moves.map((m) => itemId(m) ?? ""),
    );
  }
  for (const move of moves) {
    const id = itemId(move);
    const at = list.findIndex((x) => itemId(x) === id);
    if (id === null || at < 0) {
      invalid(
        input,
        `Field "${input.field.key}" moves "${id}", which is not in the list`,
      );
    }
    const [item] = list.splice(at, 1);
    place(input, list, item, positionOf(input, move));
  }
  return list;
}

function resolveOne(input: FormInput, form: Record<string, unknown>): unknown {
  if ("move" in form) {
    refuse(
      input,
      "relation_position_not_ordered",
      asList(input, form.move, "move").map((m) => itemId(m) ?? ""),
    );
  }
  const pick = (key: string): unknown => {
    const list = asList(input, form[key], key);
    if (list.length > 1) {
      invalid(
        input,
        `Field "${input.field.key}" holds one target: "${key}" names ${list.length}`,
      );
    }
    if (list[0] !== undefined) positionOf(input, list[0]);
    return list.length ? stored(list[0]) : null;
  };
  if ("set" in form) {
    if (Object.keys(form).length > 1) {
      invalid(
        input,
        `Field "${input.field.key}": "set" cannot combine with other changes`,
      );
    }
    return pick("set");
  }
  let current: unknown = input.base[0] ?? null;
  if ("disconnect" in form) {
    const gone = form.disconnect === true
      ? null
      : itemId(asList(input, form.disconnect, "disconnect")[0]);
    if (form.disconnect === true || gone === itemId(current)) current = null;
  }
  if ("connect" in form) current = pick("connect");
  return current;
}

/**
 * Resolves one relation field's written value into the value to store. A plain value is a
 * `set`. Connected ids go to the end unless `{ id, position }` places them (`start`, `end`,
 * `{ before: id }`, `{ after: id }`); disconnecting an id not linked is a no-op. Refusals:
 * `relation_position_not_ordered` (a position or move on a to-one or unordered field),
 * `relation_duplicate_target` (an id twice in the list, or connected while linked),
 * `field_validation_failed` (a malformed form, or a position naming an id not in the list).
 */
export function resolveRelationWrite(input: FormInput): RelationWriteResult {
  const many = isToMany(input.field.config.cardinality);
  try {
    if (!isWriteForm(input.value)) {
      if (many && Array.isArray(input.value)) {
        const twice = duplicates(input.value);
        if (twice.length > 0) refuse(input, "relation_duplicate_target", twice);
      }
      return { ok: true, value: input.value };
    }
    const value = many
      ? resolveMany(input, input.value)
      : resolveOne(input, input.value);
    if (many) {
      const twice = duplicates(value as unknown[]);
      if (twice.length > 0) refuse(input, "relation_duplicate_target", twice);
    }
    return { ok: true, value };
  } catch (error) {
    if (error instanceof FormError) return error.refusal;
    throw error;
  }
}
