// This module is browser compatible.
// Manifest v1 (spec 1 part 2.1) as closed zod objects, and parseManifest() that also enforces the one-origin rule.
import { z } from "zod";
import {
  CAPABILITIES,
  NOTIFICATION_EVENTS,
  OPERATION_REQUIREMENTS,
  PROTOCOL_VERSION,
} from "./protocol.ts";
import {
  addDuplicateIssues,
  description,
  httpsOriginSchema,
  keySchema,
  label,
  pluginIdSchema,
  pluginUrlSchema,
  safeUrl,
  versionSchema,
} from "./manifest_values.ts";
export {
  httpsOriginSchema,
  httpsUrlSchema,
  keySchema,
  pluginIdSchema,
  pluginUrlSchema,
  toneSchema,
} from "./manifest_values.ts";
import { richBlockSchema } from "./rich_block_manifest.ts";
export {
  controlSchema,
  migrationStepSchema,
  renderNodeSchema,
  richBlockRuleSchema,
  richBlockSchema,
  scalarControlSchema,
} from "./rich_block_manifest.ts";
export type {
  Control,
  ControlInput,
  GroupControl,
  GroupControlInput,
  RenderNode,
} from "./rich_block_manifest.ts";

// ---------- Operations ----------

/** One declared input field of an operation's small form. */
export const operationInputSchema = z.strictObject({
  name: keySchema,
  label,
  type: z.enum([
    "text",
    "textarea",
    "number",
    "boolean",
    "select",
    "datetime",
    "timezone",
    "locale",
  ]),
  required: z.boolean().default(false),
  help: description.optional(),
  max_length: z.number().int().min(1).max(10_000).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  options: z.array(z.strictObject({ value: z.string().max(200), label }))
    .min(1).max(100).optional(),
}).superRefine((field, ctx) => {
  if ((field.type === "select") !== (field.options !== undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["options"],
      message: "options are required for a select field and allowed only there",
    });
  }
  if (
    field.max_length !== undefined &&
    field.type !== "text" && field.type !== "textarea"
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["max_length"],
      message: "max_length applies to text and textarea fields only",
    });
  }
  if (
    (field.min !== undefined || field.max !== undefined) &&
    field.type !== "number"
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["min"],
      message: "min and max apply to number fields only",
    });
  }
});

/** The kinds of block an operation result may hold. */
export const RESULT_BLOCK_KINDS = [
  "text",
  "rows",
  "links",
  "json",
  "cells",
] as const;

/** One operation (spec 1 part 2.1). */
export const operationSchema = z.strictObject({
  id: keySchema,
  label,
  description: description.optional(),
  url: pluginUrlSchema,
  scope: z.enum(["site", "entry", "page"]),
  audience: z.enum(["interactive", "automation", "column"]),
  requires: z.array(z.enum(OPERATION_REQUIREMENTS)).max(
    OPERATION_REQUIREMENTS.length,
  ),
  destructive: z.boolean().default(false),
  list_action: z.boolean().default(false),
  cell: z.enum(["badge"]).optional(),
  input: z.array(operationInputSchema).max(20).default([]),
  result: z.array(z.enum(RESULT_BLOCK_KINDS)).min(1).max(
    RESULT_BLOCK_KINDS.length,
  ),
}).superRefine((op, ctx) => {
  if (op.audience === "column") {
    if (op.cell !== "badge") {
      ctx.addIssue({
        code: "custom",
        path: ["cell"],
        message: 'a column operation declares cell "badge"',
      });
    }
    if (op.scope === "site") {
      ctx.addIssue({
        code: "custom",
        path: ["scope"],
        message: "a column operation has entry or page scope",
      });
    }
    if (!op.result.includes("cells")) {
      ctx.addIssue({
        code: "custom",
        path: ["result"],
        message: 'a column operation answers a "cells" block',
      });
    }
  } else {
    if (op.cell !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["cell"],
        message: "cell is declared only by column operations",
      });
    }
    if (op.result.includes("cells")) {
      ctx.addIssue({
        code: "custom",
        path: ["result"],
        message: 'only column operations answer "cells"',
      });
    }
  }
  if (op.list_action && op.scope === "site") {
    ctx.addIssue({
      code: "custom",
      path: ["list_action"],
      message: "a list action has entry or page scope",
    });
  }
  if (op.requires.includes("site:plugins") && op.scope !== "site") {
    ctx.addIssue({
      code: "custom",
      path: ["requires"],
      message: "site:plugins is required only by site operations",
    });
  }
  addDuplicateIssues(ctx, op.requires, ["requires"]);
  addDuplicateIssues(ctx, op.result, ["result"]);
  addDuplicateIssues(ctx, op.input.map((f) => f.name), ["input"]);
});

// ---------- Policies, media sources, views, actions, cards ----------

/** One content policy: `kind` is the command it checks, `mode` whether a failure blocks it. */
export const policySchema = z.strictObject({
  id: keySchema,
  label,
  description: description.optional(),
  url: pluginUrlSchema,
  kind: z.enum(["save", "restore", "trash", "transition"]),
  mode: z.enum(["blocking", "advisory"]),
});

/** One media source. */
export const mediaSourceSchema = z.strictObject({
  id: keySchema,
  label,
  description: description.optional(),
  url: pluginUrlSchema,
  modes: z.array(z.enum(["copy", "reference"])).min(1).max(2),
  delivery_origins: z.array(httpsOriginSchema).min(1).max(10).optional(),
}).superRefine((source, ctx) => {
  addDuplicateIssues(ctx, source.modes, ["modes"]);
  const reference = source.modes.includes("reference");
  if (reference !== (source.delivery_origins !== undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["delivery_origins"],
      message:
        'delivery_origins are present exactly when the "reference" mode is declared',
    });
  }
});

/** A management view (the scheduling plugin declares `calendar` and `releases`). */
export const manageViewSchema = z.strictObject({
  id: keySchema,
  label,
  description: description.optional(),
});

/** A content action: a launch bound to one entry or page. */
export const contentActionSchema = z.strictObject({
  id: keySchema,
  label,
  description: description.optional(),
  scope: z.enum(["entry", "page"]),
});

/** What a card's button opens: a delegated launch. */
export const cardOpensSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("content_action"), id: keySchema }),
  z.strictObject({ kind: z.literal("manage_view"), id: keySchema }),
  z.strictObject({ kind: z.literal("manage") }),
]);

/** A declarative card of `ui_extensions`, rendered with core controls only. */
export const uiExtensionSchema = z.strictObject({
  id: keySchema,
  placement: z.enum(["entry_sidebar", "page_sidebar", "settings_row"]),
  title: label,
  body: z.string().trim().min(1).max(280).optional(),
  button_label: label,
  opens: cardOpensSchema,
  frame: z.strictObject({
    url: pluginUrlSchema,
    height: z.number().int().min(80).max(800),
  }).optional(),
}).superRefine((card, ctx) => {
  const contentPlacement = card.placement !== "settings_row";
  if (contentPlacement !== (card.opens.kind === "content_action")) {
    ctx.addIssue({
      code: "custom",
      path: ["opens"],
      message: contentPlacement
        ? "an entry or page sidebar card opens a content action"
        : "a settings row opens a manage view or the management page",
    });
  }
});

// ---------- Rich blocks ----------

// ---------- The manifest ----------

/** Manifest v1: a closed object; every URL shares the manifest's origin. */
export const manifestV1Schema = z.strictObject({
  manifest_version: z.literal(1),
  protocol_version: z.literal(PROTOCOL_VERSION),
  id: pluginIdSchema,
  name: label,
  version: versionSchema,
  description: description.optional(),
  base_url: pluginUrlSchema,
  activation_url: pluginUrlSchema,
  management_url: pluginUrlSchema.optional(),
  capabilities: z.array(z.enum(CAPABILITIES)).max(CAPABILITIES.length),
  manage_views: z.array(manageViewSchema).max(10).default([]),
  content_actions: z.array(contentActionSchema).max(20).default([]),
  operations: z.array(operationSchema).max(50).default([]),
  policies: z.array(policySchema).max(20).default([]),
  media_sources: z.array(mediaSourceSchema).max(10).default([]),
  rich_blocks: z.array(richBlockSchema).max(50).default([]),
  ui_extensions: z.array(uiExtensionSchema).max(20).default([]),
  // The lifecycle notifications the plugin wants; without the key, all of them. A plugin that
  // reads nothing from them lists none, and no change queues anything for it.
  events: z.array(z.enum(NOTIFICATION_EVENTS)).max(NOTIFICATION_EVENTS.length)
    .optional(),
}).superRefine((m, ctx) => {
  addDuplicateIssues(ctx, m.capabilities, ["capabilities"]);
  if (m.events) addDuplicateIssues(ctx, m.events, ["events"]);
  for (
    const list of [
      "manage_views",
      "content_actions",
      "operations",
      "policies",
      "media_sources",
      "ui_extensions",
    ] as const
  ) {
    addDuplicateIssues(ctx, m[list].map((item) => item.id), [list]);
  }
  addDuplicateIssues(ctx, m.rich_blocks.map((b) => b.type), ["rich_blocks"]);
  if (
    (m.manage_views.length > 0 || m.content_actions.length > 0) &&
    m.management_url === undefined
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["management_url"],
      message: "manage views and content actions open the management_url",
    });
  }
  const requested = new Set<string>(m.capabilities);
  m.operations.forEach((op, i) => {
    op.requires.forEach((req, j) => {
      if (req !== "site:plugins" && !requested.has(req)) {
        ctx.addIssue({
          code: "custom",
          path: ["operations", i, "requires", j],
          message:
            `Operation requires "${req}", which the manifest does not request`,
        });
      }
    });
  });
  if (m.media_sources.length > 0 && !requested.has("media:source")) {
    ctx.addIssue({
      code: "custom",
      path: ["capabilities"],
      message: 'media sources need the "media:source" capability',
    });
  }
  m.ui_extensions.forEach((card, i) => {
    const opens = card.opens;
    const known = opens.kind === "content_action"
      ? m.content_actions.find((a) => a.id === opens.id)
      : opens.kind === "manage_view"
      ? m.manage_views.find((v) => v.id === opens.id)
      : m.management_url;
    if (known === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["ui_extensions", i, "opens"],
        message: "the card opens an undeclared content action, view or page",
      });
    } else if (
      opens.kind === "content_action" &&
      m.content_actions.find((a) => a.id === opens.id)?.scope !==
        (card.placement === "page_sidebar" ? "page" : "entry")
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["ui_extensions", i, "opens"],
        message: "the content action's scope does not match the card placement",
      });
    }
  });
});

/** A parsed manifest v1 (defaults applied). */
export type ManifestV1 = z.output<typeof manifestV1Schema>;
/** A manifest as a plugin author writes it (defaults optional). */
export type ManifestV1Input = z.input<typeof manifestV1Schema>;
/** One declared operation. */
export type ManifestOperation = z.output<typeof operationSchema>;
/** One declared policy. */
export type ManifestPolicy = z.output<typeof policySchema>;
/** One declared media source. */
export type ManifestMediaSource = z.output<typeof mediaSourceSchema>;
/** One declared rich block. */
export type ManifestRichBlock = z.output<typeof richBlockSchema>;

/** One problem found in a manifest: where and what. */
export interface ManifestIssue {
  path: string;
  message: string;
}

/** The answer of parseManifest(). */
export type ParseManifestResult =
  | { ok: true; manifest: ManifestV1 }
  | { ok: false; code: "plugin_response_invalid"; issues: ManifestIssue[] };

/** Options of parseManifest(). */
export interface ParseManifestOptions {
  /** The URL the manifest was fetched from; every manifest URL must share its origin. */
  manifestUrl: string;
}

/**
 * Validates a fetched manifest: the closed schema (an unknown key is a refusal) and the
 * rule that every URL shares the manifest URL's origin (spec 1 part 2.1 rule 3).
 */
export function parseManifest(
  json: unknown,
  options: ParseManifestOptions,
): ParseManifestResult {
  const parsed = manifestV1Schema.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      code: "plugin_response_invalid",
      issues: parsed.error.issues.slice(0, 50).map((issue) => ({
        path: issue.path.map(String).join("."),
        message: issue.message,
      })),
    };
  }
  const manifestUrl = safeUrl(options.manifestUrl);
  if (manifestUrl === null) {
    return {
      ok: false,
      code: "plugin_response_invalid",
      issues: [{ path: "", message: "the manifest URL is not a URL" }],
    };
  }
  const issues: ManifestIssue[] = [];
  for (const [path, value] of manifestUrls(parsed.data)) {
    const url = safeUrl(value);
    if (url === null || url.origin !== manifestUrl.origin) {
      issues.push({
        path,
        message:
          `URL is not on the manifest's origin "${manifestUrl.origin}": every manifest URL shares one origin`,
      });
    }
  }
  if (issues.length > 0) {
    return { ok: false, code: "plugin_response_invalid", issues };
  }
  return { ok: true, manifest: parsed.data };
}

/** Every URL a manifest declares, with its path (the media delivery origins excepted). */
export function manifestUrls(m: ManifestV1): [string, string][] {
  const urls: [string, string][] = [
    ["base_url", m.base_url],
    ["activation_url", m.activation_url],
  ];
  if (m.management_url !== undefined) {
    urls.push(["management_url", m.management_url]);
  }
  m.operations.forEach((op, i) => urls.push([`operations.${i}.url`, op.url]));
  m.policies.forEach((p, i) => urls.push([`policies.${i}.url`, p.url]));
  m.media_sources.forEach((s, i) =>
    urls.push([`media_sources.${i}.url`, s.url])
  );
  m.ui_extensions.forEach((card, i) => {
    if (card.frame) urls.push([`ui_extensions.${i}.frame.url`, card.frame.url]);
  });
  return urls;
}

/** Options of launchUrl(). */
export interface LaunchUrlOptions {
  installationId: string;
  /** The one-time launch code (`svl_…`), carried only as the `svc_launch` query parameter. */
  code: string;
  /** A declared manage view (`calendar`, `releases`), carried as `svc_view`. */
  view?: string;
}

/**
 * The plugin page a launch opens: `management_url` with `{installation_id}` replaced and
 * `svc_launch` (and `svc_view`) added. Null when the manifest declares no management URL.
 */
export function launchUrl(
  manifest: Pick<ManifestV1, "management_url">,
  options: LaunchUrlOptions,
): string | null {
  if (manifest.management_url === undefined) return null;
  const url = new URL(
    manifest.management_url.replaceAll(
      "{installation_id}",
      encodeURIComponent(options.installationId),
    ),
  );
  url.searchParams.set("svc_launch", options.code);
  if (options.view !== undefined) {
    url.searchParams.set("svc_view", options.view);
  }
  return url.href;
}
