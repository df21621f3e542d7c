// The columns a saved query may name: `id` and the model's top-level fields, with what each
// may be used for and whether it is private (spec 2 part 2.3 item 3, part 4.6 rule 11).
import type { FieldDefinition, FieldType } from "../models/field_types.ts";
import { walkFields } from "../models/definition.ts";

/** Field types a saved query may compare with one value. */
const FILTERABLE: ReadonlySet<FieldType> = new Set([
  "text",
  "slug",
  "number",
  "boolean",
  "date",
  "datetime",
  "select",
]);

/** A column of the generated row a saved query names. */
export interface QueryColumn {
  key: string;
  type: FieldType | "id";
  /**
   * Left out of every reader select: a private field, or a component holding a private field
   * anywhere below (spec 2 part 4.6 rule 11), so a public route cannot serve it.
   */
  private: boolean;
  /** May be filtered on and sorted by: one comparable value per row. */
  comparable: boolean;
}

function holdsPrivate(field: FieldDefinition): boolean {
  let found = field.private;
  if (field.type === "component") {
    walkFields(field.config.fields, (inner) => {
      if (inner.private) found = true;
    });
  }
  return found;
}

/** The columns of a model's generated rows, by key. */
export function queryColumns(
  fields: readonly FieldDefinition[],
): Map<string, QueryColumn> {
  const columns = new Map<string, QueryColumn>([["id", {
    key: "id",
    type: "id",
    private: false,
    comparable: true,
  }]]);
  for (const field of fields) {
    columns.set(field.key, {
      key: field.key,
      type: field.type,
      private: holdsPrivate(field),
      comparable: FILTERABLE.has(field.type),
    });
  }
  return columns;
}
