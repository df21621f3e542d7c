// Contract of `GET /rich-blocks` (spec 2 part 4.2; MPL-001): the plugin rich blocks an editor
// may insert in rich text on this site, with what a valid block holds.
import { z } from "zod";
import { operation } from "./operation.ts";

const scalarControl = z.strictObject({
  name: z.string(),
  label: z.string(),
  type: z.enum([
    "text",
    "textarea",
    "rich",
    "number",
    "boolean",
    "select",
    "url",
    "media",
    "relation",
  ]),
  required: z.boolean(),
  help: z.string().optional(),
  max_length: z.int().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  options: z.array(z.strictObject({ value: z.string(), label: z.string() }))
    .optional().describe("Select controls: the values allowed"),
  models: z.array(z.string()).optional().describe(
    "Relation controls: the model slugs an item may point at",
  ),
});

/** A repeatable group holding `children`; groups nest at most three levels. */
function groupControl<C extends z.ZodType>(children: C) {
  return z.strictObject({
    name: z.string(),
    label: z.string(),
    type: z.literal("group"),
    help: z.string().optional(),
    min_items: z.int(),
    max_items: z.int(),
    controls: z.array(children),
  });
}

const innermostGroup = groupControl(scalarControl);
const innerGroup = groupControl(z.union([scalarControl, innermostGroup]));
const control = z.union([
  scalarControl,
  groupControl(z.union([scalarControl, innerGroup])),
]);

const rule = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("required_when"),
    field: z.string(),
    when: z.strictObject({
      field: z.string(),
      equals: z.union([z.string(), z.number(), z.boolean()]),
    }),
    message: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal("one_of_required"),
    fields: z.array(z.string()),
    message: z.string().optional(),
  }),
]);

const richBlock = z.strictObject({
  installation_id: z.uuid().describe("The active installation declaring it"),
  plugin_id: z.string().describe("Stored as `data-block`"),
  type: z.string().describe("Stored as `data-type`"),
  label: z.string(),
  description: z.string().nullable(),
  version: z.int().describe(
    "Stored as `data-version`: the version whose controls are listed",
  ),
  inline: z.boolean().describe("True when it sits inside a paragraph"),
  controls: z.array(control).describe(
    "`data-values` is a JSON object of these controls and no other key",
  ),
  rules: z.array(rule).describe("Checks across the top-level controls"),
});

/** `GET /rich-blocks`. */
export const listRichBlocks = operation({
  name: "list-rich-blocks",
  description:
    'The site\'s rich-block registry, the one `/v1/_rich-blocks` reads: every block an active plugin installation declares (a disabled plugin\'s blocks are absent). Blocks are not bound to models, so the list is the same whatever the credential\'s models. Insert one in a rich-text field as `<figure data-block="<plugin_id>" data-type="<type>" data-version="<version>" data-values="<JSON object of the controls>"></figure>`.',
  method: "GET",
  path: "/rich-blocks",
  summary: "List the plugin rich blocks an editor may insert in rich text",
  tag: "plugins",
  scope: "content:read",
  key: null,
  status: 200,
  params: z.strictObject({}),
  answer: z.strictObject({ data: z.array(richBlock) }),
});
