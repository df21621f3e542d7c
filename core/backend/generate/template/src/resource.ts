// A table the API serves and how: a model's rows, its translation rows, or a junction of a list
// relation. Each answers the reads; models and translations also the writes.
import type { AccessRule, ColumnSpec, ModelSpec, Operation } from "./schema.ts";

/** What routes need to know about one served table. */
export interface Resource {
  kind: "model" | "translation" | "junction";
  /** Route segment and table name. */
  table: string;
  /** The model whose access rules apply. */
  model: ModelSpec;
  /** Operation id prefix. */
  label: string;
  /** Columns besides `id`. */
  columns: ColumnSpec[];
  /** Columns a reader may compare for equality (`id` always). */
  readerKeys: string[];
  /** Default order after any requested one. */
  order: string[];
  take: { default: number; max: number };
  /** The model's rule deciding each operation of this table. */
  ruleOf(op: Operation): AccessRule | null;
  /** The model operation whose rule decides `op` here (translations inherit). */
  decidingOp(op: Operation): Operation;
}

const LIST = { default: 25, max: 100 };
const JUNCTION_LIST = { default: 100, max: 200 };

/** Key column holding the model row a translation belongs to. */
export function baseKey(model: ModelSpec): string {
  return `${model.name}_id`;
}

/** The resources of a model: itself, its translation table, its junctions. */
export function resourcesOf(model: ModelSpec): Resource[] {
  const own: Resource = {
    kind: "model",
    table: model.name,
    model,
    label: model.label,
    columns: model.columns,
    readerKeys: [],
    order: ["id"],
    take: LIST,
    ruleOf: (op) => model.access[op],
    decidingOp: (op) => op,
  };
  const out = [own];
  if (model.translation) {
    // Translation writes inherit the model's update (create and update) and delete.
    const deciding = (op: Operation): Operation =>
      op === "create" ? "update" : op;
    out.push({
      kind: "translation",
      table: model.translation.table,
      model,
      label: `${model.label}Translation`,
      columns: [
        {
          name: baseKey(model),
          kind: "relation",
          field: baseKey(model),
          required: true,
          private: false,
          target: model.name,
        },
        {
          name: "lang",
          kind: "text",
          field: "lang",
          required: true,
          private: false,
        },
        ...model.translation.columns,
      ],
      readerKeys: [baseKey(model), "lang"],
      order: ["lang", "id"],
      take: LIST,
      ruleOf: (op) => model.access[deciding(op)],
      decidingOp: deciding,
    });
  }
  for (const list of model.lists) {
    for (const junction of list.junctions) {
      out.push({
        kind: "junction",
        table: junction.table,
        model,
        label: `${model.label}${junction.table}`,
        columns: [
          junctionColumn("owner_id", model.name),
          junctionColumn("target_id", junction.target),
          {
            name: "position",
            kind: "integer",
            field: "position",
            required: true,
            private: false,
          },
          ...(junction.localized
            ? [{
              name: "lang",
              kind: "text" as const,
              field: "lang",
              required: true,
              private: false,
            }]
            : []),
        ],
        readerKeys: ["owner_id", "target_id"],
        order: ["position", "id"],
        take: JUNCTION_LIST,
        // A junction is read as its owner is read; it is never written through these routes.
        ruleOf: (op) =>
          op === "findMany" || op === "findManyPaginated" || op === "findUnique"
            ? model.access[op]
            : null,
        decidingOp: (op) => op,
      });
    }
  }
  return out;
}

function junctionColumn(name: string, target: string): ColumnSpec {
  return {
    name,
    kind: "relation",
    field: name,
    required: true,
    private: false,
    target,
  };
}
