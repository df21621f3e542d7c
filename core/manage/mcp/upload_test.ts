// The remote upload tool's decoding step at its 8 MiB edge (MCP-012).
import assert from "node:assert/strict";
import { decodeUpload, REMOTE_UPLOAD_MAX_BYTES } from "./upload.ts";

function base64Of(size: number): string {
  // 3 bytes of zeros are "AAAA"; the tail pads.
  const whole = "AAAA".repeat(Math.floor(size / 3));
  const rest = size % 3;
  return whole + (rest === 0 ? "" : rest === 1 ? "AA==" : "AAA=");
}

Deno.test("decodeUpload() takes exactly 8 MiB decoded and refuses one byte more with media_too_large (MCP-012)", () => {
  const last = decodeUpload(base64Of(REMOTE_UPLOAD_MAX_BYTES));
  assert.equal(last.ok, true);
  if (last.ok) assert.equal(last.bytes.length, REMOTE_UPLOAD_MAX_BYTES);
  const first = decodeUpload(base64Of(REMOTE_UPLOAD_MAX_BYTES + 1));
  assert.equal(first.ok, false);
  if (!first.ok) assert.equal(first.code, "media_too_large");
});

Deno.test("decodeUpload() decodes with or without padding and refuses what is not base64 with input_invalid", () => {
  const padded = decodeUpload(btoa("hello"));
  assert.ok(padded.ok && new TextDecoder().decode(padded.bytes) === "hello");
  const bare = decodeUpload(btoa("hello").replace(/=+$/, ""));
  assert.ok(bare.ok && new TextDecoder().decode(bare.bytes) === "hello");
  for (const bad of ["a b", "@@@@", "A", "AAAA=A"]) {
    const refused = decodeUpload(bad);
    assert.equal(refused.ok, false, bad);
    if (!refused.ok) assert.equal(refused.code, "input_invalid", bad);
  }
  const empty = decodeUpload("");
  assert.ok(empty.ok && empty.bytes.length === 0);
});
