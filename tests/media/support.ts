// Test support for the media routes: an app with a site, a media credential and storage in a temporary directory.
import { FileStorage } from "../../core/media/file_storage.ts";
import type { MediaStorage } from "../../core/media/storage.ts";
import { encodePng } from "../../core/media/png.ts";
import { BASE, type ManageFixture, openManageApp } from "../manage/helpers.ts";
import { storedKeys } from "../support/s3.ts";

/** A manage fixture whose media go to `storage`, with a credential holding media:write. */
export interface MediaFixture extends ManageFixture {
  storage: MediaStorage;
  media: string;
  /** Sends a multipart request: `file` (bytes and name, or several for a doubled part) and text parts. */
  send(
    method: string,
    path: string,
    parts: {
      file?: { bytes: Uint8Array; name: string } | {
        bytes: Uint8Array;
        name: string;
      }[];
      fields?: Record<string, string>;
    },
    key?: string,
  ): Promise<Response>;
  /** Every stored key. */
  keys(): Promise<string[]>;
}

/** Runs `fn` with a fresh media fixture on files in a temporary directory (or on `storage`). */
export async function withMediaApp(
  fn: (t: MediaFixture) => Promise<void>,
  storage?: MediaStorage,
): Promise<void> {
  const t = await openManageApp();
  const dir = await Deno.makeTempDir({ prefix: "stave-media-" });
  const store = storage ?? new FileStorage(`${dir}/media`);
  t.services.media = store;
  const { secret } = await t.credential([
    "content:read",
    "content:write",
    "media:write",
    "settings:write",
    "schema:write",
    "lifecycle:publish",
  ]);
  const fixture: MediaFixture = {
    ...t,
    storage: store,
    media: secret,
    send(method, path, parts, key = crypto.randomUUID()) {
      const form = new FormData();
      const files = parts.file === undefined
        ? []
        : Array.isArray(parts.file)
        ? parts.file
        : [parts.file];
      for (const f of files) {
        form.append(
          "file",
          new File([f.bytes as Uint8Array<ArrayBuffer>], f.name),
        );
      }
      for (const [k, v] of Object.entries(parts.fields ?? {})) {
        form.append(k, v);
      }
      return Promise.resolve(t.app.request(`${BASE}${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, "idempotency-key": key },
        body: form,
      }));
    },
    keys: () => storedKeys(store),
  };
  try {
    await fn(fixture);
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** A small PNG whose pixels depend on `seed`, so two seeds are two different files. */
export function png(seed = 1, width = 4, height = 3): Promise<Uint8Array> {
  return encodePng(width, height, (x, y) => [seed % 256, x * 40, y * 60]);
}

/** A storage that counts the bytes each streamed write has taken so far. */
export function countingStorage(storage: MediaStorage) {
  const seen = { bytes: 0, streams: 0 };
  const wrapped: MediaStorage = {
    kind: storage.kind,
    put: (key, bytes, type) => storage.put(key, bytes, type),
    putStream(key, stream, type) {
      seen.streams += 1;
      return storage.putStream(
        key,
        stream.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              seen.bytes += chunk.length;
              controller.enqueue(chunk);
            },
          }),
        ),
        type,
      );
    },
    read: (key, range) => storage.read(key, range),
    stat: (key) => storage.stat(key),
    delete: (key) => storage.delete(key),
    list: (prefix) => storage.list(prefix),
  };
  return { seen, wrapped };
}
