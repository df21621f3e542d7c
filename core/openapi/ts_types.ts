// One JSON Schema to TypeScript converter for the two generated clients: the Management API's
// types (generated/manage_client_types.ts, from zod's JSON Schema) and the public client's
// (clients/js/src/api.gen.ts, from the public OpenAPI document, which names components by $ref).
import type { Json } from "./components.ts";

/** How a document's schemas read as TypeScript. */
export interface TsTypeStyle {
  /** The type name of a `#/components/schemas/<name>` reference (absent: references are `unknown`). */
  refName?: (component: string) => string;
  /**
   * `alone`: an `anyOf`/`oneOf` is the whole type (the public document puts nothing beside one).
   * `intersected`: the type is its own shape `&` each `(anyOf)`, `(oneOf)` and `(allOf)` part, as
   * zod writes refinements beside a base shape.
   */
  unions: "alone" | "intersected";
}

/** A TypeScript type for `schema`, its object members indented for nesting `depth`. */
export function tsType(
  schema: Json | boolean,
  depth: number,
  style: TsTypeStyle,
): string {
  if (schema === true) return "unknown";
  if (schema === false) return "never";
  if (style.refName && typeof schema.$ref === "string") {
    return style.refName(schema.$ref.replace("#/components/schemas/", ""));
  }
  if (style.unions === "alone") {
    const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
    if (options) return options.map((s) => tsType(s, depth, style)).join(" | ");
    return baseType(schema, depth, style) ?? "unknown";
  }
  const parts: string[] = [];
  const base = baseType(schema, depth, style);
  if (base !== null) parts.push(base);
  for (const key of ["anyOf", "oneOf"] as const) {
    const list = schema[key] as Json[] | undefined;
    if (list) {
      parts.push(`(${list.map((s) => tsType(s, depth, style)).join(" | ")})`);
    }
  }
  const all = schema.allOf as Json[] | undefined;
  if (all) parts.push(...all.map((s) => `(${tsType(s, depth, style)})`));
  return parts.length === 0 ? "unknown" : parts.join(" & ");
}

/** The type of the schema's own keywords (`const`, `enum`, `type`), or null when it has none. */
function baseType(
  schema: Json,
  depth: number,
  style: TsTypeStyle,
): string | null {
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) {
    return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    return type.map((t) => baseType({ ...schema, type: t }, depth, style))
      .join(" | ");
  }
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const items = schema.items as Json | undefined;
      return items ? `Array<${tsType(items, depth, style)}>` : "unknown[]";
    }
    case "object":
      return objectType(schema, depth, style);
    default:
      return null;
  }
}

function objectType(schema: Json, depth: number, style: TsTypeStyle): string {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const pad = "  ".repeat(depth + 1);
  const members: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const doc = typeof property.description === "string"
      ? `${pad}/** ${property.description.replaceAll("*/", "* /")} */\n`
      : "";
    members.push(
      `${doc}${pad}${JSON.stringify(name)}${required.has(name) ? "" : "?"}: ${
        tsType(property, depth + 1, style)
      };`,
    );
  }
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false) {
    members.push(
      `${pad}[key: string]: ${
        tsType(extra as Json | boolean, depth + 1, style)
      };`,
    );
  }
  if (members.length === 0) return "Record<string, never>";
  return `{\n${members.join("\n")}\n${"  ".repeat(depth)}}`;
}
