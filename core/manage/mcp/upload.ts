// The remote upload tool's file: `content_base64` decoded and measured before anything is sent (spec 2 parts 4.5, 8).
// This module is browser compatible.

/** Largest file the remote upload tool takes, decoded (spec 2 part 8). */
export const REMOTE_UPLOAD_MAX_BYTES = 8 * 1024 * 1024;

/** Arguments that carry a file through a tool. */
export const CONTENT_ARGUMENT = "content_base64";
export const FILE_NAME_ARGUMENT = "file_name";

/** A decoded file, or why it is refused. */
export type DecodedUpload =
  | { ok: true; bytes: Uint8Array }
  | { ok: false; code: "media_too_large"; message: string; max_bytes: number }
  | { ok: false; code: "input_invalid"; message: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes standard base64 (padding optional, no whitespace). The decoded size is computed
 * from the text's length first, so an oversized file is refused without decoding it.
 */
export function decodeUpload(
  text: string,
  maxBytes: number = REMOTE_UPLOAD_MAX_BYTES,
): DecodedUpload {
  if (!BASE64.test(text) || text.replace(/=+$/, "").length % 4 === 1) {
    return {
      ok: false,
      code: "input_invalid",
      message: `${CONTENT_ARGUMENT} must be standard base64`,
    };
  }
  const unpadded = text.replace(/=+$/, "").length;
  const size = Math.floor(unpadded * 3 / 4);
  if (size > maxBytes) {
    return {
      ok: false,
      code: "media_too_large",
      message:
        `The file is ${size} bytes; the remote upload takes at most ${maxBytes}`,
      max_bytes: maxBytes,
    };
  }
  const binary = atob(text.padEnd(Math.ceil(unpadded / 4) * 4, "="));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return { ok: true, bytes };
}
