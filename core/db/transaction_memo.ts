// Reads kept for the length of one transaction: an entry command reads its model and its
// settings documents from several steps, and one read serves them all (and all see the same
// row). Outside a transaction nothing is kept. Writers of what was read call forget().

import type { Db } from "./database.ts";

/** A per-transaction cache of reads, keyed by the transaction's own handle. */
export interface TransactionMemo<T> {
  /** `read()` once per transaction and `key`; every call outside a transaction reads. */
  once(db: Db, key: string, read: () => Promise<T>): Promise<T>;
  /** Forgets what this transaction read: call after writing what was read. */
  forget(db: Db): void;
  /** Whether this transaction already holds (or is reading) `key`. */
  holds(db: Db, key: string): boolean;
  /** Keeps `value`, read by a statement that also read other things, unless `key` is held. */
  keep(db: Db, key: string, value: T): void;
}

/** A new, empty memo; a failed read is not kept. */
export function transactionMemo<T>(): TransactionMemo<T> {
  const kept = new WeakMap<Db, Map<string, Promise<T>>>();
  return {
    once(db, key, read) {
      if (!db.isTransaction) return read();
      let reads = kept.get(db);
      if (!reads) kept.set(db, reads = new Map());
      let found = reads.get(key);
      if (!found) {
        const inThis = reads;
        found = read();
        inThis.set(key, found);
        found.catch(() => inThis.delete(key));
      }
      return found;
    },
    forget(db) {
      kept.delete(db);
    },
    holds(db, key) {
      return db.isTransaction && (kept.get(db)?.has(key) ?? false);
    },
    keep(db, key, value) {
      if (!db.isTransaction) return;
      let reads = kept.get(db);
      if (!reads) kept.set(db, reads = new Map());
      if (!reads.has(key)) reads.set(key, Promise.resolve(value));
    },
  };
}
