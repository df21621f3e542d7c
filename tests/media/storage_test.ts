// Both media storage backends against the same contract: files in a directory and a real S3-protocol server.
import { deepEqual, equal, rejects } from "node:assert/strict";
import { FileStorage } from "../../core/media/file_storage.ts";
import { S3Storage } from "../../core/media/s3_storage.ts";
import {
  type MediaStorage,
  StorageUnavailable,
} from "../../core/media/storage.ts";
import { startTestS3, storedKeys } from "../support/s3.ts";

async function text(stream: ReadableStream<Uint8Array> | null) {
  if (!stream) return null;
  return await new Response(stream).text();
}

async function contract(storage: MediaStorage) {
  const bytes = new TextEncoder().encode("0123456789abcdef");
  await storage.put("sites/s1/a.bin", bytes, "application/octet-stream");
  await storage.put("sites/s1/b/c.bin", bytes.subarray(0, 4), "image/png");
  await storage.put("sites/s2/d.bin", bytes, "image/png");
  equal(await text(await storage.read("sites/s1/a.bin")), "0123456789abcdef");
  equal(
    await text(await storage.read("sites/s1/a.bin", { start: 2, end: 5 })),
    "2345",
  );
  equal(
    await text(await storage.read("sites/s1/a.bin", { start: 15, end: 15 })),
    "f",
  );
  deepEqual(await storage.stat("sites/s1/a.bin"), { size: 16 });
  equal(await storage.stat("sites/s1/none.bin"), null);
  equal(await storage.read("sites/s1/none.bin"), null);
  const listed = [];
  for await (const o of storage.list("sites/s1/")) listed.push([o.key, o.size]);
  deepEqual(listed, [["sites/s1/a.bin", 16], ["sites/s1/b/c.bin", 4]]);
  await storage.delete("sites/s1/a.bin");
  await storage.delete("sites/s1/a.bin"); // missing is not an error
  deepEqual(await storedKeys(storage), ["sites/s1/b/c.bin", "sites/s2/d.bin"]);
  await rejects(() => storage.put("../x", bytes, "image/png"), /storage key/);
}

Deno.test("FileStorage keeps, reads ranges of, lists and deletes objects", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await contract(new FileStorage(`${dir}/media`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("S3Storage keeps, reads ranges of, lists and deletes objects on a real S3-protocol server (s3rver)", async () => {
  const s3 = await startTestS3();
  try {
    await contract(s3.storage);
  } finally {
    await s3.close();
  }
});

Deno.test("S3Storage answers StorageUnavailable when storage cannot be reached", async () => {
  const s3 = await startTestS3();
  await s3.close();
  const gone = new S3Storage({
    endpoint: s3.endpoint,
    bucket: s3.bucket,
    region: "us-east-1",
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
  });
  await rejects(() => gone.delete("a.bin"), StorageUnavailable);
  await rejects(
    () => gone.put("a.bin", new Uint8Array([1]), "image/png"),
    StorageUnavailable,
  );
});
