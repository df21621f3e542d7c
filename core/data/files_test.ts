// Job files in parts: appends fill the last part to 1 MiB first; pages read one part each with
// the right offsets; digests are of the whole file (IMP-007 byte ranges).
import assert from "node:assert/strict";
import { openTestDb } from "../../tests/support/db.ts";
import {
  appendToFile,
  digestFile,
  PAGE_BYTES,
  pageOfBytes,
  readPage,
} from "./files.ts";

Deno.test("appendToFile keeps 1 MiB parts; readPage answers each page with offsets, next page and the whole SHA-256", async () => {
  const { db, close } = await openTestDb();
  try {
    const site = crypto.randomUUID();
    await db.insertInto("sites").values({
      id: site,
      slug: "files",
      name: "files",
      domain: "files.test",
      created_at: new Date(),
    }).execute();
    const job = crypto.randomUUID();
    await db.insertInto("data_jobs").values({
      id: job,
      site_id: site,
      kind: "export",
      state: "building",
      position: 0,
      cursor: "{}",
      options: "{}",
      counts: "{}",
      problems: "[]",
      created_by: "{}",
      created_at: new Date(),
      updated_at: new Date(),
    }).execute();
    const whole = new Uint8Array(PAGE_BYTES + 10).map((_, i) => i % 251);
    await appendToFile(db, job, "export", whole.subarray(0, 7));
    await appendToFile(db, job, "export", whole.subarray(7, PAGE_BYTES + 3));
    await appendToFile(db, job, "export", whole.subarray(PAGE_BYTES + 3));
    const file = await digestFile(db, job, "export");
    assert.equal(file.bytes, PAGE_BYTES + 10);
    assert.equal(file.parts, 2);
    const info = {
      total: file.bytes,
      sha256: file.sha256,
      contentType: "application/x-ndjson",
    };
    const first = await readPage(db, job, "export", 1, info);
    assert.equal(first?.length, PAGE_BYTES);
    assert.equal(first?.offset, 0);
    assert.equal(first?.next_offset, PAGE_BYTES);
    assert.equal(first?.next_page, 2);
    const last = await readPage(db, job, "export", 2, info);
    assert.equal(last?.length, 10);
    assert.equal(last?.offset, PAGE_BYTES);
    assert.equal(last?.next_offset, null);
    assert.equal(last?.next_page, null);
    const joined = Uint8Array.from(
      atob(first!.content_base64 + "").split("").map((c) => c.charCodeAt(0))
        .concat(
          atob(last!.content_base64).split("").map((c) => c.charCodeAt(0)),
        ),
    );
    assert.deepEqual(joined, whole);
    assert.equal(await readPage(db, job, "export", 3, info), null);
    const empty = await pageOfBytes(
      new Uint8Array(),
      1,
      "application/x-ndjson",
    );
    assert.equal(empty?.length, 0);
    assert.equal(empty?.next_page, null);
    assert.equal(await pageOfBytes(new Uint8Array(), 2, "text/plain"), null);
  } finally {
    await close();
  }
});
