// A job's files kept in the database in numbered parts: archive uploads, built exports,
// receipts and problem files. Parts keep every read and write bounded, on PostgreSQL and PGlite.
import { createHash } from "node:crypto";
import type { Db } from "../db/database.ts";
import type { DataJobPartsTable } from "../db/schema.ts";
import { sha256Hex } from "../kv/digest.ts";

/** Which file of a job. */
export type JobFile = DataJobPartsTable["file"];

/** Size of an uploaded archive part: every part but the last is exactly this (spec 2, 4.4). */
export const ARCHIVE_PART_BYTES = 5 * 1024 * 1024;
/** Most parts an archive may have (5 GiB would be 1024; a single site's archive stays far below). */
export const ARCHIVE_MAX_PARTS = 200;
/** Size of one stored part of a file the service writes, and of one byte-range page read. */
export const PAGE_BYTES = 1024 * 1024;

function bytesOf(value: Uint8Array): Uint8Array {
  // node-postgres answers a Buffer; callers get a plain view either way.
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

/** Stores one part, replacing a part of the same number. */
export async function putPart(
  db: Db,
  jobId: string,
  file: JobFile,
  part: number,
  bytes: Uint8Array,
): Promise<string> {
  const sha256 = await sha256Hex(bytes);
  await db.insertInto("data_job_parts").values({
    job_id: jobId,
    file,
    part,
    bytes,
    sha256,
  }).onConflict((oc) =>
    oc.columns(["job_id", "file", "part"]).doUpdateSet({ bytes, sha256 })
  ).execute();
  return sha256;
}

/** The number, size and digest of each stored part, in order. */
export async function listParts(
  db: Db,
  jobId: string,
  file: JobFile,
): Promise<{ part: number; bytes: number; sha256: string }[]> {
  const rows = await db.selectFrom("data_job_parts")
    .select(["part", "sha256"])
    .select((eb) => eb.fn<number>("octet_length", ["bytes"]).as("size"))
    .where("job_id", "=", jobId).where("file", "=", file)
    .orderBy("part").execute();
  return rows.map((r) => ({
    part: r.part,
    bytes: Number(r.size),
    sha256: r.sha256,
  }));
}

/** One part's bytes, or null. */
export async function readPart(
  db: Db,
  jobId: string,
  file: JobFile,
  part: number,
): Promise<Uint8Array | null> {
  const row = await db.selectFrom("data_job_parts").select("bytes")
    .where("job_id", "=", jobId).where("file", "=", file)
    .where("part", "=", part).executeTakeFirst();
  return row ? bytesOf(row.bytes) : null;
}

/** Every part's bytes in order, one part in memory at a time. */
export async function* readParts(
  db: Db,
  jobId: string,
  file: JobFile,
): AsyncIterable<Uint8Array> {
  for (const { part } of await listParts(db, jobId, file)) {
    const bytes = await readPart(db, jobId, file, part);
    if (bytes) yield bytes;
  }
}

/** The SHA-256 (hex) and size of a whole file, read part by part. */
export async function digestFile(
  db: Db,
  jobId: string,
  file: JobFile,
): Promise<{ sha256: string; bytes: number; parts: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  let parts = 0;
  for await (const chunk of readParts(db, jobId, file)) {
    hash.update(chunk);
    bytes += chunk.byteLength;
    parts++;
  }
  return { sha256: hash.digest("hex"), bytes, parts };
}

/**
 * Appends bytes to a file the service writes, in parts of {@link PAGE_BYTES}: the last part is
 * filled up first, so a page read later is one part. Runs inside the caller's transaction.
 */
export async function appendToFile(
  db: Db,
  jobId: string,
  file: JobFile,
  bytes: Uint8Array,
): Promise<void> {
  if (bytes.byteLength === 0) return;
  const last = await db.selectFrom("data_job_parts").select(["part", "bytes"])
    .where("job_id", "=", jobId).where("file", "=", file)
    .orderBy("part", "desc").limit(1).executeTakeFirst();
  let part = last?.part ?? 0;
  let rest = bytes;
  if (last && last.bytes.byteLength < PAGE_BYTES) {
    const head = bytesOf(last.bytes);
    const room = PAGE_BYTES - head.byteLength;
    const joined = new Uint8Array(
      head.byteLength + Math.min(room, rest.length),
    );
    joined.set(head);
    joined.set(rest.subarray(0, room), head.byteLength);
    await putPart(db, jobId, file, part, joined);
    rest = rest.subarray(room);
  }
  while (rest.byteLength > 0) {
    part++;
    await putPart(db, jobId, file, part, rest.slice(0, PAGE_BYTES));
    rest = rest.subarray(PAGE_BYTES);
  }
}

/** The parts one after another as one byte array. */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** Removes a file's parts (a rebuilt receipt, a restarted upload). */
export async function dropFile(
  db: Db,
  jobId: string,
  file: JobFile,
): Promise<void> {
  await db.deleteFrom("data_job_parts").where("job_id", "=", jobId)
    .where("file", "=", file).execute();
}

/** One page of a file as the byte-range reads answer it (spec 2 part 4.5). */
export interface FilePage {
  content_base64: string;
  content_type: string;
  offset: number;
  length: number;
  total: number;
  next_offset: number | null;
  sha256: string;
  page: number;
  next_page: number | null;
}

/** Page `page` (1-based) of a stored file of `total` bytes whose whole SHA-256 is `sha256`; null past the end. */
export async function readPage(
  db: Db,
  jobId: string,
  file: JobFile,
  page: number,
  whole: { total: number; sha256: string; contentType: string },
): Promise<FilePage | null> {
  if (page > pagesOf(whole.total)) return null;
  const bytes = whole.total === 0
    ? new Uint8Array()
    : await readPart(db, jobId, file, page);
  return bytes ? pageShape(bytes, page, whole) : null;
}

/** Page `page` (1-based) of a file made on request (a problem file); null past the end. */
export async function pageOfBytes(
  bytes: Uint8Array,
  page: number,
  contentType: string,
): Promise<FilePage | null> {
  if (page > pagesOf(bytes.byteLength)) return null;
  const offset = (page - 1) * PAGE_BYTES;
  return pageShape(bytes.subarray(offset, offset + PAGE_BYTES), page, {
    total: bytes.byteLength,
    sha256: await sha256Hex(bytes),
    contentType,
  });
}

/** Pages of {@link PAGE_BYTES} a file of `total` bytes reads as (an empty file is one empty page). */
export function pagesOf(total: number): number {
  return Math.max(1, Math.ceil(total / PAGE_BYTES));
}

function pageShape(
  bytes: Uint8Array,
  page: number,
  whole: { total: number; sha256: string; contentType: string },
): FilePage {
  const offset = (page - 1) * PAGE_BYTES;
  const end = offset + bytes.byteLength;
  return {
    content_base64: toBase64(bytes),
    content_type: whole.contentType,
    offset,
    length: bytes.byteLength,
    total: whole.total,
    next_offset: end < whole.total ? end : null,
    sha256: whole.sha256,
    page,
    next_page: page < pagesOf(whole.total) ? page + 1 : null,
  };
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Standard base64 to bytes; null when the text is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

export { toBase64 };
