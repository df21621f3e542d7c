// Image variants on the public media URL (issue 46): width, height, fit, focal crops, quality, format and
// Accept negotiation, bounded parameters, made once and kept in storage (files and S3), strong ETags.
// Real images made by sharp in the test and decoded back to check what a front end gets.
import { deepEqual, equal, ok } from "node:assert/strict";
import sharp from "sharp";
import { pngClaiming } from "../../core/media/png.ts";
import type { MediaStorage } from "../../core/media/storage.ts";
import { makeVariant } from "../../core/media/variants.ts";
import { FOCAL_VARIANT_CACHE } from "../../core/media/variant_delivery.ts";
import { MAX_VARIANT_SIZE } from "../../core/media/variant_params.ts";
import { refusal } from "../manage/helpers.ts";
import { startTestS3 } from "../support/s3.ts";
import { type MediaFixture, withMediaApp } from "./support.ts";

function solid(
  width: number,
  height: number,
  channels: 3 | 4 = 3,
): ReturnType<typeof sharp> {
  return sharp({
    create: {
      width,
      height,
      channels,
      background: channels === 4
        ? { r: 20, g: 120, b: 200, alpha: 0.5 }
        : { r: 20, g: 120, b: 200 },
    },
  });
}

async function jpeg(width: number, height: number): Promise<Uint8Array> {
  return new Uint8Array(await solid(width, height).jpeg().toBuffer());
}

/** Left half red, right half blue: shows which side a crop kept. */
async function halves(width: number, height: number): Promise<Uint8Array> {
  const half = Math.floor(width / 2);
  const red = await sharp({
    create: { width: half, height, channels: 3, background: "#ff0000" },
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
  method = "GET",
) {
  return t.app.request(url, { method, headers });
}

async function decoded(res: Response) {
  const bytes = new Uint8Array(await res.arrayBuffer());
  const meta = await sharp(bytes).metadata();
  return {
    format: meta.format,
    width: meta.width,
    height: meta.height,
    channels: meta.channels,
    bytes,
  };
}

/** Storage that counts writes, to see that a second request encodes nothing. */
function counting(storage: MediaStorage) {
  const puts: string[] = [];
  const wrapped: MediaStorage = {
    kind: storage.kind,
    put: (key, bytes, type) => {
      puts.push(key);
      return storage.put(key, bytes, type);
    },
    putStream: (key, stream, type) => {
      puts.push(key);
      return storage.putStream(key, stream, type);
    },
    read: (key, range) => storage.read(key, range),
    stat: (key) => storage.stat(key),
    delete: (key) => storage.delete(key),
    list: (prefix) => storage.list(prefix),
  };
  return { puts, wrapped };
}

async function resizesAndStoresOnce(t: MediaFixture, puts: string[]) {
  const item = await upload(t, await jpeg(1600, 1200), "field.jpg");
  const url = `${item.url}?width=400&format=webp`;
  const first = await get(t, url);
  equal(first.status, 200);
  equal(first.headers.get("content-type"), "image/webp");
  equal(
    first.headers.get("cache-control"),
    "public, max-age=31536000, immutable",
  );
  equal(first.headers.get("vary"), null);
  const etag = first.headers.get("etag")!;
  ok(/^"[0-9a-f-]{36}\.[^"]+"$/.test(etag), etag);
  const image = await decoded(first);
  deepEqual([image.format, image.width, image.height], ["webp", 400, 300]);
  const variantPuts = puts.filter((k) => k.includes("/variants/"));
  equal(variantPuts.length, 1);
  ok(
    (await t.keys()).some((k) => k === variantPuts[0]),
    "the variant is kept in the media storage",
  );
  // The second request is served from storage: nothing is encoded or written again.
  const second = await get(t, url);
  equal(second.status, 200);
  equal(second.headers.get("etag"), etag);
  deepEqual((await decoded(second)).bytes, image.bytes);
  equal(puts.filter((k) => k.includes("/variants/")).length, 1);
  const cached = await get(t, url, { "if-none-match": etag });
  equal(cached.status, 304);
  const head = await get(t, url, {}, "HEAD");
  equal(head.status, 200);
  equal(head.headers.get("content-length"), String(image.bytes.length));
  // The original is untouched by variants.
  const original = await get(t, item.url);
  equal(original.headers.get("etag"), `"${item.object_id}"`);
  equal((await decoded(original)).width, 1600);
}

Deno.test("media variants: width and format resize a JPEG into a WebP made once and kept in file storage; ETag, 304 and HEAD (MED-001)", async () => {
  const { FileStorage } = await import("../../core/media/file_storage.ts");
  const dir = await Deno.makeTempDir({ prefix: "stave-variants-" });
  const { puts, wrapped } = counting(new FileStorage(`${dir}/media`));
  try {
    await withMediaApp((t) => resizesAndStoresOnce(t, puts), wrapped);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("media variants: made once and kept in S3-compatible storage (s3rver)", async () => {
  const s3 = await startTestS3();
  try {
    const { puts, wrapped } = counting(s3.storage);
    await withMediaApp((t) => resizesAndStoresOnce(t, puts), wrapped);
  } finally {
    await s3.close();
  }
});

Deno.test("media variants: without a format the answer follows Accept (WebP, else JPEG, PNG with alpha kept) with Vary: Accept", () =>
  withMediaApp(async (t) => {
    const photo = await upload(t, await jpeg(800, 600), "photo.jpg");
    const chrome =
      "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";
    const webp = await get(t, `${photo.url}?width=320`, { accept: chrome });
    equal(webp.headers.get("content-type"), "image/webp");
    equal(webp.headers.get("vary"), "Accept");
    deepEqual([(await decoded(webp)).width], [320]);
    const plain = await get(t, `${photo.url}?width=320`, { accept: "image/*" });
    equal(plain.headers.get("content-type"), "image/jpeg");
    equal(plain.headers.get("vary"), "Accept");
    ok(plain.headers.get("etag") !== webp.headers.get("etag"));
    const refused = await get(t, `${photo.url}?width=320`, {
      accept: "image/webp;q=0",
    });
    equal(refused.headers.get("content-type"), "image/jpeg");
    const alpha = await upload(
      t,
      new Uint8Array(await solid(300, 200, 4).png().toBuffer()),
      "glass.png",
    );
    const png = await get(t, `${alpha.url}?width=160`);
    equal(png.headers.get("content-type"), "image/png");
    const image = await decoded(png);
    deepEqual([image.format, image.width, image.height, image.channels], [
      "png",
      160,
      107,
      4,
    ]);
    const avif = await get(t, `${alpha.url}?width=160&format=avif`, {
      accept: chrome,
    });
    equal(avif.headers.get("content-type"), "image/avif");
    equal(avif.headers.get("vary"), null);
    equal((await decoded(avif)).format, "heif");
  }));

Deno.test("media variants: every parameter is bounded at its edge; anything else is 400 media_variant_invalid naming the parameter and stores nothing", () =>
  withMediaApp(async (t) => {
    const item = await upload(t, await jpeg(64, 48), "small.jpg");
    const before = await t.keys();
    const refusedWith = async (query: string, parameter: string) => {
      const res = await get(t, `${item.url}?${query}`);
      equal(res.status, 400, query);
      const body = await refusal(res);
      equal(body.code, "media_variant_invalid");
      equal(body.parameter, parameter, query);
      ok(body.message.length > 0);
    };
    // Size ceiling: the largest side is accepted (never enlarged past the original), one more is not.
    equal(MAX_VARIANT_SIZE, 3840);
    const largest = await get(t, `${item.url}?width=3840&format=jpeg`);
    equal(largest.status, 200);
    deepEqual([(await decoded(largest)).width], [64]);
    await refusedWith("width=3841", "width");
    await refusedWith("height=3841", "height");
    // Only listed sizes: 1200 is one, 1199 is not.
    equal((await get(t, `${item.url}?width=1200`)).status, 200);
    await refusedWith("width=1199", "width");
    // 16:9 frames have listed heights: 640 × 360 of a 64 × 48 original keeps the ratio at its scale.
    const wide = await decoded(
      await get(t, `${item.url}?width=640&height=360&format=jpeg`),
    );
    deepEqual([wide.width, wide.height], [64, 36]);
    await refusedWith("width=640&height=361", "height");
    await refusedWith("width=0", "width");
    await refusedWith("width=-16", "width");
    await refusedWith("width=16.5", "width");
    // Quality: 30 to 100 in steps of 5.
    equal((await get(t, `${item.url}?width=16&quality=30`)).status, 200);
    equal((await get(t, `${item.url}?width=16&quality=100`)).status, 200);
    await refusedWith("width=16&quality=25", "quality");
    await refusedWith("width=16&quality=101", "quality");
    await refusedWith("width=16&quality=82", "quality");
    await refusedWith("fit=fill", "fit");
    await refusedWith("format=gif", "format");
    await refusedWith("w=16", "w");
    await refusedWith("width=16&width=32", "width");
    await refusedWith("preset=huge", "preset");
    await refusedWith("preset=thumb&width=16", "width");
    const thumb = await get(t, `${item.url}?preset=thumb&format=png`);
    equal(thumb.status, 200);
    // thumb is 200 × 200 cover; a 64 × 48 original gives the same square frame at its own scale.
    const square = await decoded(thumb);
    deepEqual([square.width, square.height], [48, 48]);
    const after = await t.keys();
    equal(
      after.filter((k) => !before.includes(k) && !k.includes("/variants/"))
        .length,
      0,
    );
  }));

Deno.test("media variants: fit cover crops around the stored focal point; a new focal point is a new variant (MED-002, MED-015)", () =>
  withMediaApp(async (t) => {
    const item = await upload(t, await halves(800, 400), "halves.png");
    const url = `${item.url}?width=200&height=200&format=png`;
    const centre = await get(t, url);
    equal(centre.headers.get("cache-control"), FOCAL_VARIANT_CACHE);
    const put = await t.call("PUT", `/media/${item.id}`, {
      secret: t.media,
      key: "focal-1",
      body: { default_focal: { x: 0.1, y: 0.5 } },
    });
    equal(put.status, 200, await put.clone().text());
    const left = await get(t, url);
    equal(left.status, 200);
    ok(
      left.headers.get("etag") !== centre.headers.get("etag"),
      "the focal point is part of the ETag",
    );
    const { data, info } = await sharp(new Uint8Array(await left.arrayBuffer()))
      .raw()
      .toBuffer({ resolveWithObject: true });
    deepEqual([info.width, info.height], [200, 200]);
    const at = (x: number, y: number) =>
      Array.from(
        data.subarray(
          (y * info.width + x) * info.channels,
          (y * info.width + x) * info.channels + 3,
        ),
      );
    // The crop keeps the left (red) part: its right edge is still red.
    deepEqual(at(190, 100), [255, 0, 0]);
    await put.body?.cancel();
    const put2 = await t.call("PUT", `/media/${item.id}`, {
      secret: t.media,
      key: "focal-2",
      body: { default_focal: { x: 0.95, y: 0.5 } },
    });
    equal(put2.status, 200);
    const right = await sharp(
      new Uint8Array(await (await get(t, url)).arrayBuffer()),
    ).raw()
      .toBuffer({ resolveWithObject: true });
    // Now the crop keeps the right (blue) part: well inside its left edge it is blue.
    const px = (10 * right.info.width + 100) * right.info.channels;
    deepEqual(Array.from(right.data.subarray(px, px + 3)), [0, 0, 255]);
    // contain keeps the whole picture inside the frame, padded; inside keeps its ratio.
    const contain = await decoded(
      await get(t, `${item.url}?width=200&height=200&fit=contain&format=png`),
    );
    deepEqual([contain.width, contain.height], [200, 200]);
    const inside = await decoded(
      await get(t, `${item.url}?width=200&height=200&fit=inside&format=png`),
    );
    deepEqual([inside.width, inside.height], [200, 100]);
  }));

Deno.test("media variants: a 12-megapixel photo, an EXIF-rotated photo and an animated GIF", () =>
  withMediaApp(async (t) => {
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
    const first = await get(t, `${animated.url}?width=32&format=png`);
    equal(first.status, 200);
    const frame = await decoded(first);
    deepEqual([frame.format, frame.width, frame.height], ["png", 32, 16]);
  }));

Deno.test("media variants: a decompression bomb is refused from its header before any pixel is decoded, and nothing is stored", () =>
  withMediaApp(async (t) => {
    const item = await upload(t, await jpeg(32, 32), "fine.jpg");
    const row = await t.services.db.selectFrom("media_files").select(
      "storage_key",
    )
      .where("id", "=", item.id).executeTakeFirstOrThrow();
    // Bytes stored before the upload ceiling existed (or brought in by hand): a 10-gigapixel header
    // over a few bytes. Decoding would fail as damaged; the header check answers first.
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

Deno.test("makeVariant(): the pixel ceiling is exact: the last accepted image is encoded, one pixel more is too_many_pixels", () =>
  withMediaApp(async (t) => {
    const key = `sites/${t.siteId}/00000000-0000-4000-8000-000000000001.png`;
    const source = {
      siteId: t.siteId,
      objectId: "00000000-0000-4000-8000-000000000001",
      storageKey: key,
      format: "png",
      kind: "image",
      fileName: "x.png",
      focal: null,
    };
    const spec = {
      width: 16,
      height: null,
      fit: "inside" as const,
      quality: 80,
      format: "png" as const,
      negotiated: false,
    };
    await t.storage.put(
      key,
      new Uint8Array(await solid(100, 100).png().toBuffer()),
      "image/png",
    );
    const edge = await makeVariant(t.storage, source, spec, {
      maxPixels: 10_000,
    });
    equal(edge.ok, true);
    await t.storage.put(
      key,
      new Uint8Array(await solid(101, 100).png().toBuffer()),
      "image/png",
    );
    const over = await makeVariant(t.storage, source, spec, {
      maxPixels: 10_000,
    });
    deepEqual(over, { ok: false, reason: "too_many_pixels" });
  }));

Deno.test("media variants keep the original's access: only its own object URL on its own site answers; other kinds, removed items and unknown objects do not (MED-025)", () =>
  withMediaApp(async (t) => {
    const item = await upload(t, await jpeg(64, 64), "door.jpg");
    const query = "?width=32&format=webp";
    equal((await get(t, `${item.url}${query}`)).status, 200);
    // The media id is not an address; another site's path does not find the object.
    const byId = item.url.replace(item.object_id, item.id);
    equal((await get(t, `${byId}${query}`)).status, 404);
    const otherSite = item.url.replace(t.siteId, crypto.randomUUID());
    equal((await get(t, `${otherSite}${query}`)).status, 404);
    const pdf = await upload(
      t,
      new TextEncoder().encode(
        "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n",
      ),
      "a.pdf",
    );
    const notImage = await get(t, `${pdf.url}${query}`);
    equal(notImage.status, 422);
    equal((await refusal(notImage)).reason, "not_an_image");
    const removed = await t.call("POST", `/media/${item.id}/remove`, {
      secret: t.media,
      key: "remove-1",
    });
    equal(removed.status, 200, await removed.clone().text());
    equal((await get(t, `${item.url}${query}`)).status, 404);
    equal((await get(t, `${item.url}?width=16&format=webp`)).status, 404);
    equal(
      (await t.keys()).filter((k) => k.includes("/variants/")).length,
      0,
      "removal deletes the variants",
    );
  }));

Deno.test("media variants of a language's original use that language's file (MED-019, MED-023)", () =>
  withMediaApp(async (t) => {
    const item = await upload(t, await jpeg(800, 400), "sign.jpg");
    const put = await t.send("PUT", `/media/${item.id}/originals/de`, {
      file: { bytes: await jpeg(400, 800), name: "schild.jpg" },
      fields: { expected_object_id: "" },
    });
    equal(put.status, 200, await put.clone().text());
    const originals =
      await (await t.call("GET", `/media/${item.id}/originals`, {
        secret: t.media,
      })).json();
    const de = originals.data.find((o: { lang: string }) => o.lang === "de");
    ok(de && de.object_id !== item.object_id);
    const tall = await decoded(await get(t, `${de.url}?width=200&format=png`));
    deepEqual([tall.width, tall.height], [200, 400]);
    const wide = await decoded(
      await get(t, `${item.url}?width=200&format=png`),
    );
    deepEqual([wide.width, wide.height], [200, 100]);
  }));

Deno.test("media placeholders: an image gets a ThumbHash and its dominant colour on upload and again on replace; other files get none (MED-001, MED-017)", () =>
  withMediaApp(async (t) => {
    const { thumbHashToRGBA } = await import("thumbhash");
    const item = await upload(t, await jpeg(320, 200), "blue.jpg");
    // sharp bins colours in steps of 8: the dominant colour is the image's within one bin.
    const [dr, dg, db] = [1, 3, 5].map((i) =>
      parseInt(item.dominant_color.slice(i, i + 2), 16)
    );
    ok(
      Math.abs(dr - 20) < 8 && Math.abs(dg - 120) < 8 && Math.abs(db - 200) < 8,
      item.dominant_color,
    );
    const bytes = Uint8Array.from(
      atob(item.placeholder),
      (c) => c.charCodeAt(0),
    );
    const preview = thumbHashToRGBA(bytes);
    // The preview keeps the image's ratio and colour.
    ok(preview.w > preview.h);
    const [r, g, b] = preview.rgba.subarray(0, 3);
    ok(
      Math.abs(r - 20) < 16 && Math.abs(g - 120) < 16 && Math.abs(b - 200) < 16,
      `${r},${g},${b}`,
    );
    const red = new Uint8Array(
      await sharp({
        create: { width: 50, height: 50, channels: 3, background: "#ff0000" },
      }).png().toBuffer(),
    );
    const replaced = await t.send("POST", `/media/${item.id}/replace`, {
      file: { bytes: red, name: "red.png" },
    });
    equal(replaced.status, 200, await replaced.clone().text());
    const after = await replaced.json();
    ok(after.dominant_color !== item.dominant_color);
    ok(after.placeholder !== item.placeholder);
    const read =
      await (await t.call("GET", `/media/${item.id}`, { secret: t.media }))
        .json();
    equal(read.placeholder, after.placeholder);
    const pdf = await upload(
      t,
      new TextEncoder().encode(
        "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n",
      ),
      "a.pdf",
    );
    deepEqual([pdf.placeholder, pdf.dominant_color], [null, null]);
  }));

Deno.test("runDailyMaintenance() keeps the variants of a named object and removes those whose object no row names", () =>
  withMediaApp(async (t) => {
    const { runDailyMaintenance } = await import("../../core/maintenance.ts");
    const item = await upload(t, await jpeg(64, 64), "kept.jpg");
    equal((await get(t, `${item.url}?width=32&format=webp`)).status, 200);
    const kept = (await t.keys()).filter((k) => k.includes("/variants/"));
    equal(kept.length, 1);
    // What a crash between an original's row going and its variants' deletion leaves behind.
    const lost =
      `sites/${t.siteId}/variants/${crypto.randomUUID()}/w32-h0-inside-q80.webp`;
    await t.storage.put(lost, new Uint8Array([1, 2, 3]), "image/webp");
    t.clock.set(new Date(Date.now() + 2 * 60 * 60 * 1000));
    const done = await runDailyMaintenance(t.services);
    equal(done.mediaOrphans, 1);
    const after = await t.keys();
    ok(after.includes(kept[0]));
    ok(!after.includes(lost));
  }));

Deno.test("media variants where the image library cannot load (Deno Deploy): the variant URL sends the original with a short-lived 307; the parameters are still checked", () =>
  withMediaApp(async (t) => {
    const { deliverVariant } = await import(
      "../../core/media/variant_delivery.ts"
    );
    const item = await upload(t, await jpeg(64, 48), "door.jpg");
    const path = new URL(item.url).pathname;
    const [, , site, file] = path.split("/");
    const ask = (query: string) =>
      deliverVariant({
        db: t.services.db,
        storage: t.storage,
        options: { loadImageLibrary: () => Promise.resolve(null) },
      }, {
        site,
        file,
        query: new URLSearchParams(query),
        method: "GET",
        headers: new Headers(),
        originalUrl: path,
      });
    deepEqual(await ask("width=32&format=webp"), {
      status: 307,
      location: path,
    });
    const refused = await ask("width=33");
    ok(refused && !(refused instanceof Response) && refused.status === 400);
    equal((await t.keys()).filter((k) => k.includes("/variants/")).length, 0);
    // An empty query names no variant: the route serves the original itself.
    equal(await ask(""), null);
  }));
