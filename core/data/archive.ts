// The Stave archive (docs/imports-exports.md): JSON Lines, one closed record per line, a header
// first and an `end` record last, so an importer can check every line and notice a cut file.
import { z } from "zod";

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
  default_language: z.string().min(1),
});

export const languageRecord = z.strictObject({
  type: z.literal("language"),
  code: z.string().min(1).max(35),
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
  alt_texts: z.record(z.string(), z.string()),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  content_base64: z.string(),
});

/** One language of an entry: what readers get (`published`) and the newer draft, if any (`current`). */
export const entryLanguage = z.strictObject({
  locale: z.string().min(1),
  id: uuid,
  slug: z.string().min(1),
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

/** A problem with one archive line. */
export interface LineProblem {
  line: number;
  message: string;
}

/** Reads one line: the header on line 1, a body record after it. */
export function decodeLine(
  text: string,
  line: number,
): { ok: true; record: HeaderRecord | BodyRecord } | {
  ok: false;
  problem: LineProblem;
} {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: { line, message: "not valid JSON" } };
  }
  const parsed = (line === 1 ? headerRecord : bodyRecord).safeParse(value);
  if (parsed.success) return { ok: true, record: parsed.data };
  const issue = parsed.error.issues[0];
  const at = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return {
    ok: false,
    problem: {
      line,
      message: line === 1
        ? `not a ${ARCHIVE_FORMAT} version ${ARCHIVE_VERSION} header (${at}${issue.message})`
        : `${at}${issue.message}`,
    },
  };
}

/**
 * Splits a stream of byte chunks into lines without holding the whole file: each complete
 * line is handed to `onLine` with its 1-based number; an unterminated last line counts too.
 */
export async function forEachLine(
  chunks: AsyncIterable<Uint8Array>,
  onLine: (text: string, line: number) => Promise<boolean | void>,
): Promise<void> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let carry = "";
  let line = 0;
  for await (const chunk of chunks) {
    carry += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = carry.indexOf("\n")) >= 0) {
      const text = carry.slice(0, at);
      carry = carry.slice(at + 1);
      line++;
      if (text.trim() === "") continue;
      if (await onLine(text, line) === false) return;
    }
  }
  carry += decoder.decode();
  if (carry.trim() !== "") await onLine(carry, line + 1);
}
