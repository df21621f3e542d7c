import { deepEqual, equal } from "node:assert/strict";
import { detectFile } from "./detect.ts";
import { MAX_IMAGE_PIXELS } from "./pixel_ceiling.ts";
import { encodePng, pngClaiming } from "./png.ts";

const enc = new TextEncoder();

Deno.test("detectFile() reads a PNG's kind, format and header dimensions from its bytes (MED-006, MED-007)", async () => {
  const png = await encodePng(3, 2, () => [10, 20, 30]);
  deepEqual(await detectFile(png), {
    ok: true,
    kind: "image",
    format: "png",
    mimeType: "image/png",
    width: 3,
    height: 2,
  });
});

Deno.test("detectFile() refuses programs and scripts as executable_file whatever their name (MED-006)", async () => {
  const elf = new Uint8Array(64);
  elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  const mz = new Uint8Array(256);
  mz.set([0x4d, 0x5a]);
  for (const bytes of [elf, mz, enc.encode("#!/bin/sh\nrm -rf /\n")]) {
    const found = await detectFile(bytes);
    equal(found.ok, false);
    equal(!found.ok && found.code, "executable_file");
  }
});

Deno.test("detectFile() refuses SVG, HTML and XML as unsupported_media_type (MED-006)", async () => {
  for (
    const text of [
      '<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script></svg>',
      "\uFEFF  <!doctype html><html><body>hi</body></html>",
      '<?xml version="1.0"?><svg></svg>',
    ]
  ) {
    const found = await detectFile(enc.encode(text));
    equal(!found.ok && found.code, "unsupported_media_type", text);
    equal(!found.ok && found.reason, "markup");
  }
});

Deno.test("detectFile() refuses an empty file and a truncated image", async () => {
  const empty = await detectFile(new Uint8Array());
  equal(!empty.ok && empty.reason, "empty");
  const png = await encodePng(8, 8, (x) => [x * 30, 0, 0]);
  const cut = await detectFile(png.subarray(0, png.length - 10));
  equal(!cut.ok && cut.code, "unsupported_media_type");
  equal(!cut.ok && cut.reason, "damaged");
});

Deno.test("detectFile() keeps PDFs as documents, text as txt and unknown bytes as file", async () => {
  const pdf = await detectFile(enc.encode("%PDF-1.4\n%\xe2\xe3\n1 0 obj\n"));
  equal(pdf.ok && pdf.kind, "document");
  equal(pdf.ok && pdf.format, "pdf");
  const txt = await detectFile(enc.encode("plain words\n"));
  equal(txt.ok && txt.format, "txt");
  const bin = await detectFile(new Uint8Array([1, 2, 3, 0, 250, 251]));
  equal(bin.ok && bin.kind, "file");
});

Deno.test("detectFile() refuses an image whose header claims more than MAX_IMAGE_PIXELS: exactly the ceiling is read, one pixel more is unsupported_media_type (too_many_pixels)", async () => {
  equal(MAX_IMAGE_PIXELS, 100_000_000);
  for (const [width, height] of [[MAX_IMAGE_PIXELS, 1], [10_000, 10_000]]) {
    const found = await detectFile(pngClaiming(width, height));
    equal(found.ok && found.width! * found.height!, MAX_IMAGE_PIXELS);
  }
  for (
    const [width, height] of [[MAX_IMAGE_PIXELS + 1, 1], [10_000, 10_001], [
      100_000,
      100_000,
    ]]
  ) {
    const bomb = pngClaiming(width, height);
    equal(bomb.length < 1024, true);
    const found = await detectFile(bomb);
    equal(!found.ok && found.code, "unsupported_media_type");
    equal(!found.ok && found.reason, "too_many_pixels");
  }
});
