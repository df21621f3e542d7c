// Media storage in files under one directory (the embedded default, `DATA_DIR/media`).
import {
  assertStorageKey,
  type ByteRange,
  type MediaStorage,
  type StoredObject,
} from "./storage.ts";

/** Suffix of a file being written; a crash mid-write leaves one, which the orphan sweep removes. */
const PARTIAL = ".partial-";

/** Files under `root`; each key is a relative path. Writes go to a partial file renamed into place. */
export class FileStorage implements MediaStorage {
  readonly kind = "files" as const;
  readonly #root: string;

  constructor(root: string) {
    this.#root = root.replace(/\/$/, "");
  }

  /** Where the object lives on disk, for a library that reads a file itself. */
  localPath(key: string): string {
    return this.#path(key);
  }

  #path(key: string): string {
    assertStorageKey(key);
    return `${this.#root}/${key}`;
  }

  async put(key: string, bytes: Uint8Array, _contentType: string) {
    const path = this.#path(key);
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const partial = `${path}${PARTIAL}${crypto.randomUUID()}`;
    try {
      await Deno.writeFile(partial, bytes);
      await Deno.rename(partial, path);
    } catch (error) {
      await Deno.remove(partial).catch(() => {});
      throw error;
    }
  }

  async putStream(
    key: string,
    stream: ReadableStream<Uint8Array>,
    _contentType: string,
  ) {
    const path = this.#path(key);
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    const partial = `${path}${PARTIAL}${crypto.randomUUID()}`;
    try {
      const file = await Deno.open(partial, { write: true, createNew: true });
      // pipeTo closes the file at the end and aborts it when the stream errors.
      await stream.pipeTo(file.writable);
      await Deno.rename(partial, path);
    } catch (error) {
      await Deno.remove(partial).catch(() => {});
      throw error;
    }
  }

  async read(key: string, range?: ByteRange) {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.#path(key), { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
    if (!range) return file.readable;
    await file.seek(range.start, Deno.SeekMode.Start);
    let left = range.end - range.start + 1;
    const reader = file.readable.getReader();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done || left <= 0) {
          controller.close();
          reader.cancel().catch(() => {});
          return;
        }
        const chunk = value.length > left ? value.subarray(0, left) : value;
        left -= chunk.length;
        controller.enqueue(chunk);
        if (left <= 0) {
          controller.close();
          reader.cancel().catch(() => {});
        }
      },
      cancel() {
        return reader.cancel();
      },
    });
  }

  async stat(key: string) {
    try {
      const info = await Deno.stat(this.#path(key));
      return info.isFile ? { size: info.size } : null;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  }

  async delete(key: string) {
    try {
      await Deno.remove(this.#path(key));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const found: StoredObject[] = [];
    await walk(this.#root, "", found);
    found.sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
    for (const object of found) {
      if (object.key.startsWith(prefix)) yield object;
    }
  }
}

async function walk(root: string, rel: string, into: StoredObject[]) {
  let entries: AsyncIterable<Deno.DirEntry>;
  try {
    entries = Deno.readDir(rel ? `${root}/${rel}` : root);
    for await (const entry of entries) {
      const key = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory) await walk(root, key, into);
      else if (entry.isFile) {
        const info = await Deno.stat(`${root}/${key}`);
        into.push({
          key,
          size: info.size,
          lastModified: info.mtime ?? new Date(0),
        });
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
