// Contract of the settings routes: the six site settings documents, read and replaced under a revision pin.
import { z } from "zod";
import { SETTINGS_SCHEMAS } from "../../sites/settings_documents.ts";
import { operation } from "./operation.ts";

/** The keys of the settings documents, as path values. */
export const settingsKey = z.enum(
  Object.keys(SETTINGS_SCHEMAS) as [
    keyof typeof SETTINGS_SCHEMAS,
    ...(keyof typeof SETTINGS_SCHEMAS)[],
  ],
);

/**
 * A settings document. The route validates it against the schema of its key (refusal:
 * `input_invalid` with `problems`), so the contract states the six shapes as `anyOf`.
 */
const settingsDocument = z.looseObject({}).meta({
  description:
    "The whole document of the key in the path; each key has its own closed shape",
  anyOf: Object.entries(SETTINGS_SCHEMAS).map(([key, schema]) => ({
    title: `${
      key.split(/[_-]/).map((w) => w[0].toUpperCase() + w.slice(1)).join("")
    }Settings`,
    ...z.toJSONSchema(schema, {
      target: "draft-2020-12",
      unrepresentable: "any",
    }),
  })).map(({ $schema: _, ...rest }) => rest),
});

/** A stored settings document with its revision (0: the defaults, never changed). */
export const settingsAnswer = z.strictObject({
  key: settingsKey,
  document: settingsDocument,
  revision: z.int().min(0),
  updated_at: z.string().nullable().describe("ISO time of the last change"),
});

const params = z.strictObject({ key: settingsKey });

/** `GET /settings/{key}`. */
export const getSettings = operation({
  name: "get-settings",
  description:
    "Each key has its own closed document shape (see the `*Settings` schemas). Send the `revision` back as `expected_revision` when you replace it.",
  method: "GET",
  path: "/settings/{key}",
  summary: "Read one settings document and its revision",
  tag: "settings",
  scope: "settings:write",
  key: null,
  status: 200,
  params,
  answer: settingsAnswer,
});

/** `PUT /settings/{key}`. */
export const putSettings = operation({
  name: "put-settings",
  description:
    "Replaces the whole document of the key in the path. A stale `expected_revision` is refused with `409`, so two scripts never overwrite each other silently.",
  method: "PUT",
  path: "/settings/{key}",
  summary:
    "Replace one settings document when expected_revision is its current revision",
  tag: "settings",
  scope: "settings:write",
  // MAPI-014: chrome and seo are proved from their write; other documents run again.
  key: { retention: "short", settle: "prove" },
  status: 200,
  params,
  body: z.strictObject({
    expected_revision: z.int().min(0),
    document: settingsDocument,
  }),
  answer: settingsAnswer,
  errors: ["input_invalid", "unknown_region", "conflict"],
});

const reviewedRule = z.strictObject({
  from: z.string().max(2048),
  match: z.enum(["exact", "pattern"]),
  status: z.union([
    z.literal(301),
    z.literal(302),
    z.literal(307),
    z.literal(308),
    z.literal(410),
    z.literal(451),
  ]),
  to: z.string().max(2048).nullable(),
});

/** `POST /settings/seo/redirect-review` (SET-007; no Idempotency-Key: it stores nothing). */
export const reviewSeoRedirects = operation({
  name: "review-seo-redirects",
  method: "POST",
  path: "/settings/seo/redirect-review",
  summary:
    "Review a redirect list (or the stored one) for duplicates, shadowed patterns, loops and chains; stores nothing",
  tag: "settings",
  scope: "settings:write",
  key: null,
  status: 200,
  body: z.strictObject({
    redirects: z.array(reviewedRule).max(256 + 32).optional().describe(
      "The list to review; absent reviews the stored seo document's redirects",
    ),
  }),
  answer: z.strictObject({
    reviewed: z.int().min(0).describe("How many rules were reviewed"),
    findings: z.array(z.strictObject({
      index: z.int().min(0),
      from: z.string(),
      kind: z.enum(["duplicate", "shadowed", "loop", "chain"]),
      message: z.string(),
      final: z.string().nullable().optional(),
    })),
  }),
});
