// The one small interface every media storage backend implements: put, read, stat, delete, list.

/** One stored object as a listing sees it. */
export interface StoredObject {
  key: string;
  size: number;
  lastModified: Date;
}

/** A byte range of an object, both ends inclusive (HTTP `Range` semantics). */
export interface ByteRange {
  start: number;
  end: number;
}

/** Where media bytes live. Keys are `/`-separated lowercase paths (see {@link isStorageKey}). */
export interface MediaStorage {
  /** `files` (under `DATA_DIR/media`) or `s3` (S3-compatible object storage). */
  readonly kind: "files" | "s3";
  /** Stores `bytes` under `key`; afterwards a reader sees all of them or the old object, never a part. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /**
   * Stores what `stream` yields under `key` while it arrives, holding at most one part of it
   * in memory. When the stream errors (a limit, a client gone) the error is thrown and nothing
   * is left under `key`; readers never see a part.
   */
  putStream(
    key: string,
    stream: ReadableStream<Uint8Array>,
    contentType: string,
  ): Promise<void>;
  /** The object's bytes (or one range of them), or null when there is no such object. */
  read(
    key: string,
    range?: ByteRange,
  ): Promise<ReadableStream<Uint8Array> | null>;
  /** The object's size, or null when there is no such object. */
  stat(key: string): Promise<{ size: number } | null>;
  /** Removes the object; a missing one is not an error. Throws {@link StorageUnavailable} when storage cannot be reached. */
  delete(key: string): Promise<void>;
  /** Every object whose key starts with `prefix`, in key order. */
  list(prefix: string): AsyncIterable<StoredObject>;
  /**
   * The object's path on this machine, when it is a local file a native library can read
   * itself (the image library reads placeholders that way instead of holding the file).
   */
  localPath?(key: string): string | null;
}

/** Thrown when storage cannot be reached or answers something unexpected (an outage, never a refusal). */
export class StorageUnavailable extends Error {
  override name = "StorageUnavailable";
}

const KEY = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/;

/** True for the keys the service writes: no `..`, no leading slash, lowercase ASCII. */
export function isStorageKey(key: string): boolean {
  return KEY.test(key) && !key.split("/").some((part) => part === "..");
}

/** Throws when `key` is not one the service would write (a bug, never user input). */
export function assertStorageKey(key: string): void {
  if (!isStorageKey(key)) {
    throw new Error(
      `Cannot use storage key "${key}": expected lowercase a-z0-9._- segments`,
    );
  }
}
