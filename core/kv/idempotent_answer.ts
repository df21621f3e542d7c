// The stored form of an idempotent command's first answer: inline, or in parts when it outgrows one KV value.

/** The exact first answer, replayed on a retry (the route marks it `replayed: true`). */
export interface IdempotentAnswer {
  status: number;
  /** The subset of headers worth replaying, e.g. `content-type` and `location`. */
  headers: Record<string, string>;
  body: string;
}

/** Largest answer body stored, in UTF-8 bytes (twelve parts, inside one atomic write's 800 KiB). */
export const MAX_ANSWER_BODY_BYTES = 720_000;

/** An answer as kept in its claim record. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body, or `null` when it is kept in `parts` values under `answerPartKey(token, i)`. */
  body: string | null;
  parts: number;
  answeredAt: number;
}

/** A planned answer: the record's field and the body parts to write beside it. */
export interface PlannedAnswer {
  stored: StoredAnswer;
  parts: Uint8Array[];
}

const PART_PREFIX = "idem_body";
const INLINE_BYTES = 32_768;
// KV values hold at most 64 KiB.
const PART_BYTES = 60_000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The KV key of part `index` of the body answered under claim `token`. */
export function answerPartKey(token: string, index: number): Deno.KvKey {
  return [PART_PREFIX, token, index];
}

/** Plans how `answer` is stored: a body over 32 KiB goes in parts of 60 000 bytes. */
export function planAnswer(
  answer: IdempotentAnswer,
  answeredAt: number,
): PlannedAnswer {
  const bytes = encoder.encode(answer.body);
  if (bytes.length > MAX_ANSWER_BODY_BYTES) {
    throw new RangeError(
      `Cannot store an idempotent answer body of ${bytes.length} bytes: expected at most ${MAX_ANSWER_BODY_BYTES}`,
    );
  }
  const inline = bytes.length <= INLINE_BYTES;
  const parts: Uint8Array[] = [];
  for (let at = 0; !inline && at < bytes.length; at += PART_BYTES) {
    parts.push(bytes.slice(at, at + PART_BYTES));
  }
  const stored: StoredAnswer = {
    status: answer.status,
    headers: { ...answer.headers },
    body: inline ? answer.body : null,
    parts: parts.length,
    answeredAt,
  };
  return { stored, parts };
}

/** Reads back the answer stored under claim `token`. */
export async function readAnswer(
  kv: Deno.Kv,
  token: string,
  stored: StoredAnswer,
): Promise<IdempotentAnswer> {
  const { status, headers } = stored;
  if (stored.body !== null) return { status, headers, body: stored.body };
  const parts: Uint8Array[] = [];
  for await (
    const entry of kv.list<Uint8Array>({ prefix: [PART_PREFIX, token] })
  ) parts.push(entry.value);
  if (parts.length !== stored.parts) {
    throw new Error(
      `Cannot read an idempotent answer: found ${parts.length} of its ${stored.parts} body parts`,
    );
  }
  const bytes = new Uint8Array(
    parts.reduce((size, part) => size + part.length, 0),
  );
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return { status, headers, body: decoder.decode(bytes) };
}
