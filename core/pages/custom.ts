// This module is browser compatible.
// Custom sections: registered definitions, component pins, their digests and the values of a
// custom section's `fields` (spec 3 part 2.2 "Custom sections", part 4.8 rule 6).
import type { PageErrorCode } from "./vocabulary.ts";

/** A component pin: never a bare name, never resolved to a newer version. */
export interface ComponentPin {
  component_id: string;
  version_id: string;
  artifact_digest: string;
}

/** A prop of a registered section definition. */
export type DefinitionProp =
  | { kind: "text" | "multiline" | "link" | "media" | "toggle" }
  | { kind: "choice"; options: string[] }
  | { kind: "list"; props: Record<string, DefinitionProp> };

/** A registered section definition at one version, with the component versions of its key. */
export interface RegisteredDefinition {
  key: string;
  version: number;
  /** SHA-256 over the canonical JSON of the definition and the exact component bytes. */
  digest: string;
  props: Record<string, DefinitionProp>;
  components: (ComponentPin & { promoted: boolean })[];
}

/** Where a parse looks registered sections up (loaded by the caller; lookups are synchronous). */
export interface SectionRegistry {
  definition(key: string, version: number): RegisteredDefinition | null;
}

/** A registry of the given definitions. */
export function sectionRegistry(
  definitions: readonly RegisteredDefinition[],
): SectionRegistry {
  const byKey = new Map(definitions.map((d) => [`${d.key}@${d.version}`, d]));
  return {
    definition: (key, version) => byKey.get(`${key}@${version}`) ?? null,
  };
}

/** Canonical JSON: object keys sorted, no spaces (the digest's input). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value).sort().map((k) =>
      `${JSON.stringify(k)}:${
        canonicalJson((value as Record<string, unknown>)[k])
      }`
    );
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * `definition.digest`: SHA-256 (64 lowercase hex) over the canonical JSON of the declared
 * definition followed by the exact component bytes.
 */
export async function sectionDefinitionDigest(
  definition: unknown,
  component: Uint8Array,
): Promise<string> {
  const head = new TextEncoder().encode(canonicalJson(definition));
  const all = new Uint8Array(head.length + component.length);
  all.set(head);
  all.set(component, head.length);
  const digest = await crypto.subtle.digest("SHA-256", all);
  return Array.from(
    new Uint8Array(digest),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/** What {@link checkCustomFields} needs from the parse. */
export interface CustomFieldsContext {
  registry?: SectionRegistry;
  refuse(code: PageErrorCode, path: string, message: string): never;
  /** Reads a link as every other section's link is read (refuses otherwise). */
  link(value: unknown, at: string): { label: string; href: string };
  /** Reads a media reference as every other section's media is read (refuses otherwise). */
  media(value: unknown, at: string): Record<string, unknown>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Checks a custom section's `fields` against its registered definition; returns canonical values. */
export function checkCustomFields(
  section: { definition?: { key: string; version: number } },
  raw: unknown,
  at: string,
  ctx: CustomFieldsContext,
): Record<string, unknown> {
  const def = section.definition &&
    ctx.registry?.definition(
      section.definition.key,
      section.definition.version,
    );
  if (!def) {
    ctx.refuse(
      "unknown_section_definition",
      at,
      "The section is not registered",
    );
  }
  if (raw === undefined || raw === null) raw = {};
  if (!isObject(raw)) ctx.refuse("invalid_slide", at, "fields is an object");
  return readValues(raw, def.props, at, ctx);
}

function readValues(
  raw: Record<string, unknown>,
  props: Record<string, DefinitionProp>,
  at: string,
  ctx: CustomFieldsContext,
): Record<string, unknown> {
  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(props, key)) {
      ctx.refuse(
        "invalid_slide",
        `${at}.${key}`,
        `"${key}" is not in the definition`,
      );
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(props)) {
    out[key] = readValue(raw[key], prop, `${at}.${key}`, ctx);
  }
  return out;
}

function readValue(
  v: unknown,
  prop: DefinitionProp,
  at: string,
  ctx: CustomFieldsContext,
): unknown {
  if (v === undefined || v === null) {
    return prop.kind === "list" ? [] : prop.kind === "toggle" ? false : null;
  }
  const bad = (what: string): never =>
    ctx.refuse("invalid_slide", at, `Expected ${what}`);
  switch (prop.kind) {
    case "text":
    case "multiline": {
      if (typeof v !== "string") return bad("text");
      const t = v.trim();
      return t === "" ? null : t;
    }
    case "toggle":
      return typeof v === "boolean" ? v : bad("true or false");
    case "choice":
      return typeof v === "string" && prop.options.includes(v)
        ? v
        : bad(`one of ${prop.options.join(", ")}`);
    case "link":
      return ctx.link(v, at);
    case "media":
      return ctx.media(v, at);
    case "list": {
      if (!Array.isArray(v)) return bad("a list");
      return v.map((item, i) => {
        if (!isObject(item)) return bad("list items that are objects");
        return readValues(item, prop.props, `${at}[${i}]`, ctx);
      });
    }
  }
}
