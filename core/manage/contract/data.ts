// Contract of imports and exports (spec 2 part 4.2; the routes after advance-import are Stave's,
// docs/imports-exports.md): import sources, import jobs fed an archive in parts and advanced
// one step at a time, exports built step by step and read in byte-range pages.
import { z } from "zod";
import { operation } from "./operation.ts";

const id = z.uuid();
const sha256 = z.string().regex(
  /^[0-9a-f]{64}$/,
  "expected 64 lower-case hex digits",
);
const limit = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20).describe(
    "1 to 100, default 20",
  ),
});
const page = z.coerce.number().int().min(1).max(100_000).default(1).describe(
  "1-based page of 1 MiB; next_page names the next one",
);
const replayed = z.literal(true).optional().describe(
  "Present when the answer is a replay of an earlier request with the same key",
);

/** An import source: how archives imported from it are treated. */
export const importSource = z.strictObject({
  id,
  name: z.string(),
  format: z.literal("stave-archive").describe(
    "The archive format imports from this source read (docs/imports-exports.md)",
  ),
  options: z.strictObject({
    publish: z.enum(["as_archived", "drafts"]).describe(
      "as_archived: languages published in the archive are published; drafts: everything arrives as a draft",
    ),
  }),
  created_at: z.string(),
  replayed,
});

const problem = z.strictObject({
  code: z.string(),
  message: z.string(),
  line: z.number().int().optional().describe("Archive line"),
  id: z.string().optional().describe("Archive id of the record concerned"),
});

const plan = z.strictObject({
  languages: z.array(z.strictObject({
    code: z.string(),
    action: z.enum(["present", "create"]),
  })),
  models: z.array(z.strictObject({
    id: z.string().describe("The model's id in the archive"),
    slug: z.string(),
    action: z.enum(["match", "create"]),
    target_id: z.string().nullable().describe(
      "The matching model here; null until a created one exists",
    ),
  })),
  counts: z.strictObject({
    languages: z.number().int(),
    models: z.number().int(),
    media: z.number().int(),
    entries: z.number().int(),
  }),
});

const IMPORT_STATES = [
  "awaiting_archive",
  "archive_received",
  "ready",
  "blocked",
  "importing",
  "completed",
  "failed",
  "canceled",
] as const;
const EXPORT_STATES = ["building", "ready"] as const;

/** An import or export job as answered. */
export const job = z.strictObject({
  id,
  kind: z.enum(["import", "export"]),
  state: z.enum([...IMPORT_STATES, ...EXPORT_STATES]).describe(
    "Imports: awaiting_archive, archive_received, ready, blocked, importing, completed, failed, canceled. Exports: building, ready",
  ),
  position: z.number().int().describe(
    "Steps taken so far; every step moves it by one",
  ),
  phase: z.string().nullable().describe(
    "What the next step does (imports: head, media, drafts, values, receipt; exports: head, media, entries, seal); null when none is left",
  ),
  source_id: id.nullable(),
  options: z.record(z.string(), z.unknown()),
  plan: plan.nullable().describe(
    "Imports, from the plan step on: what will be created and what matched",
  ),
  counts: z.record(z.string(), z.number()),
  problems: z.array(problem).describe("The first 50 problems"),
  problem_count: z.number().int(),
  file: z.strictObject({
    bytes: z.number().int(),
    sha256,
    pages: z.number().int().describe("Pages of 1 MiB a byte-range read gives"),
  }).nullable().describe(
    "The received archive (imports) or the built archive (exports)",
  ),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
  replayed,
});

/** One byte range of a file (spec 2 part 4.5). */
export const byteRange = z.strictObject({
  content_base64: z.string(),
  content_type: z.string(),
  offset: z.number().int(),
  length: z.number().int(),
  total: z.number().int(),
  next_offset: z.number().int().nullable(),
  sha256: sha256.describe(
    "SHA-256 of the whole file, to check once every page is read",
  ),
  page: z.number().int(),
  next_page: z.number().int().nullable(),
});

const jobParams = z.strictObject({ id });

/** `GET /imports/sources`. */
export const listImportSources = operation({
  name: "list-import-sources",
  method: "GET",
  path: "/imports/sources",
  summary: "List the site's import sources, oldest first",
  tag: "imports",
  scope: "data:import",
  key: null,
  status: 200,
  answer: z.strictObject({ data: z.array(importSource) }),
});

/** `POST /imports/sources`. */
export const createImportSource = operation({
  name: "create-import-source",
  description:
    "A source names a format and what an import from it does; every import is made from one.",
  method: "POST",
  path: "/imports/sources",
  summary: "Create an import source",
  tag: "imports",
  scope: "data:import",
  key: { retention: "short", settle: "prove" },
  status: 201,
  body: z.strictObject({
    name: z.string().trim().min(1).max(80),
    format: z.literal("stave-archive"),
    options: z.strictObject({
      publish: z.enum(["as_archived", "drafts"]).default("as_archived"),
    }).default({ publish: "as_archived" }),
  }),
  answer: importSource,
  errors: ["import_source_name_taken"],
});

/** `GET /imports`. */
export const listImports = operation({
  name: "list-imports",
  method: "GET",
  path: "/imports",
  summary: "List import jobs, newest first",
  tag: "imports",
  scope: "data:import",
  key: null,
  status: 200,
  query: limit,
  answer: z.strictObject({ data: z.array(job) }),
});

/** `POST /imports`. */
export const createImport = operation({
  name: "create-import",
  description:
    "The job waits for its archive: send it with upload-import-part, then complete-import-archive, then advance-import until it is completed.",
  method: "POST",
  path: "/imports",
  summary: "Create an import job from a source",
  tag: "imports",
  scope: "data:import",
  key: { retention: "short", settle: "prove" },
  status: 201,
  body: z.strictObject({ source_id: id }),
  answer: job,
  errors: ["not_found"],
});

/** `GET /imports/{id}`. */
export const getImport = operation({
  name: "get-import",
  method: "GET",
  path: "/imports/{id}",
  summary: "Read an import job",
  tag: "imports",
  scope: "data:import",
  key: null,
  status: 200,
  params: jobParams,
  answer: job,
  errors: ["not_found"],
});

/** `PUT /imports/{id}/archive/parts/{part}`. */
export const uploadImportPart = operation({
  name: "upload-import-part",
  description:
    "Parts are numbered from 1 and sent in order; every part but the last is exactly 5 MiB (5,242,880 bytes). Sending a part again replaces it.",
  method: "PUT",
  path: "/imports/{id}/archive/parts/{part}",
  summary: "Upload one part of an import's archive",
  tag: "imports",
  scope: "data:import",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: z.strictObject({
    id,
    part: z.string().regex(/^[1-9][0-9]{0,5}$/).describe("1-based part number"),
  }),
  query: z.strictObject({
    sha256: sha256.optional().describe(
      "The part's SHA-256; when given, a part that does not match is refused",
    ),
  }),
  binary: true,
  bodyLimit: 5 * 1024 * 1024,
  answer: z.strictObject({
    id,
    part: z.number().int(),
    bytes: z.number().int(),
    sha256,
    parts_received: z.number().int(),
  }),
  errors: [
    "not_found",
    "import_archive_closed",
    "import_part_out_of_order",
    "import_part_digest_mismatch",
    "import_part_invalid",
    "payload_too_large",
    "unsupported_content_type",
  ],
});

/** `POST /imports/{id}/archive/complete`. */
export const completeImportArchive = operation({
  name: "complete-import-archive",
  description:
    "Checks the parts (every one but the last exactly 5 MiB) and the whole archive's SHA-256; a mismatch changes nothing.",
  method: "POST",
  path: "/imports/{id}/archive/complete",
  summary: "Close an import's archive upload with the file's SHA-256",
  tag: "imports",
  scope: "data:import",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: jobParams,
  body: z.strictObject({
    sha256,
    parts: z.number().int().min(1).optional().describe(
      "How many parts were sent; checked when given",
    ),
  }),
  answer: job,
  errors: [
    "not_found",
    "import_archive_closed",
    "import_archive_parts_invalid",
    "import_archive_digest_mismatch",
    "job_busy",
  ],
});

/** `POST /imports/{id}/advance`. */
export const advanceImport = operation({
  name: "advance-import",
  description:
    "Runs the job's next step: the plan first (it reads every archive line and matches languages and models; problems block the job), then one batch of languages and models, media, entries as drafts, their relations and publication, and the receipt. `recheck=true` plans again against the site as it is now, e.g. after fixing what blocked it.",
  method: "POST",
  path: "/imports/{id}/advance",
  summary: "Run the next step of an import",
  tag: "imports",
  scope: "data:import",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: jobParams,
  query: z.strictObject({
    recheck: z.enum(["true", "false"]).optional().describe(
      "true plans again before anything else is imported",
    ),
  }),
  answer: job,
  errors: [
    "not_found",
    "import_archive_incomplete",
    "import_blocked",
    "import_finished",
    "job_busy",
  ],
});

/** `POST /imports/{id}/cancel`. */
export const cancelImport = operation({
  name: "cancel-import",
  description:
    "What was imported already stays (the receipt is not written); the job takes no further step.",
  method: "POST",
  path: "/imports/{id}/cancel",
  summary: "Cancel an import that has not finished",
  tag: "imports",
  scope: "data:import",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: jobParams,
  answer: job,
  errors: ["not_found", "import_finished", "job_busy"],
});

/** `GET /imports/{id}/artifacts/{artifact}`. */
export const readImportArtifact = operation({
  name: "read-import-artifact",
  description:
    "`receipt` (JSON: counts and every archive id with the id it has here) once the import is completed; `problems` (JSON Lines, one problem each) once it has finished or is blocked.",
  method: "GET",
  path: "/imports/{id}/artifacts/{artifact}",
  summary: "Read one page of an import's receipt or problem file",
  tag: "imports",
  scope: "data:import",
  key: null,
  status: 200,
  params: z.strictObject({ id, artifact: z.enum(["receipt", "problems"]) }),
  query: z.strictObject({ page }),
  answer: byteRange,
  errors: ["not_found", "artifact_not_ready"],
});

/** `GET /exports`. */
export const listExports = operation({
  name: "list-exports",
  method: "GET",
  path: "/exports",
  summary: "List export jobs, newest first",
  tag: "exports",
  scope: "data:export",
  key: null,
  status: 200,
  query: limit,
  answer: z.strictObject({ data: z.array(job) }),
});

/** `POST /exports`. */
export const createExport = operation({
  name: "create-export",
  description:
    "A whole-site export: languages, models, media and every entry not in Trash. Refused to a credential whose role narrows reading (field or language read limits) or that is limited to some models. Build it with advance-export, then read it with read-export-chunk.",
  method: "POST",
  path: "/exports",
  summary: "Create a whole-site export",
  tag: "exports",
  scope: "data:export",
  key: { retention: "short", settle: "prove" },
  status: 201,
  body: z.strictObject({
    include_media: z.boolean().default(true).describe(
      "false leaves media bytes out (entries keep their media ids)",
    ),
  }),
  answer: job,
  errors: ["export_limited_role"],
});

/** `GET /exports/{id}`. */
export const getExport = operation({
  name: "get-export",
  method: "GET",
  path: "/exports/{id}",
  summary: "Read an export job",
  tag: "exports",
  scope: "data:export",
  key: null,
  status: 200,
  params: jobParams,
  answer: job,
  errors: ["not_found"],
});

/** `POST /exports/{id}/advance`. */
export const advanceExport = operation({
  name: "advance-export",
  description:
    "Writes the next part of the archive: head (languages, models), media in batches of 10, entries in batches of 200, then the seal with the file's SHA-256.",
  method: "POST",
  path: "/exports/{id}/advance",
  summary: "Run the next step of an export",
  tag: "exports",
  scope: "data:export",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: jobParams,
  answer: job,
  errors: ["not_found", "export_finished", "export_limited_role", "job_busy"],
});

/** `GET /exports/{id}/chunk`. */
export const readExportChunk = operation({
  name: "read-export-chunk",
  description:
    "Pages of 1 MiB; check the SHA-256 of the joined pages against `sha256` before using the file.",
  method: "GET",
  path: "/exports/{id}/chunk",
  summary: "Read one page of a built export",
  tag: "exports",
  scope: "data:export",
  key: null,
  status: 200,
  params: jobParams,
  query: z.strictObject({ page }),
  answer: byteRange,
  errors: ["not_found", "export_not_ready", "export_limited_role"],
});

/** Every import and export operation. */
export const DATA_OPERATIONS = [
  listImportSources,
  createImportSource,
  listImports,
  createImport,
  getImport,
  uploadImportPart,
  completeImportArchive,
  advanceImport,
  cancelImport,
  readImportArtifact,
  listExports,
  createExport,
  getExport,
  advanceExport,
  readExportChunk,
] as const;
