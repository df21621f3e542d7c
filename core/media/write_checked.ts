// Writes a file to storage while it arrives: type from its head, then counted, hashed and kept to its tail.
import { createHash } from "node:crypto";
import {
  checkEnd,
  type DetectedFile,
  detectHead,
  HEAD_BYTES,
  TAIL_BYTES,
} from "./detect.ts";
import { storageKeyOf } from "./items.ts";
import type { MediaStorage } from "./storage.ts";

/** A refusal of a media command. */
export interface MediaRefusal {
  ok: false;
  code: string;
  [detail: string]: unknown;
}

/** A file in storage whose type and completeness were checked, under a key no row names yet. */
export interface WrittenFile {
  detected: DetectedFile;
  /** SHA-256 of the bytes (hex), for duplicates and idempotency fingerprints. */
  digest: string;
  objectId: string;
  key: string;
  byteLength: number;
}

/** What {@link writeChecked} did: the written file, or a refusal (with the digest when every byte was read). */
export type WriteResult =
  | { ok: true; written: WrittenFile }
  | { ok: false; refusal: MediaRefusal; digest: string | null };

/** Options of {@link writeChecked}. */
export interface WriteCheckedOptions {
  /** Largest file accepted: the first byte over it stops the write. */
  limit: number;
  /** The caller's checks of the detected type (site settings, kind of a replaced item…). */
  check(detected: DetectedFile): Promise<MediaRefusal | null>;
  /**
   * Read a refused file to its end without storing it: a file refused by its head is hashed, so
   * the refusal carries its digest (the Management API needs it for the idempotency
   * fingerprint), and one over the limit is counted, so the refusal says its `byte_length` (as
   * the API's contract does). The reading is bounded by the caller's body limit. Otherwise the
   * rest of a refused body is never read.
   */
  readToEnd?: boolean;
}

/** The refusal of a file over `limit` bytes. */
export function tooLarge(limit: number, byteLength?: number): MediaRefusal {
  return {
    ok: false,
    code: "media_too_large",
    limit_bytes: limit,
    ...(byteLength === undefined ? {} : { byte_length: byteLength }),
  };
}

function concat(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const joined = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.length;
  }
  return joined;
}

class TooLarge extends Error {
  override name = "TooLarge";
}

/**
 * Checks a file from its first {@link HEAD_BYTES} (type, image header and pixel ceiling, then
 * `check`) before anything is stored, then writes it under a new key while it arrives, counting,
 * hashing and keeping its last bytes chunk by chunk: memory holds one head and one chunk
 * whatever the file's size. At the first byte over the limit the write stops and the partial
 * object is removed; a file cut short (damaged) is removed after its last byte.
 */
export async function writeChecked(
  ctx: { storage: MediaStorage; siteId: string },
  stream: ReadableStream<Uint8Array>,
  options: WriteCheckedOptions,
): Promise<WriteResult> {
  const { limit } = options;
  const reader = stream.getReader();
  const refuse = async (
    refusal: MediaRefusal,
    digest: string | null = null,
  ) => {
    await reader.cancel().catch(() => {});
    return { ok: false as const, refusal, digest };
  };
  /** The refusal of a file over the limit, with its length when it is read to its end. */
  const over = async (counted: number) => {
    if (!options.readToEnd) return await refuse(tooLarge(limit));
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      counted += value.length;
    }
    return await refuse(tooLarge(limit, counted));
  };
  const headChunks: Uint8Array[] = [];
  let headLength = 0;
  let ended = false;
  while (headLength < HEAD_BYTES && headLength <= limit && !ended) {
    const { done, value } = await reader.read();
    if (done) ended = true;
    else {
      headChunks.push(value);
      headLength += value.length;
    }
  }
  if (headLength > limit) return await over(headLength);
  const head = concat(headChunks, headLength);
  headChunks.length = 0;

  const hash = createHash("sha256");
  let length = 0;
  let tail = new Uint8Array(0);
  const take = (chunk: Uint8Array): boolean => {
    length += chunk.length;
    if (length > limit) return false;
    hash.update(chunk);
    const kept = new Uint8Array(
      Math.min(TAIL_BYTES, tail.length + chunk.length),
    );
    const fromChunk = Math.min(chunk.length, kept.length);
    kept.set(tail.subarray(tail.length - (kept.length - fromChunk)), 0);
    kept.set(chunk.subarray(chunk.length - fromChunk), kept.length - fromChunk);
    tail = kept;
    return true;
  };

  const detected = await detectHead(head.subarray(0, HEAD_BYTES));
  const refused: MediaRefusal | null = !detected.ok
    ? {
      ok: false,
      code: detected.code,
      reason: detected.reason,
      detail: detected.detail,
    }
    : await options.check(detected);
  if (refused) {
    if (!options.readToEnd) return await refuse(refused);
    // Read to the end without storing, so a retry of the same refused request fingerprints alike.
    take(head);
    while (!ended) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!take(value)) return await over(length);
    }
    return { ok: false, refusal: refused, digest: hash.digest("hex") };
  }
  const found = detected as DetectedFile;

  let overLimit = false;
  const counted = new ReadableStream<Uint8Array>({
    start(controller) {
      if (take(head)) controller.enqueue(head);
      if (ended) controller.close();
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      if (take(value)) controller.enqueue(value);
      else {
        overLimit = true;
        const error = new TooLarge(`More than ${limit} bytes`);
        controller.error(error);
        // The rest is counted below when the caller wants the length; else it is never read.
        if (!options.readToEnd) await reader.cancel(error).catch(() => {});
      }
    },
    cancel(reason) {
      if (!overLimit) return reader.cancel(reason);
    },
  });
  const objectId = crypto.randomUUID();
  const key = storageKeyOf(ctx.siteId, objectId, found.format);
  try {
    await ctx.storage.putStream(key, counted, found.mimeType);
  } catch (error) {
    if (overLimit) {
      const refused = await over(length);
      return { ...refused, digest: null };
    }
    await reader.cancel(error).catch(() => {});
    throw error;
  }
  const digest = hash.digest("hex");
  const damaged = checkEnd(found, head.subarray(0, 16), tail, length);
  if (damaged) {
    await ctx.storage.delete(key);
    return {
      ok: false,
      refusal: {
        ok: false,
        code: damaged.code,
        reason: damaged.reason,
        detail: damaged.detail,
      },
      digest,
    };
  }
  return {
    ok: true,
    written: { detected: found, digest, objectId, key, byteLength: length },
  };
}
