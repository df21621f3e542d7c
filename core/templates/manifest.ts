// The template manifest of an uploaded candidate `{ manifest, source }`: its name, entry module,
// declared chrome regions and registered sections (spec 3 part 4.8 rules 6 and 7).
import { z } from "zod";
import type { DefinitionProp } from "../pages/mod.ts";

/** The folder registered section components live in; they may import only the page contract. */
export const REGISTERED_COMPONENT_DIR = "sections/";
/** The lockfile every candidate carries; the build installs exactly these versions, offline. */
export const LOCKFILE_PATH = "template.lock.json";
/** The module name a template imports the page contract by. */
export const PAGE_CONTRACT_MODULE = "@stave/page-contract";

const KEY = /^[a-z][a-z0-9_-]{0,63}$/;
const PROP_NAME = /^[a-z][a-z0-9_]{0,31}$/;
const REGION_KEY = /^[A-Za-z0-9_-]{1,64}$/;
const SOURCE_PATH =
  /^(?:[A-Za-z0-9_][A-Za-z0-9._-]*\/)*[A-Za-z0-9_][A-Za-z0-9._-]*$/;
// Plain text: no markup or control characters in a label the admin and the chrome show.
const PLAIN = /^[^<>\p{Cc}]+$/u;

const simpleProp = z.strictObject({
  kind: z.enum(["text", "multiline", "link", "media", "toggle"]),
});
const choiceProp = z.strictObject({
  kind: z.literal("choice"),
  options: z.array(z.string().trim().min(1).max(60)).min(2).max(12)
    .refine((o) => new Set(o).size === o.length, "options must be unique"),
});
const itemProps = z.record(
  z.string().regex(PROP_NAME),
  z.discriminatedUnion("kind", [simpleProp, choiceProp]),
).refine((p) => Object.keys(p).length >= 1 && Object.keys(p).length <= 12, {
  message: "a list item has 1 to 12 props",
});
const listProp = z.strictObject({ kind: z.literal("list"), props: itemProps });

const props = z.record(
  z.string().regex(PROP_NAME, "prop names are lowercase letters, digits or _")
    // `heading` is every section's own title, never a registered prop.
    .refine((name) => name !== "heading", "heading is reserved"),
  z.discriminatedUnion("kind", [simpleProp, choiceProp, listProp]),
).refine((p) => Object.keys(p).length <= 24, "at most 24 props");

/** A registered section definition as declared. */
export const definitionSchema = z.strictObject({
  key: z.string().regex(KEY, "keys match ^[a-z][a-z0-9_-]{0,63}$"),
  label: z.string().trim().min(1).max(60).regex(PLAIN),
  description: z.string().trim().max(280),
  variants: z.array(z.string().regex(KEY)).min(1).max(8)
    .refine((v) => new Set(v).size === v.length, "variants must be unique"),
  props,
});

/** A declared registered section definition. */
export type SectionDefinition = z.infer<typeof definitionSchema>;

const sourcePath = z.string().max(200).regex(
  SOURCE_PATH,
  "a relative path of letters, digits, ., _ and - segments",
);

/** The closed manifest object. */
export const manifestSchema = z.strictObject({
  name: z.string().trim().min(1).max(60).regex(PLAIN),
  entry: sourcePath,
  regions: z.array(z.strictObject({
    key: z.string().regex(
      REGION_KEY,
      "region keys are 1 to 64 letters, digits, _ or -",
    ),
    label: z.string().trim().min(1).max(60).regex(
      PLAIN,
      "a plain label without markup",
    ),
  })).min(1).max(8).refine(
    (r) => new Set(r.map((x) => x.key)).size === r.length,
    "region keys must be unique",
  ).optional(),
  registered_sections: z.array(z.strictObject({
    definition: definitionSchema,
    component: sourcePath.refine(
      (p) => p.startsWith(REGISTERED_COMPONENT_DIR) && /\.tsx?$/.test(p),
      `a .ts or .tsx file under ${REGISTERED_COMPONENT_DIR}`,
    ),
  })).max(32).refine(
    (s) => new Set(s.map((x) => x.definition.key)).size === s.length,
    "registered section keys must be unique",
  ).optional(),
});

/** A template manifest as declared. */
export type TemplateManifest = z.infer<typeof manifestSchema>;

/** The lockfile's closed shape: exact versions by package name. */
export const lockfileSchema = z.strictObject({
  packages: z.record(
    z.string().regex(/^(?:@[a-z0-9-]+\/)?[a-z0-9][a-z0-9._-]*$/),
    z.string().regex(/^\d+\.\d+\.\d+$/, "an exact version such as 1.2.3"),
  ),
});

/** One problem of a manifest: where and what. */
export interface ManifestIssue {
  path: string;
  message: string;
}

/** Reads a manifest; a refusal lists every issue (`invalid_template_manifest`). */
export function readManifest(
  value: unknown,
):
  | { ok: true; manifest: TemplateManifest }
  | { ok: false; code: "invalid_template_manifest"; issues: ManifestIssue[] } {
  const parsed = manifestSchema.safeParse(value);
  if (parsed.success) return { ok: true, manifest: parsed.data };
  return {
    ok: false,
    code: "invalid_template_manifest",
    issues: parsed.error.issues.map((i) => ({
      path: ["manifest", ...i.path.map(String)].join("."),
      message: i.message,
    })),
  };
}

/** A declared definition as the page parser's registry reads it. */
export function definitionProps(
  definition: SectionDefinition,
): Record<string, DefinitionProp> {
  return definition.props as Record<string, DefinitionProp>;
}
