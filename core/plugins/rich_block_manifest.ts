// This module is browser compatible.
// A plugin's rich-text blocks as its manifest declares them: editing controls (scalar and
// grouped), validation rules, the render tree with its allowed tags and depth, and the
// migration steps between block versions.
import { z } from "zod";
import { LIMITS } from "./protocol.ts";
import {
  addDuplicateIssues,
  description,
  httpsUrlSchema,
  keySchema,
  label,
} from "./manifest_values.ts";

const scalarControlTypes = [
  "text",
  "textarea",
  "rich",
  "number",
  "boolean",
  "select",
  "url",
  "media",
  "relation",
] as const;

/** A control that holds one value. */
export const scalarControlSchema = z.strictObject({
  name: keySchema,
  label,
  type: z.enum(scalarControlTypes),
  required: z.boolean().default(false),
  help: description.optional(),
  max_length: z.number().int().min(1).max(100_000).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  options: z.array(z.strictObject({ value: z.string().max(200), label }))
    .min(1).max(100).optional(),
  /** Relation controls: the model slugs an item may point at. */
  models: z.array(keySchema).min(1).max(20).optional(),
});

type ScalarControl = z.output<typeof scalarControlSchema>;
/** A repeatable group control; groups nest at most three levels. */
export interface GroupControl {
  name: string;
  label: string;
  type: "group";
  help?: string;
  min_items: number;
  max_items: number;
  controls: Control[];
}
/** A rich-block control. */
export type Control = ScalarControl | GroupControl;
type ScalarControlInput = z.input<typeof scalarControlSchema>;
/** A group control as a manifest author writes it (`min_items` optional). */
export interface GroupControlInput {
  name: string;
  label: string;
  type: "group";
  help?: string;
  min_items?: number;
  max_items: number;
  controls: ControlInput[];
}
/** A rich-block control as a manifest author writes it. */
export type ControlInput = ScalarControlInput | GroupControlInput;

function groupSchema(
  level: number,
): z.ZodType<GroupControl, GroupControlInput> {
  const children = level < LIMITS.rich_block_groups.max_depth
    ? z.union([scalarControlSchema, groupSchema(level + 1)])
    : scalarControlSchema;
  return z.strictObject({
    name: keySchema,
    label,
    type: z.literal("group"),
    help: description.optional(),
    min_items: z.number().int().min(0).max(LIMITS.rich_block_groups.max_items)
      .default(0),
    max_items: z.number().int().min(1).max(LIMITS.rich_block_groups.max_items),
    controls: z.array(children).min(1).max(50),
  }).superRefine((group, ctx) => {
    if (group.min_items > group.max_items) {
      ctx.addIssue({
        code: "custom",
        path: ["min_items"],
        message: "min_items is at most max_items",
      });
    }
    addDuplicateIssues(ctx, group.controls.map((c) => c.name), ["controls"]);
  }) as unknown as z.ZodType<GroupControl, GroupControlInput>;
}

/** A control of a rich block: a scalar or a group (nesting three levels at most). */
export const controlSchema = z.union([scalarControlSchema, groupSchema(1)]);

/** A rule across a block's top-level controls. */
export const richBlockRuleSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("required_when"),
    field: keySchema,
    when: z.strictObject({
      field: keySchema,
      equals: z.union([z.string().max(200), z.number(), z.boolean()]),
    }),
    message: z.string().trim().min(1).max(200).optional(),
  }),
  z.strictObject({
    kind: z.literal("one_of_required"),
    fields: z.array(keySchema).min(2).max(20),
    message: z.string().trim().min(1).max(200).optional(),
  }),
]);

const renderTags = [
  "div",
  "p",
  "span",
  "strong",
  "em",
  "blockquote",
  "cite",
  "figure",
  "figcaption",
  "img",
  "a",
  "ul",
  "ol",
  "li",
  "h2",
  "h3",
  "h4",
  "code",
  "pre",
  "hr",
  "br",
] as const;

const fieldRef = z.strictObject({ field: z.string().max(200) });

/** One node of a rich block's declarative render tree. */
export type RenderNode =
  | {
    el: typeof renderTags[number];
    class?: string;
    attrs?: {
      href?: string | { field: string };
      src?: { field: string };
      alt?: string | { field: string };
    };
    children?: RenderNode[];
  }
  | { text: string }
  | { field: string; format?: "plain" | "rich" }
  | { each: string; children: RenderNode[] }
  | { when: string; children: RenderNode[] };

/** The declarative render tree: elements, literal text, field values, loops over groups, conditions. */
export const renderNodeSchema: z.ZodType<RenderNode> = z.lazy(() =>
  z.union([
    z.strictObject({
      el: z.enum(renderTags),
      class: z.string().regex(/^[a-z0-9 _-]{0,200}$/).optional(),
      attrs: z.strictObject({
        href: z.union([httpsUrlSchema, fieldRef]).optional(),
        src: fieldRef.optional(),
        alt: z.union([z.string().max(200), fieldRef]).optional(),
      }).optional(),
      children: z.array(renderNodeSchema).max(50).optional(),
    }),
    z.strictObject({ text: z.string().max(2000) }),
    z.strictObject({
      field: z.string().max(200),
      format: z.enum(["plain", "rich"]).optional(),
    }),
    z.strictObject({
      each: keySchema,
      children: z.array(renderNodeSchema).min(1).max(50),
    }),
    z.strictObject({
      when: keySchema,
      children: z.array(renderNodeSchema).min(1).max(50),
    }),
  ])
).meta({ id: "render_node" });

/** One step that moves stored values from one block version to the next. */
export const migrationStepSchema = z.discriminatedUnion("op", [
  z.strictObject({ op: z.literal("rename"), from: keySchema, to: keySchema }),
  z.strictObject({
    op: z.literal("set_default"),
    field: keySchema,
    value: z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]),
  }),
  z.strictObject({ op: z.literal("remove"), field: keySchema }),
]);

/** A rich-text block a plugin registers. */
export const richBlockSchema = z.strictObject({
  type: keySchema,
  label,
  description: description.optional(),
  version: z.number().int().min(1).max(1000),
  inline: z.boolean().default(false),
  controls: z.array(controlSchema).min(1).max(50),
  rules: z.array(richBlockRuleSchema).max(50).default([]),
  render: renderNodeSchema,
  migrations: z.array(z.strictObject({
    from: z.number().int().min(1),
    to: z.number().int().min(2),
    steps: z.array(migrationStepSchema).min(1).max(50),
  })).max(100).default([]),
}).superRefine((block, ctx) => {
  const names = block.controls.map((c) => c.name);
  addDuplicateIssues(ctx, names, ["controls"]);
  block.rules.forEach((rule, i) => {
    const refs = rule.kind === "required_when"
      ? [rule.field, rule.when.field]
      : rule.fields;
    for (const ref of refs) {
      if (!names.includes(ref)) {
        ctx.addIssue({
          code: "custom",
          path: ["rules", i],
          message: `Rule names unknown control "${ref}"`,
        });
      }
    }
  });
  block.migrations.forEach((m, i) => {
    if (m.to !== m.from + 1 || m.to > block.version) {
      ctx.addIssue({
        code: "custom",
        path: ["migrations", i],
        message:
          "a migration moves one version forward (to = from + 1) up to the block's version",
      });
    }
  });
  addDuplicateIssues(ctx, block.migrations.map((m) => m.from), ["migrations"]);
  const depth = renderDepth(block.render);
  if (depth > 12) {
    ctx.addIssue({
      code: "custom",
      path: ["render"],
      message: "the render tree nests at most 12 levels",
    });
  }
});

function renderDepth(node: RenderNode): number {
  const children = "children" in node ? node.children ?? [] : [];
  return 1 +
    children.reduce((max, child) => Math.max(max, renderDepth(child)), 0);
}
