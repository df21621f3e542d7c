import { equal, ok } from "node:assert/strict";
import sharp from "sharp";
import { detectHead } from "./detect.ts";
import { FileStorage } from "./file_storage.ts";
import { storedImageFacts } from "./placeholder.ts";
import type { MediaStorage } from "./storage.ts";
import type { WrittenFile } from "./write_checked.ts";

Deno.test("storedImageFacts() reads a local file by its path with sharp, never back through storage into memory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stave-facts-" });
  try {
    const files = new FileStorage(dir);
    const bytes = new Uint8Array(
      await sharp({
        create: {
          width: 640,
          height: 480,
          channels: 3,
          background: { r: 20, g: 120, b: 200 },
        },
      }).jpeg().toBuffer(),
    );
    const key = "sites/00000000-0000-4000-8000-000000000001/photo.jpg";
    await files.put(key, bytes, "image/jpeg");
    const detected = await detectHead(bytes);
    ok(detected.ok);
    const written: WrittenFile = {
      detected,
      digest: "",
      objectId: "photo",
      key,
      byteLength: bytes.length,
    };
    // Reading the object back would fail: the facts must come from the file's path.
    const noReads: MediaStorage = {
      kind: "files",
      put: (k, b, t) => files.put(k, b, t),
      putStream: (k, s, t) => files.putStream(k, s, t),
      read: () => Promise.reject(new Error("read back into memory")),
      stat: (k) => files.stat(k),
      delete: (k) => files.delete(k),
      list: (p) => files.list(p),
      localPath: (k) => files.localPath(k),
    };
    const facts = await storedImageFacts(
      { storage: noReads, imageLibrary: "sharp" },
      written,
      null,
    );
    equal(facts?.dominant_color, "#1878c8");
    ok((facts?.placeholder.length ?? 0) > 20);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
