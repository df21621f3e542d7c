// Contract of the page routes (spec 2 part 4.2, ENT-028 to ENT-031): read a page, save its
// document, add a language.
import { z } from "zod";
import {
  entryParams,
  entryWritten,
  POLICY_ERRORS,
  policyResults,
} from "./entries.ts";
import type { ErrorCode } from "./errors.ts";
import { languageCode } from "./languages.ts";
import { operation } from "./operation.ts";

/** Page addresses: slugs such as `about-us`; some are reserved (docs/pages.md). */
const pageSlug = z.string().regex(
  /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
  "expected a slug such as about-us",
).max(200);

// Checked by the page parser, which names the path of each problem; the schema says only that
// a document is an object, for readers and tool clients.
const pageDocument = z.unknown().meta({
  type: "object",
  additionalProperties: true,
  description:
    "A page document (format 2 or 3; see static/page-document-v3.schema.json and docs/pages.md)",
});

const pageError = z.strictObject({
  code: z.string(),
  message: z.string(),
  detail: z.looseObject({ path: z.string() }),
});

const pageLocale = z.strictObject({
  entry_id: z.uuid(),
  slug: z.string(),
  state: z.enum(["draft", "published", "trashed"]),
  current_version_id: z.uuid().nullable(),
  published_version_id: z.uuid().nullable(),
  published_at: z.string().nullable(),
  document: pageDocument.describe(
    "The current version's page document, canonical; null when it cannot be read",
  ),
  document_error: pageError.nullable().describe(
    "Why the stored document cannot be read, else null",
  ),
  page_contract: z.strictObject({ required: z.int().nullable() }),
  fields: z.record(z.string(), z.unknown()).describe(
    "The language's other field values (the title and the like)",
  ),
  pending_address: z.strictObject({
    address: z.string().nullable().describe(
      "The address the language moves to when published; null: it would have none",
    ),
    version_id: z.uuid().describe("The version that set it"),
  }).nullable().describe(
    "An address change waiting for publication; `slug` stays the live address until then",
  ),
});

/** `GET /pages/{id}`. */
export const getPage = operation({
  name: "get-page",
  method: "GET",
  path: "/pages/{id}",
  summary:
    "Read a page: each language's address, pins and current page document",
  tag: "pages",
  scope: "content:read",
  key: null,
  status: 200,
  params: entryParams,
  answer: z.strictObject({
    ...entryWritten.shape,
    locales: z.record(z.string(), pageLocale),
  }),
  errors: ["not_found"],
});

const SAVE_ERRORS: ErrorCode[] = [
  "not_found",
  "unknown_locale",
  "locale_denied",
  "field_denied",
  "version_conflict",
  "field_validation_failed",
  "slug_taken",
  "slug_reserved",
  "audit_unavailable",
];

/** `POST /pages/{id}/save`. */
export const savePage = operation({
  name: "save-page",
  method: "POST",
  path: "/pages/{id}/save",
  summary:
    "Save a new draft version of one language's page document (and optionally its address), pinned to the version the edit started from",
  tag: "pages",
  scope: "pages:write",
  key: {
    retention: "short",
    settle: "rerun",
    replayAs: { created: false },
  },
  status: 200,
  params: entryParams,
  body: z.strictObject({
    locale: languageCode,
    expected_current_version_id: z.uuid(),
    document: pageDocument,
    slug: pageSlug.optional().describe(
      "A new address for this language; the live page keeps its address until this language is published (see set-page-address)",
    ),
  }),
  answer: z.strictObject({
    ...entryWritten.shape,
    created: z.boolean().describe(
      "true for the save that made the version; a replay answers false",
    ),
    policy_results: policyResults,
  }),
  errors: [...SAVE_ERRORS, ...POLICY_ERRORS],
});

/** `POST /pages/{id}/translations`. */
export const addPageTranslation = operation({
  name: "add-page-translation",
  method: "POST",
  path: "/pages/{id}/translations",
  summary:
    "Add a language to a page with its own address and page document, as a draft",
  tag: "pages",
  scope: "pages:write",
  key: {
    retention: "short",
    settle: "rerun",
    replayAs: { created: false },
  },
  status: 201,
  params: entryParams,
  body: z.strictObject({
    locale: languageCode,
    slug: pageSlug,
    document: pageDocument,
    fields: z.record(z.string(), z.unknown()).optional().describe(
      "The language's other field values (the title); the page document goes in `document`",
    ),
  }),
  answer: z.strictObject({
    ...entryWritten.shape,
    locale: z.string(),
    created: z.boolean(),
  }),
  errors: [...SAVE_ERRORS, "locale_exists"],
});

/** `POST /pages/{id}/address`. */
export const setPageAddress = operation({
  name: "set-page-address",
  description:
    "Writes a new draft version of the language (same values) that records the address. The live page keeps its address until that language is published; publication then moves it and adds a 301 redirect from the old address to the SEO settings. `address: null` takes the address away: publishing the language is then refused `409 page_address_required` until an address is set again.",
  method: "POST",
  path: "/pages/{id}/address",
  summary: "Set or change a page's address in a new draft version",
  tag: "pages",
  scope: "pages:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: entryParams,
  body: z.strictObject({
    locale: languageCode,
    address: pageSlug.nullable(),
    expected_current_version_id: z.uuid(),
  }),
  answer: z.strictObject({
    ...entryWritten.shape,
    pending_address: z.strictObject({
      locale: z.string(),
      address: z.string().nullable(),
      version_id: z.uuid(),
    }),
  }),
  errors: SAVE_ERRORS,
});

/** The operations of this file, in the docs' order. */
export const PAGE_OPERATIONS = [
  getPage,
  savePage,
  addPageTranslation,
  setPageAddress,
] as const;
