// This module is browser compatible.
// Derives the JSON Schema of the page document (`page-document-v3.schema.json`) from the
// vocabulary the parser reads, so the two cannot drift apart.
import {
  APPEARANCE,
  DIGEST_PATTERN,
  FIELD_NAME_PATTERN,
  FILE_CATALOGUE,
  FILE_LIMITS,
  FORM_FIELD_KINDS,
  HREF_PATTERN,
  type ItemSpec,
  LAYOUT_PATTERN,
  PAGE_LIMITS,
  type PropSpec,
  RUN_MARKS,
  SECTION_ID_PATTERN,
  SECTION_TYPES,
  VARIANT_PATTERN,
} from "./vocabulary.ts";

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/$defs/${name}` });
const nullable = (schema: Schema): Schema => ({
  anyOf: [schema, { type: "null" }],
});

function textSchema(prop: Extract<PropSpec, { kind: "text" }>): Schema {
  const out: Schema = {
    type: "string",
    minLength: 1,
    maxLength: prop.max ??
      (prop.long ? PAGE_LIMITS.longText : PAGE_LIMITS.shortText),
  };
  if (prop.pattern) out.pattern = prop.pattern;
  return prop.required || prop.later ? out : nullable(out);
}

function propSchema(prop: PropSpec): Schema {
  switch (prop.kind) {
    case "text":
      return textSchema(prop);
    case "paragraphs":
      return {
        type: "array",
        minItems: prop.min,
        maxItems: prop.max,
        items: ref("paragraph"),
      };
    case "link": {
      const link = prop.https ? ref("https_link") : ref("link");
      return prop.required || prop.later ? link : nullable(link);
    }
    case "media":
      return prop.required ? ref("media") : nullable(ref("media"));
    case "integer":
      return { type: "integer", minimum: prop.min, maximum: prop.max };
    case "true_flag":
      return { const: true };
    case "texts":
      return {
        type: "array",
        minItems: prop.min,
        maxItems: prop.max,
        items: { type: "string", minLength: 1 },
      };
    case "items":
      return {
        type: "array",
        minItems: prop.min,
        maxItems: prop.max,
        items: itemSchema(prop.item),
      };
    case "form_fields":
      return {
        type: "array",
        minItems: prop.min,
        maxItems: prop.max,
        items: ref("form_field"),
      };
    case "custom_fields":
      return {
        type: "object",
        description:
          "Values of the registered section definition the structure pins",
      };
  }
}

function objectSchema(props: Record<string, PropSpec>): Schema {
  const required = Object.entries(props).filter(([, p]) =>
    p.kind === "paragraphs" || p.kind === "integer" ||
    p.kind === "form_fields" ||
    (p.kind === "items" && p.min > 0) ||
    ((p.kind === "text" || p.kind === "link" || p.kind === "media") &&
      p.required === true)
  ).map(([k]) => k);
  return {
    type: "object",
    additionalProperties: false,
    properties: Object.fromEntries(
      Object.entries(props).map(([k, p]) => [k, propSchema(p)]),
    ),
    ...(required.length > 0 ? { required } : {}),
  };
}

function itemSchema(item: ItemSpec): Schema {
  if (item.kind === "object") return objectSchema(item.props);
  return {
    oneOf: Object.entries(item.variants).map(([kind, props]) => {
      const schema = objectSchema(props);
      return {
        ...schema,
        properties: { kind: { const: kind }, ...(schema.properties as Schema) },
        required: ["kind", ...((schema.required as string[]) ?? [])],
      };
    }),
  };
}

/** The JSON Schema (draft 2020-12) of a stored page document, formats 2 and 3. */
export function pageDocumentSchema(): Schema {
  const sectionTypes = Object.keys(SECTION_TYPES);
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://stave.dev/schemas/page-document-v3.schema.json",
    title: "Stave page document (formats 2 and 3)",
    description:
      "Generated from core/pages/vocabulary.ts by `deno task gen`. Rules that join values (props keyed by the ids of sections, one props object per section and its type, a hero's secondary link, one highlighted plan, a contact's one way in, unique form field names, crops inside the image, registered definitions and pins) are checked by the parser in core/pages/parse.ts.",
    type: "object",
    additionalProperties: false,
    required: ["format", "sections", "props"],
    properties: {
      format: { enum: [2, 3] },
      sections: {
        type: "array",
        maxItems: PAGE_LIMITS.sections,
        items: ref("section"),
      },
      props: {
        type: "object",
        additionalProperties: {
          anyOf: sectionTypes.map((t) => ref(`props_${t}`)),
        },
      },
    },
    $defs: {
      section: {
        type: "object",
        additionalProperties: false,
        required: ["id", "type", "variant", "layout", "component"],
        properties: {
          id: { type: "string", pattern: SECTION_ID_PATTERN },
          type: { enum: sectionTypes },
          variant: { type: "string", pattern: VARIANT_PATTERN },
          layout: { type: "string", pattern: LAYOUT_PATTERN },
          component: nullable(ref("component_pin")),
          appearance: {
            type: "object",
            additionalProperties: false,
            minProperties: 1,
            properties: Object.fromEntries(
              Object.entries(APPEARANCE).map(([k, v]) => [k, { enum: v }]),
            ),
          },
          definition: {
            type: "object",
            additionalProperties: false,
            required: ["key", "version", "digest"],
            properties: {
              key: { type: "string", pattern: "^[a-z][a-z0-9_-]{0,63}$" },
              version: { type: "integer", minimum: 1 },
              digest: { type: "string", pattern: DIGEST_PATTERN },
            },
          },
          shared: {
            type: "object",
            additionalProperties: false,
            required: ["entry"],
            properties: {
              entry: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
            },
          },
        },
        allOf: [
          {
            if: { properties: { type: { const: "custom" } } },
            then: { required: ["definition"] },
            else: { not: { required: ["definition"] } },
          },
          {
            if: { properties: { type: { const: "shared" } } },
            then: {
              required: ["shared"],
              properties: {
                variant: { const: "default" },
                layout: { const: "default" },
                component: { type: "null" },
              },
              not: { required: ["appearance"] },
            },
            else: { not: { required: ["shared"] } },
          },
        ],
      },
      component_pin: {
        type: "object",
        additionalProperties: false,
        required: ["component_id", "version_id", "artifact_digest"],
        properties: {
          component_id: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
          version_id: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
          artifact_digest: { type: "string", pattern: DIGEST_PATTERN },
        },
      },
      link: {
        type: "object",
        additionalProperties: false,
        required: ["label", "href"],
        properties: {
          label: { type: "string", minLength: 1 },
          href: {
            type: "string",
            maxLength: PAGE_LIMITS.href,
            pattern: HREF_PATTERN,
          },
        },
      },
      https_link: {
        type: "object",
        additionalProperties: false,
        required: ["label", "href"],
        properties: {
          label: { type: "string", minLength: 1 },
          href: {
            type: "string",
            maxLength: PAGE_LIMITS.href,
            pattern: "^https://[^\\s]+$",
          },
        },
      },
      fraction: { type: "number", minimum: 0, maximum: 1 },
      media: {
        type: "object",
        additionalProperties: false,
        required: ["media_id", "url", "alt"],
        properties: {
          media_id: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
          url: { type: "string", pattern: "^(https?://|/)[^\\s]*$" },
          alt: nullable({ type: "string", minLength: 1 }),
          crop: {
            type: "object",
            additionalProperties: false,
            required: ["x", "y", "width", "height"],
            properties: {
              x: ref("fraction"),
              y: ref("fraction"),
              width: { type: "number", exclusiveMinimum: 0, maximum: 1 },
              height: { type: "number", exclusiveMinimum: 0, maximum: 1 },
            },
          },
          focal: {
            type: "object",
            additionalProperties: false,
            required: ["x", "y"],
            properties: { x: ref("fraction"), y: ref("fraction") },
          },
        },
      },
      paragraph: {
        anyOf: [
          {
            type: "string",
            minLength: 1,
            maxLength: PAGE_LIMITS.longText,
          },
          {
            type: "array",
            minItems: 1,
            maxItems: PAGE_LIMITS.runs,
            items: {
              type: "object",
              additionalProperties: false,
              required: ["text", "marks"],
              properties: {
                text: { type: "string", minLength: 1 },
                marks: {
                  type: "array",
                  uniqueItems: true,
                  items: { enum: RUN_MARKS },
                },
              },
            },
          },
        ],
      },
      form_field: {
        type: "object",
        additionalProperties: false,
        required: ["name", "kind", "label", "required", "help", "options"],
        properties: {
          name: { type: "string", pattern: FIELD_NAME_PATTERN },
          kind: { enum: FORM_FIELD_KINDS },
          label: { type: "string", minLength: 1 },
          required: { type: "boolean" },
          help: nullable({ type: "string", minLength: 1 }),
          options: {
            type: "array",
            maxItems: 20,
            uniqueItems: true,
            items: { type: "string", minLength: 1 },
          },
          accept: {
            type: "array",
            maxItems: FILE_LIMITS.accept,
            uniqueItems: true,
            items: {
              enum: FILE_CATALOGUE.flatMap((f) => [f.type, ...f.extensions]),
            },
          },
          max_files: {
            type: "integer",
            minimum: 1,
            maximum: FILE_LIMITS.maxFiles,
          },
          max_bytes: {
            type: "integer",
            minimum: 1,
            maximum: FILE_LIMITS.maxBytes,
          },
        },
        allOf: [
          {
            if: { properties: { kind: { const: "select" } } },
            then: { properties: { options: { minItems: 2 } } },
            else: { properties: { options: { maxItems: 0 } } },
          },
          {
            if: { properties: { kind: { not: { const: "file" } } } },
            then: {
              not: {
                anyOf: [
                  { required: ["accept"] },
                  { required: ["max_files"] },
                  { required: ["max_bytes"] },
                ],
              },
            },
          },
        ],
      },
      ...Object.fromEntries(
        Object.entries(SECTION_TYPES).map((
          [t, props],
        ) => [`props_${t}`, objectSchema(props as Record<string, PropSpec>)]),
      ),
    },
  };
}

/** The schema file's text as `deno task gen` writes it. */
export function pageDocumentSchemaText(): string {
  return JSON.stringify(pageDocumentSchema(), null, 2) + "\n";
}
