// The Stave archive (docs/imports-exports.md): JSON Lines, one closed record per line, a header
// first and an `end` record last, so an importer can check every line and notice a cut file.
import { z } from "zod";
import { DEFAULT_BODY_LIMIT } from "../manage/contract/operation.ts";
import { ALT_TEXT_MAX, API_UPLOAD_LIMIT } from "../media/upload.ts";
import { LANGUAGE_CODE_PATTERN } from "../sites/languages.ts";
import { HttpError } from "../web/errors.ts";
import {
  checkJsonDepth,
  checkJsonText,
  MAX_JSON_DEPTH,
} from "../web/request_text.ts";

/** The only archive format an import source reads today. */
export const ARCHIVE_FORMAT = "stave-archive";
/** The version of the format this build writes and reads. */
export const ARCHIVE_VERSION = 1;
/** Content type of an archive file. */
export const ARCHIVE_CONTENT_TYPE = "application/x-ndjson";

const uuid = z.string().regex(
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  "expected a lower-case UUID",
);
const fieldValues = z.record(z.string(), z.unknown());
// The rules the Management API routes apply to the same values (POST /languages, POST /entries).
const languageCode = z.string().regex(
  LANGUAGE_CODE_PATTERN,
  "expected a language code such as en or pt-BR",
);
const entrySlug = z.string().regex(
  /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
  "expected a slug such as my-first-post",
).max(200);

/**
 * Largest JSON body of the routes that write models and entries (`POST /models`,
 * `POST /entries`): a record's values are held to it as that route's body would be.
 */
export const ARCHIVE_VALUE_LIMIT = DEFAULT_BODY_LIMIT;
/** Characters of base64 that decode to the largest file the media route accepts (32 MiB). */
export const ARCHIVE_MEDIA_BASE64_LIMIT = Math.ceil(API_UPLOAD_LIMIT / 3) * 4;
/**
 * Longest archive line in bytes: the largest media line (its file at the media route's
 * limit, in base64) plus the 64 KiB the media route allows for the other parts. A longer
 * line is refused while it is read, never held whole.
 */
export const ARCHIVE_LINE_LIMIT = ARCHIVE_MEDIA_BASE64_LIMIT + 64 * 1024;
/**
 * Deepest nesting of a line: a route body's limit plus the two levels an entry line wraps
 * its values in (`languages`, then the language), so values nest as deep as a route allows.
 */
export const ARCHIVE_MAX_DEPTH = MAX_JSON_DEPTH + 2;

/** How many records of each kind an archive holds. */
export const archiveCounts = z.strictObject({
  languages: z.number().int().nonnegative(),
  models: z.number().int().nonnegative(),
  media: z.number().int().nonnegative(),
  entries: z.number().int().nonnegative(),
});
export type ArchiveCounts = z.output<typeof archiveCounts>;

export const headerRecord = z.strictObject({
  type: z.literal(ARCHIVE_FORMAT),
  version: z.literal(ARCHIVE_VERSION),
  exported_at: z.string(),
  default_language: languageCode,
});

export const languageRecord = z.strictObject({
  type: z.literal("language"),
  code: languageCode,
});

/** A model as `GET /models/{id}` answers its definition: field ids kept so values can be matched. */
export const modelRecord = z.strictObject({
  type: z.literal("model"),
  id: uuid,
  definition: z.strictObject({
    model: z.looseObject({ slug: z.string().min(1), name: z.string() }),
    fields: z.array(z.looseObject({
      id: z.string(),
      key: z.string().min(1),
      type: z.string().min(1),
      config: z.string(),
    })),
  }),
});

export const mediaRecord = z.strictObject({
  type: z.literal("media"),
  id: uuid,
  file_name: z.string().min(1).max(255),
  // As the media routes read `alt_texts`: language keys, at most 1,000 characters each.
  alt_texts: z.record(
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "expected a language code"),
    z.string().max(ALT_TEXT_MAX),
  ),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  content_base64: z.string(),
});

/** One language of an entry: what readers get (`published`) and the newer draft, if any (`current`). */
export const entryLanguage = z.strictObject({
  locale: languageCode,
  id: uuid,
  slug: entrySlug,
  published: fieldValues.nullable(),
  current: fieldValues.nullable(),
}).refine((l) => l.published !== null || l.current !== null, {
  message: "a language needs published or current values",
});

export const entryRecord = z.strictObject({
  type: z.literal("entry"),
  id: uuid,
  model_id: uuid,
  languages: z.array(entryLanguage).min(1),
});

export const endRecord = z.strictObject({
  type: z.literal("end"),
  counts: archiveCounts,
});

/** Any record after the header. */
export const bodyRecord = z.discriminatedUnion("type", [
  languageRecord,
  modelRecord,
  mediaRecord,
  entryRecord,
  endRecord,
]);

export type HeaderRecord = z.output<typeof headerRecord>;
export type LanguageRecord = z.output<typeof languageRecord>;
export type ModelRecord = z.output<typeof modelRecord>;
export type MediaRecord = z.output<typeof mediaRecord>;
export type EntryRecord = z.output<typeof entryRecord>;
export type EntryLanguage = z.output<typeof entryLanguage>;
export type BodyRecord = z.output<typeof bodyRecord>;

const encoder = new TextEncoder();

/** One record as its archive line (UTF-8, newline-terminated). */
export function encodeRecord(record: unknown): Uint8Array {
  return encoder.encode(`${JSON.stringify(record)}\n`);
}

/** Codes of the problems a line can have; each fails the import. */
export type LineProblemCode =
  /** Not JSON, not the format, or a value the route that would write it refuses. */
  | "import_archive_invalid"
  /** Longer than {@link ARCHIVE_LINE_LIMIT}. */
  | "import_line_too_long"
  /** A value larger than the route that would write it accepts. */
  | "import_value_too_large"
  /** Text PostgreSQL cannot store or that is not Unicode: NUL, a lone surrogate, bad UTF-8. */
  | "import_text_invalid";

/** A problem with one archive line. */
export interface LineProblem {
  code: LineProblemCode;
  line: number;
  message: string;
}

const utf8 = new TextEncoder();
const byteLength = (value: unknown) =>
  utf8.encode(JSON.stringify(value)).byteLength;

/** The first value of `record` larger than the route that would write it accepts. */
function oversized(record: HeaderRecord | BodyRecord): string | null {
  if (record.type === "model") {
    const bytes = byteLength({ definition: record.definition });
    if (bytes > ARCHIVE_VALUE_LIMIT) {
      return `definition: the model is ${bytes} bytes as a POST /models body; the most is ${ARCHIVE_VALUE_LIMIT}`;
    }
  }
  if (record.type === "media") {
    if (record.content_base64.length > ARCHIVE_MEDIA_BASE64_LIMIT) {
      return `content_base64: the file is larger than the ${API_UPLOAD_LIMIT} bytes an upload may be`;
    }
  }
  if (record.type === "entry") {
    for (const [i, language] of record.languages.entries()) {
      for (const which of ["published", "current"] as const) {
        const fields = language[which];
        if (fields === null) continue;
        // Measured as the body of POST /entries carrying these values.
        const bytes = byteLength({
          model_id: record.model_id,
          locale: language.locale,
          slug: language.slug,
          fields,
        });
        if (bytes > ARCHIVE_VALUE_LIMIT) {
          return `languages.${i}.${which}: the values are ${bytes} bytes as a POST /entries body; the most is ${ARCHIVE_VALUE_LIMIT}`;
        }
      }
    }
  }
  return null;
}

/**
 * Reads one line: the header on line 1, a body record after it. Before the format it checks
 * what a Management API route checks of a JSON body: nesting depth (before parsing), NUL and
 * lone surrogates anywhere, `__proto__` keys; after it, the size limits of the route that
 * would write the record.
 */
export function decodeLine(
  text: string,
  line: number,
): { ok: true; record: HeaderRecord | BodyRecord } | {
  ok: false;
  problem: LineProblem;
} {
  const invalid = (
    message: string,
    code: LineProblemCode = "import_archive_invalid",
  ) => ({
    ok: false as const,
    problem: { code, line, message },
  });
  let value: unknown;
  try {
    checkJsonDepth(text, ARCHIVE_MAX_DEPTH);
    value = JSON.parse(text);
    checkJsonText(value, "record", {
      keysCheckedLater: /^record\.languages\.\d+\.(published|current)(\.|$)/,
    });
  } catch (error) {
    if (error instanceof SyntaxError) return invalid("not valid JSON");
    if (!(error instanceof HttpError)) throw error;
    const issue =
      (error.details.issues as { path: string; message: string }[] | undefined)
        ?.[0];
    const text = issue?.message === "contains NUL" ||
      issue?.message === "contains a lone surrogate";
    return invalid(
      issue
        ? `${issue.path.replace(/^record\.?/, "") || "line"}: ${issue.message}`
        : error.message,
      text ? "import_text_invalid" : "import_archive_invalid",
    );
  }
  const parsed = (line === 1 ? headerRecord : bodyRecord).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
    return invalid(
      line === 1
        ? `not a ${ARCHIVE_FORMAT} version ${ARCHIVE_VERSION} header (${at}${issue.message})`
        : `${at}${issue.message}`,
    );
  }
  const tooLarge = oversized(parsed.data);
  if (tooLarge) return invalid(tooLarge, "import_value_too_large");
  return { ok: true, record: parsed.data };
}

/** One line as {@link forEachLine} hands it over: its text, or why it cannot be read. */
export type ArchiveLine =
  | { line: number; ok: true; text: string }
  | { line: number; ok: false; problem: LineProblem };

/**
 * Splits a stream of byte chunks into lines without holding the whole file, nor more than
 * `maxBytes` of one line: a longer line is counted to its end and handed over as
 * `import_line_too_long`, a line that is not UTF-8 as `import_text_invalid`. Blank lines
 * are skipped; an unterminated last line counts too. `onLine` answering false stops.
 */
export async function forEachLine(
  chunks: AsyncIterable<Uint8Array>,
  onLine: (line: ArchiveLine) => Promise<boolean | void>,
  maxBytes = ARCHIVE_LINE_LIMIT,
): Promise<void> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let pieces: Uint8Array[] = [];
  let size = 0;
  let line = 0;
  const emit = (): ArchiveLine | null => {
    line++;
    const bytes = size;
    const held = pieces;
    pieces = [];
    size = 0;
    if (bytes > maxBytes) {
      return {
        line,
        ok: false,
        problem: {
          code: "import_line_too_long",
          line,
          message:
            `the line is ${bytes} bytes; the most a line may hold is ${maxBytes}`,
        },
      };
    }
    let text: string;
    try {
      text = decoder.decode(held.length === 1 ? held[0] : joined(held, bytes));
    } catch {
      return {
        line,
        ok: false,
        problem: {
          code: "import_text_invalid",
          line,
          message: "not UTF-8 text",
        },
      };
    }
    return text.trim() === "" ? null : { line, ok: true, text };
  };
  for await (const chunk of chunks) {
    let start = 0;
    while (start < chunk.byteLength) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.byteLength : newline;
      // Past the limit the line is only counted: its bytes are let go as they arrive.
      if (size + (end - start) <= maxBytes) {
        pieces.push(chunk.slice(start, end));
      } else pieces = [];
      size += end - start;
      if (newline < 0) break;
      const next = emit();
      if (next && await onLine(next) === false) return;
      start = newline + 1;
    }
  }
  if (size > 0) {
    const last = emit();
    if (last) await onLine(last);
  }
}

function joined(pieces: Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.byteLength;
  }
  return out;
}
