// What an uploaded file is, read from its bytes only (never its name or declared type): kind, format, MIME, size.
import { fileTypeFromBuffer } from "file-type";
import { imageSize } from "image-size";
import type { MediaKind } from "../models/field_types.ts";

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

/**
 * Most pixels (width × height) an image may have: 100 megapixels, the ceiling image services
 * such as Cloudflare Images put on their input. Decoding one takes about 400 MB (4 bytes a
 * pixel), so a larger header is either a lie (a 1 KB file claiming 100,000 × 100,000) or a
 * decompression bomb; neither is stored, nor its claimed size published.
 */
export const MAX_IMAGE_PIXELS = 100_000_000;

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

/** Reads what `bytes` are; a program, script, markup, empty or damaged file is refused. */
export async function detectFile(
  bytes: Uint8Array,
): Promise<DetectedFile | DetectRefusal> {
  if (bytes.length === 0) {
    return refuse("unsupported_media_type", "empty", "The file is empty");
  }
  const head = bytes.subarray(0, 4100);
  if (head[0] === 0x23 && head[1] === 0x21) {
    return refuse(
      "executable_file",
      "script",
      "The file is a script (it starts with #!)",
    );
  }
  if (looksLikeMarkup(head)) {
    return refuse(
      "unsupported_media_type",
      "markup",
      "Markup (SVG, HTML, XML) is not accepted: it can carry script",
    );
  }
  const found = await fileTypeFromBuffer(bytes);
  if (!found) {
    if (isText(head)) {
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
    if (!imageComplete(format, bytes)) {
      return refuse(
        "unsupported_media_type",
        "damaged",
        `The ${format} image is damaged or cut short`,
      );
    }
    try {
      const size = imageSize(bytes);
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

/** The image ends where its format says it ends: a truncated upload is refused, not kept. */
function imageComplete(format: string, bytes: Uint8Array): boolean {
  const n = bytes.length;
  switch (format) {
    case "png": {
      // The last chunk is IEND: length 0, "IEND", CRC.
      const tail = new TextDecoder().decode(bytes.subarray(n - 8, n - 4));
      return n >= 20 && tail === "IEND";
    }
    case "jpg": {
      // Some encoders pad after the end marker, so look for it near the end.
      for (let i = n - 2; i >= Math.max(2, n - 1024); i--) {
        if (bytes[i] === 0xff && bytes[i + 1] === 0xd9) return true;
      }
      return false;
    }
    case "gif":
      return bytes[n - 1] === 0x3b;
    case "webp": {
      const declared = new DataView(bytes.buffer, bytes.byteOffset).getUint32(
        4,
        true,
      );
      return n >= 12 && declared + 8 <= n;
    }
    default:
      return true;
  }
}
