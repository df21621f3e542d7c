// Management API uploads stream to storage (issue 46 item 4): the file is written while the body arrives and
// hashed on the way; the key's fingerprint is checked after, a replay or a refusal removes what was written.
// Covers MED-005, MED-006, MED-013 (32 MiB exactly accepted, one byte more media_too_large), MED-020.
import { deepEqual, equal, ok } from "node:assert/strict";
import { HEAD_BYTES } from "../../core/media/detect.ts";
import { FileStorage } from "../../core/media/file_storage.ts";
import type { MediaStorage } from "../../core/media/storage.ts";
import { API_UPLOAD_LIMIT } from "../../core/media/upload.ts";
import { BASE } from "../manage/helpers.ts";
import { refusal } from "../manage/helpers.ts";
import { startTestS3, storedKeys } from "../support/s3.ts";
import { countingStorage, type MediaFixture, withMediaApp } from "./support.ts";

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;
const BOUNDARY = "stave-api-boundary";
const enc = new TextEncoder();

interface BodyWatch {
  sent: number;
  maxGap: number;
  storedBeforeLast: number;
  finished: boolean;
}

/**
 * A multipart body made chunk by chunk while the server reads it, never whole: `before` text
 * parts, the file (`head` then filler), then `after` text parts.
 */
function formBody(
  file: { name: string; size: number; head?: Uint8Array },
  stored: () => number,
  fields: { before?: [string, string][]; after?: [string, string][] } = {},
): { body: ReadableStream<Uint8Array>; watch: BodyWatch } {
  const watch = { sent: 0, maxGap: 0, storedBeforeLast: -1, finished: false };
  const text = (list: [string, string][] = []) =>
    list.map(([name, value]) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
    ).join("");
  const opening = enc.encode(
    text(fields.before) +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const closing = enc.encode(
    `\r\n${text(fields.after)}--${BOUNDARY}--\r\n`,
  );
  let opened = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!opened) {
        opened = true;
        controller.enqueue(opening);
        return;
      }
      watch.maxGap = Math.max(watch.maxGap, watch.sent - stored());
      if (watch.sent >= file.size) {
        watch.finished = true;
        controller.enqueue(closing);
        controller.close();
        return;
      }
      const size = Math.min(CHUNK, file.size - watch.sent);
      if (watch.sent + size >= file.size) watch.storedBeforeLast = stored();
      const chunk = new Uint8Array(size).fill(0x5a);
      // Unknown binary with a fixed start: stored as a plain file.
      if (watch.sent === 0) chunk.set(file.head ?? [0x01, 0x02, 0x03, 0x00]);
      watch.sent += size;
      controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
  return { body, watch };
}

function post(
  t: MediaFixture,
  path: string,
  body: ReadableStream<Uint8Array>,
  key: string = crypto.randomUUID(),
  method = "POST",
): Promise<Response> {
  return Promise.resolve(t.app.request(`${BASE}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${t.media}`,
      "idempotency-key": key,
      "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
    },
    body,
  }));
}

async function rows(t: MediaFixture): Promise<number> {
  return (await t.services.db.selectFrom("media_files").select("id").execute())
    .length;
}

const STORAGES = [
  {
    name: "files",
    async open() {
      const dir = await Deno.makeTempDir({ prefix: "stave-api-stream-" });
      return {
        storage: new FileStorage(dir) as MediaStorage,
        close: () => Deno.remove(dir, { recursive: true }),
      };
    },
  },
  {
    name: "s3",
    async open() {
      const s3 = await startTestS3();
      return { storage: s3.storage as MediaStorage, close: () => s3.close() };
    },
  },
];

for (const { name, open } of STORAGES) {
  Deno.test(`management API upload (${name}): a 32 MiB file is taken by storage before the body ends and accepted; 32 MiB + 1 byte is 413 media_too_large with nothing stored (MED-013)`, async () => {
    const { storage, close } = await open();
    try {
      const { seen, wrapped } = countingStorage(storage);
      await withMediaApp(async (t) => {
        const over = formBody(
          { name: "over.bin", size: API_UPLOAD_LIMIT + 1 },
          () => seen.bytes,
        );
        const refused = await post(t, "/media", over.body);
        equal(refused.status, 413);
        const error = await refusal(refused);
        equal(error.code, "media_too_large");
        equal(error.limit_bytes, API_UPLOAD_LIMIT);
        equal(error.byte_length, API_UPLOAD_LIMIT + 1);
        // Storage never took the byte over the limit, and nothing is left of the partial write.
        ok(seen.bytes <= API_UPLOAD_LIMIT, `storage took ${seen.bytes} bytes`);
        deepEqual(await storedKeys(storage), []);
        equal(await rows(t), 0);

        seen.bytes = 0;
        const edge = formBody(
          { name: "edge.bin", size: API_UPLOAD_LIMIT },
          () => seen.bytes,
          { after: [["on_duplicate", "copy"]] },
        );
        const accepted = await post(t, "/media", edge.body);
        equal(accepted.status, 201, await accepted.clone().text());
        const item = await accepted.json();
        equal(item.byte_length, API_UPLOAD_LIMIT);
        ok(edge.watch.finished);
        // Before the last chunk was offered, storage had all but the pipeline's slack.
        ok(
          edge.watch.storedBeforeLast >=
            API_UPLOAD_LIMIT - HEAD_BYTES - 2 * MiB,
          `storage had ${edge.watch.storedBeforeLast} bytes before the body ended`,
        );
        ok(
          edge.watch.maxGap <= HEAD_BYTES + 2 * MiB,
          `up to ${edge.watch.maxGap} bytes were in flight`,
        );
        const keys = await storedKeys(storage);
        equal(keys.length, 1);
        equal((await storage.stat(keys[0]))?.size, API_UPLOAD_LIMIT);
        equal(await rows(t), 1);
      }, wrapped);
    } finally {
      await close();
    }
  });

  Deno.test(`management API upload (${name}): a replay under the same key answers the first item and removes the copy it wrote; a refused upload leaves nothing (MED-005)`, async () => {
    const { storage, close } = await open();
    try {
      const { seen, wrapped } = countingStorage(storage);
      await withMediaApp(async (t) => {
        const key = crypto.randomUUID();
        const first = formBody({ name: "a.bin", size: 3 * MiB }, () => 0);
        const created = await post(t, "/media", first.body, key);
        equal(created.status, 201, await created.clone().text());
        const item = await created.json();
        const keys = await storedKeys(storage);
        equal(keys.length, 1);

        const again = formBody({ name: "a.bin", size: 3 * MiB }, () => 0);
        const replayed = await post(t, "/media", again.body, key);
        equal(replayed.status, 201);
        const answer = await replayed.json();
        equal(answer.id, item.id);
        equal(answer.replayed, true);
        // The replay's body was stored while it arrived (its digest was needed), then removed.
        equal(seen.streams, 2);
        deepEqual(await storedKeys(storage), keys);
        equal(await rows(t), 1);

        // Another file under the same key: key reused, and its bytes are gone again.
        const other = formBody({
          name: "a.bin",
          size: 3 * MiB,
          head: new Uint8Array([7, 7, 7, 0]),
        }, () => 0);
        const reused = await post(t, "/media", other.body, key);
        equal(reused.status, 409);
        equal((await refusal(reused)).code, "idempotency_key_reused");
        deepEqual(await storedKeys(storage), keys);

        // The same bytes under a new key with on_duplicate=ask: 409 media_duplicate, nothing kept.
        const dup = formBody({ name: "b.bin", size: 3 * MiB }, () => 0);
        const duplicate = await post(t, "/media", dup.body);
        equal(duplicate.status, 409);
        equal((await refusal(duplicate)).code, "media_duplicate");
        deepEqual(await storedKeys(storage), keys);

        // A refusal after the file, by a field sent behind it: the written object is removed.
        const late = formBody(
          { name: "c.bin", size: MiB, head: new Uint8Array([5, 5, 5, 0]) },
          () => 0,
          { after: [["folder_id", crypto.randomUUID()]] },
        );
        const noFolder = await post(t, "/media", late.body);
        equal(noFolder.status, 404);
        equal((await refusal(noFolder)).code, "media_folder_not_found");
        deepEqual(await storedKeys(storage), keys);
        equal(await rows(t), 1);
      }, wrapped);
    } finally {
      await close();
    }
  });
}

Deno.test("management API upload: a program is refused from its head and never written; the same request retried under its key is refused alike", () =>
  withMediaApp(async (t) => {
    const elf = new Uint8Array(64);
    elf.set([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01]);
    const key = crypto.randomUUID();
    for (let i = 0; i < 2; i++) {
      const { body } = formBody(
        { name: "photo.jpg", size: 2 * MiB, head: elf },
        () => 0,
      );
      const res = await post(t, "/media", body, key);
      equal(res.status, 422);
      equal((await refusal(res)).code, "executable_file");
    }
    deepEqual(await t.keys(), []);
    equal(await rows(t), 0);
  }));

Deno.test("management API per-language original: streamed to storage before the body ends, with expected_object_id after the file; a stale pin removes what was written (MED-020, MED-022)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stave-api-stream-" });
  try {
    const { seen, wrapped } = countingStorage(new FileStorage(dir));
    await withMediaApp(async (t) => {
      const base = formBody({ name: "base.bin", size: 1024 }, () => 0);
      const created = await post(t, "/media", base.body);
      equal(created.status, 201);
      const item = await created.json();
      const keys = await t.keys();

      seen.bytes = 0;
      const size = 12 * MiB;
      const original = formBody(
        { name: "de.bin", size, head: new Uint8Array([4, 4, 4, 0]) },
        () => seen.bytes,
        { after: [["expected_object_id", ""]] },
      );
      const put = await post(
        t,
        `/media/${item.id}/originals/de`,
        original.body,
        crypto.randomUUID(),
        "PUT",
      );
      equal(put.status, 200, await put.clone().text());
      const answer = await put.json();
      const de = answer.data.find((o: { lang: string }) => o.lang === "de");
      equal(de.byte_length, size);
      ok(
        original.watch.storedBeforeLast >= size - HEAD_BYTES - 2 * MiB,
        `storage had ${original.watch.storedBeforeLast} bytes before the body ended`,
      );
      const withOriginal = await t.keys();
      equal(withOriginal.length, keys.length + 1);

      const stale = formBody(
        { name: "de2.bin", size: MiB, head: new Uint8Array([3, 3, 3, 0]) },
        () => seen.bytes,
        { before: [["expected_object_id", ""]] },
      );
      const refused = await post(
        t,
        `/media/${item.id}/originals/de`,
        stale.body,
        crypto.randomUUID(),
        "PUT",
      );
      equal(refused.status, 409);
      equal((await refusal(refused)).code, "media_changed");
      deepEqual(await t.keys(), withOriginal);
    }, wrapped);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("management API upload: a text part that is not UTF-8 is refused 400 invalid_request with nothing stored; UTF-8 text arrives intact", () =>
  withMediaApp(async (t) => {
    const bytesOf = (...parts: (string | Uint8Array)[]) => {
      const chunks = parts.map((p) =>
        typeof p === "string" ? enc.encode(p) : p
      );
      const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) out.set(c, (at += c.length) - c.length);
      return out;
    };
    const upload = (altTexts: Uint8Array) =>
      Promise.resolve(t.app.request(`${BASE}/media`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${t.media}`,
          "idempotency-key": crypto.randomUUID(),
          "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
        },
        body: bytesOf(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="alt_texts"\r\n\r\n`,
          altTexts,
          `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          new Uint8Array([0x01, 0x02, 0x03, 0x00, 0x05]),
          `\r\n--${BOUNDARY}--\r\n`,
        ),
      }));
    // {"en":"<0xff>"}: one byte that no UTF-8 text holds.
    const bad = await upload(bytesOf('{"en":"', new Uint8Array([0xff]), '"}'));
    equal(bad.status, 400);
    const error = await refusal(bad);
    equal(error.code, "invalid_request");
    ok(/alt_texts" is not UTF-8 text/.test(error.message), error.message);
    deepEqual(await t.keys(), []);
    equal(await rows(t), 0);

    const good = await upload(enc.encode('{"en":"Café ☕"}'));
    equal(good.status, 201, await good.clone().text());
    deepEqual((await good.json()).alt_texts, { en: "Café ☕" });
  }));
