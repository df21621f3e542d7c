// Moves every schema an OpenAPI document uses more than once, and every request and answer body, into named components.
import type { z } from "zod";

/** A JSON Schema or OpenAPI object, as plain JSON. */
export type Json = Record<string, unknown>;

/** Names for shapes, keyed by the JSON text of the shape (see {@link schemaNamesOf}). */
export type SchemaNames = Map<string, string>;

/** One body schema to place: where it sits in the document and the name it takes when nothing better is known. */
export interface BodySchema {
  /** The object holding `schema` (a media type object); its `schema` is replaced by a `$ref`. */
  holder: Json;
  /** Name used when no export names this shape, e.g. `GetSiteResponse`. */
  fallbackName: string;
  /** False for a parameter's schema: a component only when it is used more than once. */
  always?: boolean;
}

/**
 * A shape is worth a name when a generated client would give it a type of its own: objects with
 * properties, unions and enums of more than one value. Strings, numbers and open records stay inline.
 */
export function isNamable(node: Json): boolean {
  if (node.type === "object" && isRecord(node.properties)) {
    return Object.keys(node.properties).length > 0;
  }
  const options = node.anyOf ?? node.oneOf;
  if (Array.isArray(options)) {
    // `X or null` is X made nullable, not a type of its own.
    return options.filter((o) => !(isRecord(o) && o.type === "null")).length >
      1;
  }
  return Array.isArray(node.enum) && node.enum.length > 1;
}

/**
 * Names of the zod schemas a module exports, by the JSON text of their output and input shapes:
 * `entryRead` names `EntryRead`; an input shape that differs from the output is `EntryReadInput`.
 * The first export of a shape wins, so an alias never renames it.
 */
export function schemaNamesOf(
  modules: readonly Record<string, unknown>[],
  toJson: (schema: z.ZodType, io: "input" | "output") => Json,
): SchemaNames {
  const names: SchemaNames = new Map();
  for (const module of modules) {
    for (const [name, value] of Object.entries(module)) {
      if (!isZodSchema(value)) continue;
      let output: Json, input: Json;
      try {
        output = toJson(value, "output");
        input = toJson(value, "input");
      } catch {
        continue; // Not representable on its own (e.g. a bare transform); it is never a body.
      }
      const pascal = name[0].toUpperCase() + name.slice(1);
      const outputKey = JSON.stringify(output);
      const inputKey = JSON.stringify(input);
      if (isNamable(output) && !names.has(outputKey)) {
        names.set(outputKey, pascal);
      }
      if (isNamable(input) && !names.has(inputKey)) {
        names.set(inputKey, inputKey === outputKey ? pascal : `${pascal}Input`);
      }
    }
  }
  return names;
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function";
}

/**
 * Replaces each body schema by a `$ref` to a named component and every namable shape that occurs
 * more than once (counted after the bodies are shared) by a `$ref` too; answers the components,
 * sorted by name. Names come from `names`, else from a PascalCase `title`, else from where the shape is first met
 * (`ListEntriesResponseDataItem`); a taken name gets a number.
 */
export function extractComponents(
  bodies: readonly BodySchema[],
  names: SchemaNames,
  refPrefix = "#/components/schemas/",
): Record<string, Json> {
  // Pass 1: count each shape once per place it would appear in the finished document: a shape
  // already met is counted but not walked again, as its parts then appear only once.
  const count = new Map<string, number>();
  const firstPath = new Map<string, string>();
  const bodyNamed = new Set<string>();
  const walk = (node: unknown, path: string, isBody: boolean) => {
    if (!isRecord(node)) return;
    const key = JSON.stringify(node);
    if (isNamable(node) || isBody) {
      const seen = count.get(key) ?? 0;
      // A body is always a component, so it counts as two uses.
      count.set(key, seen + (isBody ? 2 : 1));
      // A body takes its operation's name even when the shape was first met inside another.
      if (isBody && !bodyNamed.has(key)) {
        bodyNamed.add(key);
        firstPath.set(key, path);
      }
      if (seen > 0) return;
      if (!firstPath.has(key)) firstPath.set(key, path);
    }
    for (const [child, part] of childrenOf(node)) {
      walk(child, path + part, false);
    }
  };
  for (const body of bodies) {
    walk(body.holder.schema, body.fallbackName, body.always !== false);
  }

  // Pass 2: rebuild bottom-up, replacing shared shapes by references.
  const components: Record<string, Json> = {};
  const nameOf = new Map<string, string>();
  const taken = new Set<string>();
  const refFor = (key: string, built: Json): Json => {
    let name = nameOf.get(key);
    if (!name) {
      const title = typeof built.title === "string" &&
          /^[A-Z][A-Za-z0-9]*$/.test(built.title)
        ? built.title
        : undefined;
      const base = names.get(key) ?? title ?? firstPath.get(key) ?? "Schema";
      name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
      taken.add(name);
      nameOf.set(key, name);
      components[name] = built;
    }
    return { $ref: refPrefix + name };
  };
  const rebuild = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rebuild);
    if (!isRecord(node)) return node;
    const key = JSON.stringify(node);
    const built: Json = {};
    for (const [k, v] of Object.entries(node)) {
      built[k] = SCHEMA_KEYS.has(k) ? rebuildPart(k, v) : v;
    }
    return (count.get(key) ?? 0) >= 2 ? refFor(key, built) : built;
  };
  const rebuildPart = (key: string, value: unknown): unknown => {
    if (key === "properties" && isRecord(value)) {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, rebuild(v)]),
      );
    }
    return rebuild(value);
  };
  // Bodies first in document order, so their names are the stable ones.
  for (const body of bodies) body.holder.schema = rebuild(body.holder.schema);
  return Object.fromEntries(
    Object.entries(components).sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** The keys whose values are schemas (or lists or maps of them) in JSON Schema 2020-12. */
const SCHEMA_KEYS = new Set([
  "properties",
  "items",
  "prefixItems",
  "additionalProperties",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "propertyNames",
]);

/** The schema children of `node`, with the name part each adds to a path-derived name. */
export function childrenOf(node: Json): [unknown, string][] {
  const children: [unknown, string][] = [];
  if (isRecord(node.properties)) {
    for (const [name, child] of Object.entries(node.properties)) {
      children.push([child, pascalCase(name)]);
    }
  }
  if (isRecord(node.items)) children.push([node.items, "Item"]);
  if (Array.isArray(node.prefixItems)) {
    node.prefixItems.forEach((c, i) => children.push([c, `Item${i + 1}`]));
  }
  if (isRecord(node.additionalProperties)) {
    children.push([node.additionalProperties, "Value"]);
  }
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const list = node[key];
    if (Array.isArray(list)) {
      list.forEach((c, i) => children.push([c, `Option${i + 1}`]));
    }
  }
  if (isRecord(node.not)) children.push([node.not, "Not"]);
  if (isRecord(node.propertyNames)) children.push([node.propertyNames, "Key"]);
  return children;
}

/** `list-entries` or `model_id` -> `ListEntries`, `ModelId`. */
export function pascalCase(text: string): string {
  return text.split(/[^A-Za-z0-9]+/).filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1)).join("");
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
