// Image variants and placeholders made by the WebAssembly fallback (the @jsquash codecs, MEDIA_IMAGE_LIBRARY=wasm),
// as on a host where sharp's native add-on cannot load: requested over HTTP and decoded back (format, size,
// pixels). The same bounds as sharp's (pixel ceiling from the header); GIF and TIFF keep the 307 to the original.
import { deepEqual, equal, ok } from "node:assert/strict";
import sharp from "sharp";
import { loadImageLibrary } from "../../core/media/image_library.ts";
import { pngClaiming } from "../../core/media/png.ts";
import type { MediaStorage } from "../../core/media/storage.ts";
import { refusal } from "../manage/helpers.ts";
import { startTestS3 } from "../support/s3.ts";
import { type MediaFixture, withMediaApp } from "./support.ts";

/** Runs `fn` on a media app whose image library is forced to `library`. */
function withLibrary(
  library: "wasm" | "none",
  fn: (t: MediaFixture) => Promise<void>,
  storage?: MediaStorage,
): Promise<void> {
  return withMediaApp(async (t) => {
    t.services.config.mediaImageLibrary = library;
    await fn(t);
  }, storage);
}

function solid(width: number, height: number) {
  return sharp({
    create: {
      width,
      height,
      channels: 3,
      background: { r: 20, g: 120, b: 200 },
    },
  });
}

async function jpeg(width: number, height: number): Promise<Uint8Array> {
  return new Uint8Array(await solid(width, height).jpeg().toBuffer());
}

/** Left half red, right half blue: shows which side a crop kept. */
async function halves(width: number, height: number): Promise<Uint8Array> {
  const red = await sharp({
    create: {
      width: width / 2,
      height,
      channels: 3,
      background: "#ff0000",
    },
  }).png().toBuffer();
  return new Uint8Array(
    await sharp({
      create: { width, height, channels: 3, background: "#0000ff" },
    }).composite([{ input: red, left: 0, top: 0 }]).png().toBuffer(),
  );
}

async function upload(t: MediaFixture, bytes: Uint8Array, name: string) {
  const res = await t.send("POST", "/media", { file: { bytes, name } });
  equal(res.status, 201, await res.clone().text());
  return await res.json();
}

function get(
  t: MediaFixture,
  url: string,
  headers: Record<string, string> = {},
) {
  return t.app.request(url, { headers });
}

async function decoded(res: Response) {
  equal(res.status, 200, res.status === 200 ? "" : await res.clone().text());
  const bytes = new Uint8Array(await res.arrayBuffer());
  const { data, info } = await sharp(bytes).raw().toBuffer({
    resolveWithObject: true,
  });
  const meta = await sharp(bytes).metadata();
  return {
    format: meta.format,
    width: info.width,
    height: info.height,
    channels: info.channels,
    /** The RGB of one pixel. */
    at(x: number, y: number) {
      const i = (y * info.width + x) * info.channels;
      return Array.from(data.subarray(i, i + 3));
    },
  };
}

/** Colours equal up to resampling noise (the resizer works in linear light). */
function near(actual: number[], expected: number[]) {
  ok(
    actual.every((v, i) => Math.abs(v - expected[i]) <= 3),
    `${actual} is not ${expected}`,
  );
}

Deno.test("loadImageLibrary(): wasm is the WebAssembly codecs, auto is sharp where it loads, none makes no images", async () => {
  equal((await loadImageLibrary("wasm"))?.name, "wasm");
  equal((await loadImageLibrary("auto"))?.name, "sharp");
  equal(await loadImageLibrary("none"), null);
});

Deno.test("media variants on WebAssembly: width, height, fit, formats (WebP, AVIF, PNG, JPEG) and presets, decoded back (MED-001)", () =>
  withLibrary("wasm", async (t) => {
    const item = await upload(t, await jpeg(1600, 1200), "field.jpg");
    const webp = await decoded(
      await get(t, `${item.url}?width=400&format=webp`),
    );
    deepEqual([webp.format, webp.width, webp.height], ["webp", 400, 300]);
    const avif = await decoded(
      await get(t, `${item.url}?width=320&format=avif`),
    );
    deepEqual([avif.format, avif.width, avif.height], ["heif", 320, 240]);
    const thumb = await decoded(
      await get(t, `${item.url}?preset=thumb&format=jpeg`),
    );
    deepEqual([thumb.format, thumb.width, thumb.height], ["jpeg", 200, 200]);
    // Accept negotiation picks WebP, as with sharp.
    const negotiated = await get(t, `${item.url}?height=300`, {
      accept: "image/avif,image/webp,*/*",
    });
    equal(negotiated.headers.get("vary"), "Accept");
    const auto = await decoded(negotiated);
    deepEqual([auto.format, auto.width, auto.height], ["webp", 400, 300]);
    // Never larger than the original.
    const capped = await decoded(
      await get(t, `${item.url}?width=3840&format=png`),
    );
    deepEqual([capped.width, capped.height], [1600, 1200]);

    const wide = await upload(t, await halves(1000, 500), "wide.png");
    const contain = await decoded(
      await get(t, `${wide.url}?width=200&height=200&fit=contain&format=png`),
    );
    // The whole picture inside the frame, padded with transparency.
    deepEqual([contain.width, contain.height, contain.channels], [200, 200, 4]);
    const inside = await decoded(
      await get(t, `${wide.url}?width=200&height=200&fit=inside&format=png`),
    );
    deepEqual([inside.width, inside.height], [200, 100]);
    const paddedJpeg = await decoded(
      await get(t, `${wide.url}?width=200&height=200&fit=contain&format=jpeg`),
    );
    deepEqual([paddedJpeg.width, paddedJpeg.height], [200, 200]);
    // JPEG has no transparency: the padding is white.
    deepEqual(paddedJpeg.at(100, 5).map((v) => v > 240), [true, true, true]);
  }));

Deno.test("media variants on WebAssembly: fit cover crops around the stored focal point (MED-002, MED-015)", () =>
  withLibrary("wasm", async (t) => {
    const item = await upload(t, await halves(800, 400), "halves.png");
    const url = `${item.url}?width=200&height=200&format=png`;
    const put = await t.call("PUT", `/media/${item.id}`, {
      secret: t.media,
      key: "focal-left",
      body: { default_focal: { x: 0.1, y: 0.5 } },
    });
    equal(put.status, 200, await put.clone().text());
    const left = await decoded(await get(t, url));
    deepEqual([left.width, left.height], [200, 200]);
    // The crop keeps the left (red) part: its right edge is still red.
    near(left.at(190, 100), [255, 0, 0]);
    const put2 = await t.call("PUT", `/media/${item.id}`, {
      secret: t.media,
      key: "focal-right",
      body: { default_focal: { x: 0.95, y: 0.5 } },
    });
    equal(put2.status, 200);
    const right = await decoded(await get(t, url));
    near(right.at(100, 10), [0, 0, 255]);
  }));

Deno.test("media variants on WebAssembly: a 12-megapixel photo, an EXIF-rotated photo (upright); a GIF, which no codec here decodes, is a 307 to the original with no placeholder", () =>
  withLibrary("wasm", async (t) => {
    const big = await upload(t, await jpeg(4000, 3000), "big.jpg");
    const webp = await decoded(
      await get(t, `${big.url}?width=1200&format=webp`),
    );
    deepEqual([webp.format, webp.width, webp.height], ["webp", 1200, 900]);
    // Orientation 6: stored 60 × 30, shown 30 × 60; the variant is upright.
    const rotated = new Uint8Array(
      await solid(60, 30).jpeg().withMetadata({ orientation: 6 }).toBuffer(),
    );
    const turned = await upload(t, rotated, "turned.jpg");
    const upright = await decoded(
      await get(t, `${turned.url}?width=16&format=png`),
    );
    deepEqual([upright.width, upright.height], [16, 32]);
    const frames = await Promise.all(
      ["#ff0000", "#00ff00", "#0000ff"].map((c) =>
        sharp({ create: { width: 40, height: 20, channels: 3, background: c } })
          .png().toBuffer()
      ),
    );
    const gif = new Uint8Array(
      await sharp(frames, { join: { animated: true } }).gif().toBuffer(),
    );
    const animated = await upload(t, gif, "blink.gif");
    equal(animated.placeholder, null);
    const res = await get(t, `${animated.url}?width=32&format=png`);
    equal(res.status, 307);
    equal(res.headers.get("location"), new URL(animated.url).pathname);
    equal(res.headers.get("cache-control"), "public, max-age=300");
    await res.body?.cancel();
    equal((await t.keys()).filter((k) => k.includes("/variants/")).length, 2);
  }));

Deno.test("media variants on WebAssembly: a decompression bomb is refused from its header, nothing is stored", () =>
  withLibrary("wasm", async (t) => {
    const item = await upload(t, await jpeg(32, 32), "fine.jpg");
    const row = await t.services.db.selectFrom("media_files")
      .select("storage_key").where("id", "=", item.id)
      .executeTakeFirstOrThrow();
    // A 10-gigapixel header over a few bytes, put in storage by hand.
    await t.storage.put(
      row.storage_key,
      pngClaiming(100_000, 100_000),
      "image/png",
    );
    const res = await get(t, `${item.url}?width=320&format=webp`);
    equal(res.status, 422);
    const body = await refusal(res);
    equal(body.code, "media_variant_unsupported");
    equal(body.reason, "too_many_pixels");
    equal((await t.keys()).filter((k) => k.includes("/variants/")).length, 0);
  }));

Deno.test("media variants on WebAssembly: 25 megapixels is the last image decoded here; one pixel row more is sent as the original (307), not refused", () =>
  withLibrary("wasm", async (t) => {
    const edge = await upload(t, await jpeg(5000, 5000), "edge.jpg");
    const made = await decoded(
      await get(t, `${edge.url}?width=400&format=webp`),
    );
    deepEqual([made.width, made.height], [400, 400]);
    const over = await upload(t, await jpeg(5000, 5001), "over.jpg");
    const res = await get(t, `${over.url}?width=400&format=webp`);
    equal(res.status, 307);
    equal(res.headers.get("location"), new URL(over.url).pathname);
    await res.body?.cancel();
    equal(over.placeholder, null);
  }));

Deno.test("placeholders on WebAssembly: an upload gets a ThumbHash and the same dominant colour sharp finds", () =>
  withLibrary("wasm", async (t) => {
    const item = await upload(t, await jpeg(640, 480), "blue.jpg");
    ok(
      typeof item.placeholder === "string" && item.placeholder.length > 20,
      String(item.placeholder),
    );
    // rgb(20, 120, 200) falls in the histogram cell whose centre is #1878c8, as sharp reports it.
    equal(item.dominant_color, "#1878c8");
  }));

Deno.test("media variants on WebAssembly in an S3 bucket (s3rver): made on first request, kept beside the original", async () => {
  const s3 = await startTestS3();
  try {
    await withLibrary("wasm", async (t) => {
      const item = await upload(t, await jpeg(800, 600), "bucket.jpg");
      const url = `${item.url}?width=400&format=webp`;
      const image = await decoded(await get(t, url));
      deepEqual([image.format, image.width, image.height], ["webp", 400, 300]);
      ok((await t.keys()).some((k) => k.includes("/variants/")));
      const again = await get(t, url);
      equal(again.status, 200);
      await again.body?.cancel();
    }, s3.storage as MediaStorage);
  } finally {
    await s3.close();
  }
});

Deno.test("MEDIA_IMAGE_LIBRARY=none: a variant URL answers 307 to the original, and uploads have no placeholder", () =>
  withLibrary("none", async (t) => {
    const item = await upload(t, await jpeg(64, 48), "door.jpg");
    equal(item.placeholder, null);
    const res = await get(t, `${item.url}?width=32&format=webp`);
    equal(res.status, 307);
    equal(res.headers.get("location"), new URL(item.url).pathname);
    await res.body?.cancel();
  }));
