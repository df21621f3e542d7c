// GET /media/{site}/{object}.{format}: stable public URLs with ETag, immutable caching, ranges and the right type.
import { assertIfNoneMatch } from "../support/conditional.ts";
import { deepEqual, equal } from "node:assert/strict";
import { startTestS3 } from "../support/s3.ts";
import { type MediaFixture, png, withMediaApp } from "./support.ts";

async function fetchUrl(
  t: MediaFixture,
  url: string,
  headers: Record<string, string> = {},
  method = "GET",
) {
  return await t.app.request(url, { method, headers });
}

async function checkDelivery(t: MediaFixture) {
  const bytes = await png(1, 20, 10);
  const item = await (await t.send("POST", "/media", {
    file: { bytes, name: "door.png" },
  })).json();
  const res = await fetchUrl(t, item.url);
  equal(res.status, 200);
  equal(res.headers.get("content-type"), "image/png");
  equal(
    res.headers.get("cache-control"),
    "public, max-age=31536000, immutable",
  );
  equal(res.headers.get("etag"), `"${item.object_id}"`);
  equal(res.headers.get("accept-ranges"), "bytes");
  equal(res.headers.get("content-length"), String(bytes.length));
  equal(res.headers.get("x-content-type-options"), "nosniff");
  deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
  const cached = await fetchUrl(t, item.url, {
    "if-none-match": `"${item.object_id}"`,
  });
  equal(cached.status, 304);
  // RFC 9110: If-None-Match compares weakly, takes lists and `*` (issue 39 item 5).
  await assertIfNoneMatch(
    (headers) => fetchUrl(t, item.url, headers),
    `"${item.object_id}"`,
    "media",
  );
  const part = await fetchUrl(t, item.url, { range: "bytes=1-3" });
  equal(part.status, 206);
  equal(part.headers.get("content-range"), `bytes 1-3/${bytes.length}`);
  deepEqual(new Uint8Array(await part.arrayBuffer()), bytes.subarray(1, 4));
  const tail = await fetchUrl(t, item.url, { range: "bytes=-4" });
  deepEqual(
    new Uint8Array(await tail.arrayBuffer()),
    bytes.subarray(bytes.length - 4),
  );
  const last = await fetchUrl(t, item.url, {
    range: `bytes=${bytes.length - 1}-`,
  });
  equal(last.status, 206);
  equal((await last.arrayBuffer()).byteLength, 1);
  const beyond = await fetchUrl(t, item.url, {
    range: `bytes=${bytes.length}-`,
  });
  equal(beyond.status, 416);
  equal(beyond.headers.get("content-range"), `bytes */${bytes.length}`);
  const head = await fetchUrl(t, item.url, {}, "HEAD");
  equal(head.status, 200);
  equal(head.headers.get("content-length"), String(bytes.length));
  // Another site's id, a wrong format or an unknown object: 404.
  const path = new URL(item.url).pathname;
  equal(
    (await fetchUrl(
      t,
      `http://localhost${path.replace(t.siteId, crypto.randomUUID())}`,
    )).status,
    404,
  );
  equal(
    (await fetchUrl(t, `http://localhost${path.replace(".png", ".jpg")}`))
      .status,
    404,
  );
  return item;
}

Deno.test("media delivery from files: Content-Type, ETag, immutable caching, 304, single ranges, 416, HEAD, 404s", () =>
  withMediaApp(async (t) => {
    const item = await checkDelivery(t);
    // After removal the URL answers 404.
    await t.call("POST", `/media/${item.id}/remove`, {
      secret: t.media,
      key: "r",
    });
    equal((await fetchUrl(t, item.url)).status, 404);
  }));

Deno.test("media delivery from a real S3-protocol server (s3rver): the same answers", async () => {
  const s3 = await startTestS3();
  try {
    await withMediaApp(async (t) => {
      await checkDelivery(t);
    }, s3.storage);
  } finally {
    await s3.close();
  }
});

Deno.test("media delivery: a language's original has its own URL; a download-only file is an attachment", () =>
  withMediaApp(async (t) => {
    const item = await (await t.send("POST", "/media", {
      file: { bytes: await png(2), name: "a.png" },
    })).json();
    const de = await (await t.send("PUT", `/media/${item.id}/originals/de`, {
      file: { bytes: await png(3), name: "de.png" },
      fields: { expected_object_id: "" },
    })).json();
    const url = de.data.find((o: { lang: string }) => o.lang === "de").url;
    const res = await fetchUrl(t, url);
    equal(res.status, 200);
    deepEqual(new Uint8Array(await res.arrayBuffer()), await png(3));
    const bin = await (await t.send("POST", "/media", {
      file: { bytes: new Uint8Array([1, 2, 3, 0, 250]), name: "data.bin" },
    })).json();
    const file = await fetchUrl(t, bin.url);
    equal(file.headers.get("content-type"), "application/octet-stream");
    equal(
      file.headers.get("content-disposition"),
      "attachment; filename*=UTF-8''data.bin",
    );
    await file.body?.cancel();
  }));
