// Uploads stream to storage (issue 46 item 4): the admin's form is stored while it arrives, the size limit is
// enforced at its first byte over, the type is read from the head, and the CSRF check still stands.
// Covers MED-006, MED-013 (admin streams up to the plan limit; over -> media_too_large), MED-005.
import { deepEqual, equal, ok } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { HEAD_BYTES } from "../../core/media/detect.ts";
import { FileStorage } from "../../core/media/file_storage.ts";
import type { MediaStorage } from "../../core/media/storage.ts";
import {
  CookieJar,
  csrfField,
  HOST,
  PASSWORD,
  request,
  setMemberPermissions,
  setupAdmin,
  signInAs,
} from "../admin/helpers.ts";
import { refusal } from "../manage/helpers.ts";
import { startTestS3, storedKeys } from "../support/s3.ts";
import { countingStorage, withMediaApp } from "./support.ts";
import type { TestApp } from "../support/app.ts";

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;
const BOUNDARY = "stave-test-boundary";
const enc = new TextEncoder();

/** What a generated form body did while it was read. */
interface BodyWatch {
  /** File bytes handed to the server so far. */
  sent: number;
  /** The largest gap seen between file bytes sent and bytes storage had taken. */
  maxGap: number;
  /** Bytes storage had taken when the body's last chunk was asked for. */
  storedBeforeLast: number;
  /** True once the server read the closing boundary. */
  finished: boolean;
}

/**
 * A multipart body whose file part is generated chunk by chunk while the server reads it, never
 * whole: `head` starts the file, the rest is filler. Text fields come first, as the forms send them.
 */
function formBody(
  fields: [string, string][],
  file: { name: string; size: number; head?: Uint8Array },
  stored: () => number,
): { body: ReadableStream<Uint8Array>; watch: BodyWatch } {
  const watch: BodyWatch = {
    sent: 0,
    maxGap: 0,
    storedBeforeLast: -1,
    finished: false,
  };
  const opening = enc.encode(
    fields.map(([name, value]) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
    ).join("") +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const closing = enc.encode(`\r\n--${BOUNDARY}--\r\n`);
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

interface AdminFixture {
  t: TestApp;
  csrf: string;
  jar: CookieJar;
  post(
    body: ReadableStream<Uint8Array>,
    headers?: Record<string, string>,
  ): Promise<Response>;
  rows(): Promise<number>;
}

async function withAdmin(
  storage: MediaStorage,
  planLimit: number,
  fn: (f: AdminFixture) => Promise<void>,
) {
  const { t, userId, email } = await setupAdmin({
    env: { MEDIA_REQUEST_BODY_LIMIT_BYTES: String(planLimit) },
  });
  try {
    t.services.media = storage;
    await setMemberPermissions(
      t.services.db,
      userId,
      administratorPermissions(),
    );
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    const page = await request(t, jar, "/admin/media");
    const csrf = csrfField(await page.text());
    await fn({
      t,
      csrf,
      jar,
      async post(body, headers = {}) {
        const res = await t.app.request("/admin/media", {
          method: "POST",
          headers: {
            host: HOST,
            cookie: jar.header() ?? "",
            accept: "application/json",
            "content-type": `multipart/form-data; boundary=${BOUNDARY}`,
            ...headers,
          },
          body,
        });
        jar.store(res);
        return res;
      },
      async rows() {
        const found = await t.services.db.selectFrom("media_files")
          .select("id").execute();
        return found.length;
      },
    });
  } finally {
    await t.close();
  }
}

/** Both storages: files in a temporary directory, and a real S3-protocol server (s3rver). */
const STORAGES = [
  {
    name: "files",
    async open() {
      const dir = await Deno.makeTempDir({ prefix: "stave-stream-" });
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
  Deno.test(`admin upload (${name}): storage takes the file while the body is still arriving; memory never holds more than a head and a part (MED-013)`, async () => {
    const { storage, close } = await open();
    try {
      const { seen, wrapped } = countingStorage(storage);
      // Larger than one S3 part, so the S3 store goes through a multipart upload.
      const size = 20 * MiB;
      await withAdmin(wrapped, 100_000_000, async (f) => {
        const { body, watch } = formBody(
          [["_csrf", f.csrf], ["action", "upload"]],
          { name: "big.bin", size },
          () => seen.bytes,
        );
        const res = await f.post(body);
        equal(res.status, 201, await res.clone().text());
        const answer = await res.json();
        equal(answer.item.byte_length, size);
        equal(answer.item.kind, "file");
        ok(watch.finished);
        // Before the last chunk was even offered, storage had taken all but the pipeline's slack.
        ok(
          watch.storedBeforeLast >= size - HEAD_BYTES - 2 * MiB,
          `storage had ${watch.storedBeforeLast} of ${size} bytes before the body ended`,
        );
        ok(
          watch.maxGap <= HEAD_BYTES + 2 * MiB,
          `up to ${watch.maxGap} bytes were in flight`,
        );
        equal(seen.streams, 1);
        const keys = await storedKeys(storage);
        equal(keys.length, 1);
        equal((await storage.stat(keys[0]))?.size, size);
        // The stored bytes are the sent bytes: digest and length agree with a re-read.
        const stream = await storage.read(keys[0]);
        let total = 0;
        for await (const chunk of stream!) total += chunk.length;
        equal(total, size);
      });
    } finally {
      await close();
    }
  });

  Deno.test(`admin upload (${name}): the plan limit is the last byte accepted; one more is media_too_large at that byte and leaves nothing stored (MED-013)`, async () => {
    const { storage, close } = await open();
    try {
      const { seen, wrapped } = countingStorage(storage);
      // Over one S3 part, so the refused upload has a multipart upload to abort.
      const limit = 9 * MiB + 7;
      await withAdmin(wrapped, limit, async (f) => {
        const over = formBody(
          [["_csrf", f.csrf], ["action", "upload"]],
          { name: "over.bin", size: limit + 4 * MiB },
          () => seen.bytes,
        );
        const refused = await f.post(over.body);
        equal(refused.status, 413);
        const error = (await refused.json()).error;
        equal(error.code, "media_too_large");
        equal(error.limit_bytes, limit);
        // Storage took at most the limit: the byte over it was never written.
        ok(seen.bytes <= limit, `storage took ${seen.bytes} bytes`);
        ok(!over.watch.finished, "the rest of the body was not read");
        deepEqual(await storedKeys(storage), []);
        equal(await f.rows(), 0);

        seen.bytes = 0;
        const oneOver = formBody(
          [["_csrf", f.csrf], ["action", "upload"]],
          { name: "edge.bin", size: limit + 1 },
          () => seen.bytes,
        );
        const refusedEdge = await f.post(oneOver.body);
        equal(refusedEdge.status, 413);
        equal((await refusedEdge.json()).error.code, "media_too_large");
        deepEqual(await storedKeys(storage), []);
        equal(await f.rows(), 0);

        const edge = formBody(
          [["_csrf", f.csrf], ["action", "upload"]],
          { name: "edge.bin", size: limit },
          () => seen.bytes,
        );
        const accepted = await f.post(edge.body);
        equal(accepted.status, 201, await accepted.clone().text());
        equal((await accepted.json()).item.byte_length, limit);
        const keys = await storedKeys(storage);
        equal(keys.length, 1);
        equal((await storage.stat(keys[0]))?.size, limit);
        equal(await f.rows(), 1);
      });
    } finally {
      await close();
    }
  });
}

Deno.test("admin upload: a program is refused from the first bytes of the stream, before storage is asked to write and before the body is read (MED-006)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stave-stream-" });
  try {
    const { seen, wrapped } = countingStorage(new FileStorage(dir));
    await withAdmin(wrapped, 100_000_000, async (f) => {
      // An ELF header, then 40 MiB the server has no reason to read.
      const elf = new Uint8Array(64);
      elf.set([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01]);
      const { body, watch } = formBody(
        [["_csrf", f.csrf], ["action", "upload"]],
        { name: "photo.jpg", size: 40 * MiB, head: elf },
        () => seen.bytes,
      );
      const res = await f.post(body);
      equal(res.status, 422);
      equal((await res.json()).error.code, "executable_file");
      equal(seen.streams, 0);
      ok(
        watch.sent <= HEAD_BYTES + 2 * MiB,
        `read ${watch.sent} bytes of the file to refuse it`,
      );
      deepEqual(await storedKeys(new FileStorage(dir)), []);
      equal(await f.rows(), 0);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("admin upload: CSRF still holds on the streamed form: no token or a wrong one is 403 with nothing stored; the page script's header token is accepted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stave-stream-" });
  try {
    const { seen, wrapped } = countingStorage(new FileStorage(dir));
    await withAdmin(wrapped, 100_000_000, async (f) => {
      const none = formBody([["action", "upload"]], {
        name: "a.bin",
        size: 2 * MiB,
      }, () => seen.bytes);
      const refused = await f.post(none.body);
      equal(refused.status, 403);
      await refused.body?.cancel();

      const wrong = formBody(
        [["_csrf", "x".repeat(43)], ["action", "upload"]],
        {
          name: "a.bin",
          size: 2 * MiB,
        },
        () => seen.bytes,
      );
      const refusedWrong = await f.post(wrong.body);
      equal(refusedWrong.status, 403);
      await refusedWrong.body?.cancel();

      // A token in a header the form cannot have does not pass either when it is wrong.
      const wrongHeader = formBody([["action", "upload"]], {
        name: "a.bin",
        size: 1024,
      }, () => seen.bytes);
      const refusedHeader = await f.post(wrongHeader.body, {
        "x-csrf-token": "y".repeat(43),
      });
      equal(refusedHeader.status, 403);
      await refusedHeader.body?.cancel();
      equal(seen.streams, 0);
      deepEqual(await storedKeys(new FileStorage(dir)), []);
      equal(await f.rows(), 0);

      const viaHeader = formBody([["action", "upload"]], {
        name: "b.bin",
        size: 3 * MiB,
      }, () => seen.bytes);
      const accepted = await f.post(viaHeader.body, {
        "x-csrf-token": f.csrf,
      });
      equal(accepted.status, 201);
      equal(await f.rows(), 1);

      // A token sent after the file still counts (it is held until found), as any form may do.
      const late = formBody([["action", "upload"]], {
        name: "c.bin",
        size: 1024,
        head: new Uint8Array([9, 9, 9, 0]),
      }, () => seen.bytes);
      const lateBody = late.body.pipeThrough(appendField("_csrf", f.csrf));
      const lateAnswer = await f.post(lateBody);
      equal(lateAnswer.status, 201);
      equal(await f.rows(), 2);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Inserts a text field before a body's closing boundary. */
function appendField(name: string, value: string) {
  const closing = `\r\n--${BOUNDARY}--\r\n`;
  let held = new Uint8Array(0);
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const joined = new Uint8Array(held.length + chunk.length);
      joined.set(held);
      joined.set(chunk, held.length);
      const keep = Math.min(joined.length, closing.length);
      controller.enqueue(joined.subarray(0, joined.length - keep));
      held = joined.slice(joined.length - keep);
    },
    flush(controller) {
      const text = new TextDecoder().decode(held);
      equal(text, closing);
      controller.enqueue(
        enc.encode(
          `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}${closing}`,
        ),
      );
    },
  });
}

Deno.test("a multipart form of another route still reaches it whole after the CSRF check read up to its token (sign-in posted as multipart)", async () => {
  const { t, email } = await setupAdmin();
  try {
    const jar = new CookieJar();
    const form = await request(t, jar, "/admin/sign-in");
    const csrf = csrfField(await form.text());
    const body = new FormData();
    body.append("_csrf", csrf);
    body.append("email", email);
    // Fields behind the token come from the replayed body, not from what the check read.
    body.append("password", PASSWORD);
    body.append("padding", "p".repeat(60_000));
    const res = await t.app.request("/admin/sign-in", {
      method: "POST",
      headers: { host: HOST, cookie: jar.header() ?? "", accept: "text/html" },
      body,
    });
    jar.store(res);
    equal(res.status, 303);
    equal(res.headers.get("location"), "/admin");
    ok(jar.cookies.get("stave_session"));
  } finally {
    await t.close();
  }
});

Deno.test("upload-media on S3-compatible storage: the API's buffered file goes through the same store (a multipart upload past 8 MiB), and the site's limit holds at its edge with nothing left in the bucket (MED-005, MED-013, MED-014)", async () => {
  const s3 = await startTestS3();
  try {
    await withMediaApp(async (t) => {
      const size = 10 * MiB;
      const big = new Uint8Array(size).fill(3);
      big.set([0x01, 0x02, 0x03, 0x00]);
      const stored = await t.send("POST", "/media", {
        file: { bytes: big, name: "big.bin" },
      });
      equal(stored.status, 201);
      const keys = await storedKeys(s3.storage);
      equal(keys.length, 1);
      equal((await s3.storage.stat(keys[0]))?.size, size);

      const limit = 9 * MiB + 3;
      const put = await t.call("PUT", "/settings/media-files", {
        secret: t.media,
        key: crypto.randomUUID(),
        body: {
          expected_revision: 0,
          document: {
            enabled_kinds: ["image", "document", "file", "audio", "video"],
            max_upload_bytes: limit,
          },
        },
      });
      equal(put.status, 200);
      const over = await t.send("POST", "/media", {
        file: { bytes: big.subarray(0, limit + 1), name: "over.bin" },
      });
      equal(over.status, 413);
      const answer = await refusal(over);
      equal(answer.code, "media_too_large");
      equal(answer.limit_bytes, limit);
      const edge = new Uint8Array(limit).fill(4);
      edge.set([0x01, 0x02, 0x03, 0x00]);
      const accepted = await t.send("POST", "/media", {
        file: { bytes: edge, name: "edge.bin" },
      });
      equal(accepted.status, 201);
      equal((await accepted.json()).byte_length, limit);
      equal((await storedKeys(s3.storage)).length, 2);
    }, s3.storage);
  } finally {
    await s3.close();
  }
});

Deno.test("admin upload: a client that goes away halfway through a file leaves no object and no row; a form that cannot be split is 400", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stave-stream-" });
  try {
    const { seen, wrapped } = countingStorage(new FileStorage(dir));
    await withAdmin(wrapped, 100_000_000, async (f) => {
      const { body } = formBody(
        [["_csrf", f.csrf], ["action", "upload"]],
        { name: "cut.bin", size: 30 * MiB },
        () => seen.bytes,
      );
      let passed = 0;
      const cut = body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            passed += chunk.length;
            if (passed > 5 * MiB) {
              controller.error(new Error("client went away"));
            } else controller.enqueue(chunk);
          },
        }),
      );
      const res = await Promise.resolve(f.post(cut)).catch(() => null);
      ok(res === null || res.status >= 400);
      await res?.body?.cancel();
      ok(seen.bytes > 0, "the file had started to reach storage");
      deepEqual(await storedKeys(new FileStorage(dir)), []);
      equal(await f.rows(), 0);

      const unsplittable = await f.post(
        new Blob(["no parts here"]).stream(),
        {
          "content-type": "multipart/form-data",
          "x-csrf-token": f.csrf,
        },
      );
      equal(unsplittable.status, 400);
      await unsplittable.body?.cancel();
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
