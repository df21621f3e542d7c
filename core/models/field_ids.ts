// Matches the fields of a definition to a model's saved fields by id and gives new fields ids.
import type { FieldDefinition } from "./field_types.ts";
import { joinPath, type Problem } from "./problems.ts";

/** The definition's fields with every id set, the ids made now, and unmatched ids. */
export interface AssignedIds {
  fields: FieldDefinition[];
  created: string[];
  problems: Problem[];
}

/**
 * Keeps each field that names an id of a saved field at the same level (for nested fields:
 * inside the same component), and gives every field without an id a new one. An id that
 * names no such field is `field_not_found`; an id given twice is `invalid_request`.
 */
export function assignFieldIds(
  fields: readonly FieldDefinition[],
  saved: readonly FieldDefinition[],
  newId: () => string = () => crypto.randomUUID(),
): AssignedIds {
  const created: string[] = [];
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const walk = (
    list: readonly FieldDefinition[],
    before: readonly FieldDefinition[],
    path: string,
  ): FieldDefinition[] =>
    list.map((field, i) => {
      const at = joinPath(path, i);
      let id = field.id;
      let was: FieldDefinition | undefined;
      if (id === undefined) {
        id = newId();
        created.push(id);
      } else if (seen.has(id)) {
        problems.push({
          path: joinPath(at, "id"),
          code: "invalid_request",
          message: `Field id "${id}" is given twice`,
        });
      } else {
        was = before.find((f) => f.id === id);
        if (!was) {
          problems.push({
            path: joinPath(at, "id"),
            code: "field_not_found",
            message: `No saved field "${id}" at this place in the model`,
          });
        }
      }
      seen.add(id);
      if (field.type !== "component") return { ...field, id };
      const nestedBefore = was?.type === "component" ? was.config.fields : [];
      return {
        ...field,
        id,
        config: {
          ...field.config,
          fields: walk(
            field.config.fields,
            nestedBefore,
            joinPath(at, "config.fields"),
          ),
        },
      };
    });
  return { fields: walk(fields, saved, "fields"), created, problems };
}

/** Paths of every field id a definition names (a new model takes none). */
export function namedIds(
  fields: readonly FieldDefinition[],
  path = "fields",
): Problem[] {
  return fields.flatMap((field, i) => {
    const at = joinPath(path, i);
    const own: Problem[] = field.id === undefined ? [] : [{
      path: joinPath(at, "id"),
      code: "invalid_request",
      message: "A new model takes no field ids: leave id out and one is made",
    }];
    return field.type === "component"
      ? [
        ...own,
        ...namedIds(field.config.fields, joinPath(at, "config.fields")),
      ]
      : own;
  });
}
