// Where form attachments' bytes live: one small interface, a folder under DATA_DIR by default.
// The media library (branch `media`) was not on main when this was written; when its storage
// lands, an implementation of this interface over it replaces the folder (docs/forms.md).

/** Bytes of private attachments, addressed by keys the service makes; keys are never answered. */
export interface AttachmentStore {
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The bytes, or null when they are gone. */
  get(key: string): Promise<Uint8Array | null>;
  delete(key: string): Promise<void>;
}

const KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

/** Attachments as files under `root` (`<site id>/<attachment id>`). */
export function folderAttachmentStore(root: string): AttachmentStore {
  const path = (key: string) => {
    if (!KEY.test(key)) throw new Error(`Invalid attachment key "${key}"`);
    return `${root}/${key}`;
  };
  return {
    async put(key, bytes) {
      const file = path(key);
      await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), {
        recursive: true,
      });
      await Deno.writeFile(file, bytes, { mode: 0o600 });
    },
    async get(key) {
      try {
        return await Deno.readFile(path(key));
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return null;
        throw e;
      }
    },
    async delete(key) {
      try {
        await Deno.remove(path(key));
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    },
  };
}

/**
 * Attachments as objects of the media storage under `form-attachments/` (S3-compatible storage,
 * where a host has no disk of its own to keep them on, such as Deno Deploy). The media library
 * never lists that prefix: its keys are its own.
 */
export function storageAttachmentStore(storage: {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  read(key: string): Promise<ReadableStream<Uint8Array> | null>;
  delete(key: string): Promise<void>;
}): AttachmentStore {
  const keyOf = (key: string) => {
    if (!KEY.test(key)) throw new Error(`Invalid attachment key "${key}"`);
    return `form-attachments/${key}`;
  };
  return {
    put: (key, bytes) =>
      storage.put(keyOf(key), bytes, "application/octet-stream"),
    async get(key) {
      const stream = await storage.read(keyOf(key));
      if (!stream) return null;
      return new Uint8Array(await new Response(stream).arrayBuffer());
    },
    delete: (key) => storage.delete(keyOf(key)),
  };
}
