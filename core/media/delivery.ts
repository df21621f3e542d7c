// Public delivery of stored media objects: immutable caching, ETag, single byte ranges, the type read at upload.
import type { Db } from "../db/database.ts";
import { noneMatchHits } from "../web/etag.ts";
import type { MediaStorage } from "./storage.ts";

const OBJECT_FILE = /^([0-9a-f-]{36})\.([a-z0-9-]{1,16})$/;

/** A stored object the public may fetch. */
export interface DeliverableObject {
  storageKey: string;
  mimeType: string;
  byteLength: number;
  kind: string;
  fileName: string;
}

/**
 * MIME types of the formats shown inline, exactly as the detector (`file-type`) names them at
 * upload. For these the URL alone says everything the answer needs, so delivery reads storage
 * without a database round trip (the key is the URL's path); other formats download under
 * their upload name, which only the row knows.
 */
export const INLINE_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  pdf: "application/pdf",
  txt: "text/plain",
};

/**
 * The object named by a delivery URL straight from storage, for {@link INLINE_TYPES}; null when
 * storage has no such object (removed, never uploaded, another site's id), undefined when the
 * format needs the row ({@link findDeliverable}).
 */
export async function findStoredObject(
  storage: MediaStorage,
  siteId: string,
  file: string,
): Promise<DeliverableObject | null | undefined> {
  const match = OBJECT_FILE.exec(file);
  if (!match || !/^[0-9a-f-]{36}$/.test(siteId)) return null;
  const mimeType = INLINE_TYPES[match[2]];
  if (!mimeType) return undefined;
  const key = `sites/${siteId}/${file}`;
  const found = await storage.stat(key);
  if (!found) return null;
  return {
    storageKey: key,
    mimeType,
    byteLength: found.size,
    kind: mimeType.startsWith("image/") ? "image" : "document",
    fileName: file,
  };
}

/** The object named `<object id>.<format>` on the site, default original or a language's, or null. */
export async function findDeliverable(
  db: Db,
  siteId: string,
  file: string,
): Promise<DeliverableObject | null> {
  const match = OBJECT_FILE.exec(file);
  if (!match || !/^[0-9a-f-]{36}$/.test(siteId)) return null;
  const [, objectId, format] = match;
  const main = await db.selectFrom("media_files")
    .select(["storage_key", "mime_type", "byte_length", "kind", "file_name"])
    .where("site_id", "=", siteId).where("object_id", "=", objectId)
    .where("format", "=", format).where("external", "=", false)
    .executeTakeFirst();
  if (main) {
    return {
      storageKey: main.storage_key,
      mimeType: main.mime_type,
      byteLength: Number(main.byte_length),
      kind: main.kind,
      fileName: main.file_name,
    };
  }
  const original = await db.selectFrom("media_originals as o")
    .innerJoin("media_files as f", "f.id", "o.media_id")
    .select([
      "o.storage_key",
      "o.mime_type",
      "o.byte_length",
      "f.kind",
      "f.file_name",
    ])
    .where("o.site_id", "=", siteId).where("o.object_id", "=", objectId)
    .where("o.format", "=", format).executeTakeFirst();
  if (!original) return null;
  return {
    storageKey: original.storage_key,
    mimeType: original.mime_type,
    byteLength: Number(original.byte_length),
    kind: original.kind,
    fileName: original.file_name,
  };
}

/** A parsed `Range` header: one satisfiable range, `unsatisfiable`, or null for the whole object. */
export function parseRange(
  header: string | null,
  size: number,
): { start: number; end: number } | "unsatisfiable" | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges or another unit: answer the whole object, as RFC 9110 allows.
  if (!match) return null;
  const [, a, b] = match;
  if (a === "" && b === "") return "unsatisfiable";
  let start: number;
  let end: number;
  if (a === "") {
    const suffix = Number(b);
    if (suffix === 0) return "unsatisfiable";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === "" ? size - 1 : Math.min(Number(b), size - 1);
  }
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}

/** Types shown in the browser; everything else downloads. */
const INLINE =
  /^(image\/(png|jpeg|gif|webp|avif)|application\/pdf|audio\/|video\/|text\/plain)/;

/**
 * The answer for one object. Object ids are never reused (a replace writes a new object), so
 * the bytes behind a URL never change: `immutable` caching and the object id as a strong ETag.
 */
export async function deliver(
  storage: MediaStorage,
  object: DeliverableObject,
  request: { method: string; headers: Headers; etag: string },
): Promise<Response> {
  const headers = new Headers({
    "content-type": object.mimeType === "text/plain"
      ? "text/plain; charset=utf-8"
      : object.mimeType,
    "cache-control": "public, max-age=31536000, immutable",
    etag: request.etag,
    "accept-ranges": "bytes",
    "x-content-type-options": "nosniff",
    "content-disposition": `${
      INLINE.test(object.mimeType) ? "inline" : "attachment"
    }; filename*=UTF-8''${encodeURIComponent(object.fileName)}`,
    // A media file is never a document that runs script, whatever a browser thinks of it.
    "content-security-policy": "default-src 'none'; sandbox",
    "cross-origin-resource-policy": "cross-origin",
  });
  if (noneMatchHits(request.headers.get("if-none-match"), request.etag)) {
    return new Response(null, { status: 304, headers });
  }
  const ifRange = request.headers.get("if-range");
  const range = ifRange && ifRange !== request.etag
    ? null
    : parseRange(request.headers.get("range"), object.byteLength);
  if (range === "unsatisfiable") {
    headers.set("content-range", `bytes */${object.byteLength}`);
    return new Response(null, { status: 416, headers });
  }
  const length = range ? range.end - range.start + 1 : object.byteLength;
  headers.set("content-length", String(length));
  if (range) {
    headers.set(
      "content-range",
      `bytes ${range.start}-${range.end}/${object.byteLength}`,
    );
  }
  const status = range ? 206 : 200;
  if (request.method === "HEAD") return new Response(null, { status, headers });
  const body = await storage.read(object.storageKey, range ?? undefined);
  if (!body) return new Response("Not found", { status: 404 });
  return new Response(body, { status, headers });
}
