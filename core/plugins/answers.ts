// This module is browser compatible.
// Closed schemas of what a plugin answers the service: operation results, policy decisions, media-source pages.
import { z } from "zod";
import {
  httpsUrlSchema,
  keySchema,
  type ManifestMediaSource,
  type ManifestOperation,
  type ManifestPolicy,
  pluginUrlSchema,
  toneSchema,
} from "./manifest.ts";

const text = (max: number) => z.string().max(max);
/** A JSON value. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };
/** Any JSON value (named once so the published schema has one definition of it). */
const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValue),
    z.record(z.string(), jsonValue),
  ])
).meta({ id: "json_value" });
const cellValue = z.union([text(1000), z.number(), z.boolean(), z.null()]);

/** A paragraph of text, optionally toned. */
export const textBlockSchema = z.strictObject({
  type: z.literal("text"),
  text: text(4000).min(1),
  tone: toneSchema.optional(),
});

/** A small table: declared columns, rows keyed by column. */
export const rowsBlockSchema = z.strictObject({
  type: z.literal("rows"),
  title: text(120).optional(),
  columns: z.array(z.strictObject({ key: keySchema, label: text(80).min(1) }))
    .min(1).max(12),
  rows: z.array(z.record(keySchema, cellValue)).max(200),
}).superRefine((block, ctx) => {
  const keys = new Set(block.columns.map((c) => c.key));
  block.rows.forEach((row, i) => {
    for (const key of Object.keys(row)) {
      if (!keys.has(key)) {
        ctx.addIssue({
          code: "custom",
          path: ["rows", i, key],
          message: `Row names undeclared column "${key}"`,
        });
      }
    }
  });
});

/** Links to open; https only. */
export const linksBlockSchema = z.strictObject({
  type: z.literal("links"),
  title: text(120).optional(),
  links: z.array(
    z.strictObject({ label: text(120).min(1), url: httpsUrlSchema }),
  )
    .min(1).max(50),
});

/** A JSON file the person may read or download (e.g. `schedule.json`). */
export const jsonBlockSchema = z.strictObject({
  type: z.literal("json"),
  filename: z.string().regex(
    /^[a-z0-9][a-z0-9._-]{0,59}\.json$/,
    'expected a file name such as "schedule.json"',
  ),
  data: jsonValue,
});

/** Badges for a content-list column, one per listed entry at most. */
export const cellsBlockSchema = z.strictObject({
  type: z.literal("cells"),
  cells: z.array(z.strictObject({
    instance_id: text(100).min(1),
    badge: z.strictObject({ label: text(40).min(1), tone: toneSchema }),
  })).max(200),
}).superRefine((block, ctx) => {
  const seen = new Set<string>();
  block.cells.forEach((cell, i) => {
    if (seen.has(cell.instance_id)) {
      ctx.addIssue({
        code: "custom",
        path: ["cells", i, "instance_id"],
        message: "One cell per entry",
      });
    }
    seen.add(cell.instance_id);
  });
});

/** One block of an operation result. */
export const resultBlockSchema = z.discriminatedUnion("type", [
  textBlockSchema,
  rowsBlockSchema,
  linksBlockSchema,
  jsonBlockSchema,
  cellsBlockSchema,
]);

/** An operation's answer: blocks the service renders, or a refusal by name. */
export const operationAnswerSchema = z.discriminatedUnion("status", [
  z.strictObject({
    status: z.literal("ok"),
    blocks: z.array(resultBlockSchema).max(20),
  }),
  z.strictObject({
    status: z.literal("refused"),
    code: keySchema,
    message: text(500).min(1),
  }),
]);

/** A parsed operation answer. */
export type OperationAnswer = z.output<typeof operationAnswerSchema>;
/** One parsed result block. */
export type ResultBlock = z.output<typeof resultBlockSchema>;

const fieldsList = z.array(keySchema).max(100);

/**
 * A policy's decision. `transform` replaces values of the same entry and language only;
 * `entry_id` and `locale`, when given, must name the checked ones.
 */
export const policyAnswerSchema = z.discriminatedUnion("decision", [
  z.strictObject({ decision: z.literal("allow") }),
  z.strictObject({
    decision: z.literal("warning"),
    message: text(500).min(1),
    fields: fieldsList.optional(),
  }),
  z.strictObject({
    decision: z.literal("refuse"),
    code: keySchema,
    message: text(500).min(1),
    fields: fieldsList.optional(),
  }),
  z.strictObject({
    decision: z.literal("transform"),
    message: text(500).min(1).optional(),
    entry_id: text(100).optional(),
    locale: text(35).optional(),
    values: z.record(keySchema, jsonValue),
    seo: z.record(keySchema, jsonValue).optional(),
  }),
]);

/** A parsed policy answer. */
export type PolicyAnswer = z.output<typeof policyAnswerSchema>;

/** One item of a media-source page. */
export const mediaSourceItemSchema = z.strictObject({
  id: text(200).min(1),
  title: text(200).min(1),
  mime_type: z.string().regex(/^[a-z]+\/[a-z0-9.+-]+$/).max(100).optional(),
  width: z.number().int().min(1).max(100_000).optional(),
  height: z.number().int().min(1).max(100_000).optional(),
  bytes: z.number().int().min(0).optional(),
  alt: text(500).optional(),
  // On the manifest's origin (checked below), so plain http only for a development origin.
  thumbnail_url: pluginUrlSchema,
  download_url: pluginUrlSchema.optional(),
  delivery_url: httpsUrlSchema.optional(),
});

/** One page of a media source: at most 24 items and the cursor of the next page. */
export const mediaSourceAnswerSchema = z.strictObject({
  items: z.array(mediaSourceItemSchema).max(24),
  next_cursor: z.string().min(1).max(500).nullable(),
});

/** A parsed media-source page. */
export type MediaSourceAnswer = z.output<typeof mediaSourceAnswerSchema>;

/** A plugin answer problem: where and what. */
export interface AnswerIssue {
  path: string;
  message: string;
}

/** Either the parsed answer or `plugin_response_invalid` with its issues. */
export type ParsedAnswer<T> =
  | { ok: true; answer: T }
  | { ok: false; code: "plugin_response_invalid"; issues: AnswerIssue[] };

function zodIssues(error: z.ZodError): AnswerIssue[] {
  return error.issues.slice(0, 20).map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
}

function invalid<T>(issues: AnswerIssue[]): ParsedAnswer<T> {
  return { ok: false, code: "plugin_response_invalid", issues };
}

/** Parses an operation answer; every block must be of a kind the operation declared. */
export function parseOperationAnswer(
  json: unknown,
  operation: Pick<ManifestOperation, "result">,
): ParsedAnswer<OperationAnswer> {
  const parsed = operationAnswerSchema.safeParse(json);
  if (!parsed.success) return invalid(zodIssues(parsed.error));
  if (parsed.data.status === "ok") {
    const issues: AnswerIssue[] = [];
    parsed.data.blocks.forEach((block, i) => {
      if (!operation.result.includes(block.type)) {
        issues.push({
          path: `blocks.${i}.type`,
          message: `The operation does not declare "${block.type}" results`,
        });
      }
    });
    if (issues.length > 0) return invalid(issues);
  }
  return { ok: true, answer: parsed.data };
}

/** What a policy checked: a transform may only touch this entry and language. */
export interface PolicyCheckScope {
  kind: ManifestPolicy["kind"];
  entryId: string;
  locale: string;
}

/** Parses a policy answer: `transform` only for save and restore, and only for the checked entry and language. */
export function parsePolicyAnswer(
  json: unknown,
  scope: PolicyCheckScope,
): ParsedAnswer<PolicyAnswer> {
  const parsed = policyAnswerSchema.safeParse(json);
  if (!parsed.success) return invalid(zodIssues(parsed.error));
  const answer = parsed.data;
  if (answer.decision === "transform") {
    if (scope.kind !== "save" && scope.kind !== "restore") {
      return invalid([{
        path: "decision",
        message: "Only save and restore policies may transform",
      }]);
    }
    if (answer.entry_id !== undefined && answer.entry_id !== scope.entryId) {
      return invalid([{
        path: "entry_id",
        message: "A transform reaches only the checked entry",
      }]);
    }
    if (answer.locale !== undefined && answer.locale !== scope.locale) {
      return invalid([{
        path: "locale",
        message: "A transform reaches only the checked language",
      }]);
    }
  }
  return { ok: true, answer };
}

/**
 * Parses a media-source page (spec 1 part 5.11): every `thumbnail_url` and
 * `download_url` on the manifest's origin, every `delivery_url` on a declared delivery
 * origin; a download URL only for a `copy` source, a delivery URL only for a
 * `reference` one, and each item usable in at least one declared mode.
 */
export function parseMediaSourceAnswer(
  json: unknown,
  options: {
    manifestOrigin: string;
    source: Pick<ManifestMediaSource, "modes" | "delivery_origins">;
  },
): ParsedAnswer<MediaSourceAnswer> {
  const parsed = mediaSourceAnswerSchema.safeParse(json);
  if (!parsed.success) return invalid(zodIssues(parsed.error));
  const issues: AnswerIssue[] = [];
  const delivery = new Set(options.source.delivery_origins ?? []);
  const copy = options.source.modes.includes("copy");
  const reference = options.source.modes.includes("reference");
  parsed.data.items.forEach((item, i) => {
    const origin = (value: string) => new URL(value).origin;
    if (origin(item.thumbnail_url) !== options.manifestOrigin) {
      issues.push({
        path: `items.${i}.thumbnail_url`,
        message: "A thumbnail is served from the manifest's origin",
      });
    }
    if (item.download_url !== undefined) {
      if (!copy) {
        issues.push({
          path: `items.${i}.download_url`,
          message: 'A download URL belongs to a "copy" source',
        });
      } else if (origin(item.download_url) !== options.manifestOrigin) {
        issues.push({
          path: `items.${i}.download_url`,
          message: "A download is served from the manifest's origin",
        });
      }
    }
    if (item.delivery_url !== undefined) {
      if (!reference) {
        issues.push({
          path: `items.${i}.delivery_url`,
          message: 'A delivery URL belongs to a "reference" source',
        });
      } else if (!delivery.has(origin(item.delivery_url))) {
        issues.push({
          path: `items.${i}.delivery_url`,
          message: "A delivery URL is on a declared delivery origin",
        });
      }
    }
    if (item.download_url === undefined && item.delivery_url === undefined) {
      issues.push({
        path: `items.${i}`,
        message: "An item carries a download URL or a delivery URL",
      });
    }
  });
  if (issues.length > 0) return invalid(issues);
  return { ok: true, answer: parsed.data };
}
