// What an uploaded file is, read from its bytes only (never its name or declared type): kind, format, MIME, size.
import { fileTypeFromBuffer } from "file-type";
import { imageSize } from "image-size";
import type { MediaKind } from "../models/field_types.ts";
import { MAX_IMAGE_PIXELS } from "./pixel_ceiling.ts";

/** A file the library can keep, as its bytes say. */
export interface DetectedFile {
  ok: true;
  kind: MediaKind;
  /** Short format name (`png`, `jpg`, `pdf`, `mp4`, `txt`, `bin`, …); the settings allow formats by it. */
  format: string;
  mimeType: string;
  width: number | null;
  height: number | null;
}

/** Why bytes are refused. */
export interface DetectRefusal {
  ok: false;
  code: "executable_file" | "unsupported_media_type";
  /** `program`, `script`, `markup`, `empty` or `damaged`. */
  reason: string;
  detail: string;
}

/** Formats that are programs or installers: refused as `executable_file`. */
const PROGRAMS = new Set([
  "exe",
  "elf",
  "mach-o",
  "wasm",
  "class",
  "dex",
  "msi",
  "deb",
  "rpm",
  "apk",
  "swf",
  "lnk",
  "cab",
  "jar",
]);

/** Formats that are markup: refused as `unsupported_media_type` (SVG, HTML and XML can carry script). */
const MARKUP = new Set(["xml", "html", "svg", "xhtml"]);

/** Kinds of the formats file-type names whose MIME top level does not say it. */
const DOCUMENT_FORMATS = new Set([
  "pdf",
  "docx",
  "xlsx",
  "pptx",
  "odt",
  "ods",
  "odp",
  "epub",
  "rtf",
  "doc",
  "xls",
  "ppt",
]);

const IMAGE_FORMATS = new Set([
  "png",
  "jpg",
  "gif",
  "webp",
  "avif",
  "bmp",
  "tif",
  "ico",
  "heic",
  "jxl",
]);

/**
 * Bytes of a file's start its type and image header are read from: all of file-type's 4100 and
 * room for what JPEGs put before their size (EXIF, ICC profiles). A streamed upload holds this
 * much while it is checked; a larger file's type is what its first mebibyte says.
 */
export const HEAD_BYTES = 1024 * 1024;

/** Bytes of a file's end the completeness check needs (a JPEG's end marker may sit in padding). */
export const TAIL_BYTES = 1024;

/** Reads what `bytes` are; a program, script, markup, empty or damaged file is refused. */
export async function detectFile(
  bytes: Uint8Array,
): Promise<DetectedFile | DetectRefusal> {
  const found = await detectHead(bytes.subarray(0, HEAD_BYTES));
  if (!found.ok) return found;
  const tail = bytes.subarray(Math.max(0, bytes.length - TAIL_BYTES));
  return checkEnd(found, bytes.subarray(0, 16), tail, bytes.length) ?? found;
}

/**
 * What a file is from its first {@link HEAD_BYTES} (all of it when shorter): type, kind and an
 * image's header size, refusing programs, scripts, markup and bombs before the rest is read.
 * {@link checkEnd} finishes the check once the last byte is in.
 */
export async function detectHead(
  head: Uint8Array,
): Promise<DetectedFile | DetectRefusal> {
  if (head.length === 0) {
    return refuse("unsupported_media_type", "empty", "The file is empty");
  }
  const start = head.subarray(0, 4100);
  if (start[0] === 0x23 && start[1] === 0x21) {
    return refuse(
      "executable_file",
      "script",
      "The file is a script (it starts with #!)",
    );
  }
  if (looksLikeMarkup(start)) {
    return refuse(
      "unsupported_media_type",
      "markup",
      "Markup (SVG, HTML, XML) is not accepted: it can carry script",
    );
  }
  const found = await fileTypeFromBuffer(head);
  if (!found) {
    if (isText(start)) {
      return {
        ok: true,
        kind: "document",
        format: "txt",
        mimeType: "text/plain",
        width: null,
        height: null,
      };
    }
    return {
      ok: true,
      kind: "file",
      format: "bin",
      mimeType: "application/octet-stream",
      width: null,
      height: null,
    };
  }
  const format = found.ext as string;
  if (
    PROGRAMS.has(format) ||
    /x-(msdownload|executable|elf|mach)/.test(found.mime)
  ) {
    return refuse(
      "executable_file",
      "program",
      `The file is a program (${format})`,
    );
  }
  if (MARKUP.has(format) || /xml|html|svg/.test(found.mime)) {
    return refuse(
      "unsupported_media_type",
      "markup",
      "Markup (SVG, HTML, XML) is not accepted: it can carry script",
    );
  }
  const kind: MediaKind = IMAGE_FORMATS.has(format)
    ? "image"
    : found.mime.startsWith("audio/")
    ? "audio"
    : found.mime.startsWith("video/")
    ? "video"
    : DOCUMENT_FORMATS.has(format)
    ? "document"
    : "file";
  let width: number | null = null;
  let height: number | null = null;
  if (kind === "image") {
    try {
      const size = imageSize(head);
      width = size.width ?? null;
      height = size.height ?? null;
    } catch {
      return refuse(
        "unsupported_media_type",
        "damaged",
        `The ${format} image has no readable header`,
      );
    }
    if (
      width !== null && height !== null && width * height > MAX_IMAGE_PIXELS
    ) {
      return refuse(
        "unsupported_media_type",
        "too_many_pixels",
        `The image is ${width} × ${height} pixels; the most an image may have is ${MAX_IMAGE_PIXELS} pixels`,
      );
    }
  }
  return { ok: true, kind, format, mimeType: found.mime, width, height };
}

/**
 * The rest of the check once the whole file has passed: an image must end where its format
 * says it ends (a truncated upload is refused, not kept). `start` is at least the first 16
 * bytes, `tail` the last {@link TAIL_BYTES}, `length` the file's size.
 */
export function checkEnd(
  detected: DetectedFile,
  start: Uint8Array,
  tail: Uint8Array,
  length: number,
): DetectRefusal | null {
  if (detected.kind !== "image") return null;
  if (imageComplete(detected.format, start, tail, length)) return null;
  return refuse(
    "unsupported_media_type",
    "damaged",
    `The ${detected.format} image is damaged or cut short`,
  );
}

function refuse(
  code: DetectRefusal["code"],
  reason: string,
  detail: string,
): DetectRefusal {
  return { ok: false, code, reason, detail };
}

/** True when the first non-space character opens a tag: SVG, HTML, XML in any spelling. */
function looksLikeMarkup(head: Uint8Array): boolean {
  let text = new TextDecoder("utf-8", { fatal: false }).decode(
    head.subarray(0, 1024),
  );
  text = text.replace(/^\uFEFF/, "").trimStart();
  return text.startsWith("<");
}

/** Valid UTF-8 without NUL bytes in the first 4 KiB. */
function isText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  try {
    // A multi-byte character cut at the window's end is not a reason to call it binary.
    new TextDecoder("utf-8", { fatal: true }).decode(
      head.length === 4100 ? head.subarray(0, 4090) : head,
    );
    return true;
  } catch {
    return false;
  }
}

/** The image ends where its format says it ends. */
function imageComplete(
  format: string,
  start: Uint8Array,
  tail: Uint8Array,
  length: number,
): boolean {
  const n = tail.length;
  switch (format) {
    case "png": {
      // The last chunk is IEND: length 0, "IEND", CRC.
      const end = new TextDecoder().decode(tail.subarray(n - 8, n - 4));
      return length >= 20 && end === "IEND";
    }
    case "jpg": {
      // Some encoders pad after the end marker, so look for it near the end.
      for (let i = n - 2; i >= Math.max(0, n - 1024); i--) {
        if (tail[i] === 0xff && tail[i + 1] === 0xd9) {
          return length - n + i >= 2;
        }
      }
      return false;
    }
    case "gif":
      return tail[n - 1] === 0x3b;
    case "webp": {
      if (start.length < 8) return false;
      const declared = new DataView(start.buffer, start.byteOffset).getUint32(
        4,
        true,
      );
      return length >= 12 && declared + 8 <= length;
    }
    default:
      return true;
  }
}
