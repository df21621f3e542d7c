// A Deno KV file several plugin processes share: every operation is retried while SQLite reports
// the file busy (Deno KV on a local file answers "database is locked" at once instead of waiting).
// The service keeps the same wrapper in core/kv/shared_file.ts; a plugin never imports the
// service, so plugin authors get their own copy here.

/** A source of the current time, for the retry deadline. */
export interface Clock {
  now(): Date;
}

const systemClock: Clock = { now: () => new Date() };

/** How long one operation keeps retrying a busy file before the error is thrown. */
export const SHARED_KV_PATIENCE_MS = 5_000;

/** True for SQLite's "another connection holds the write lock" errors. */
export function isBusyError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /database is locked|database table is locked|SQLITE_BUSY/i.test(
    message,
  );
}

/** Runs `operation`, retrying with growing jittered pauses while the file is busy. */
export async function retryWhileBusy<T>(
  operation: () => Promise<T>,
  clock: Clock = systemClock,
): Promise<T> {
  const deadline = clock.now().getTime() + SHARED_KV_PATIENCE_MS;
  for (let attempt = 0;; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!isBusyError(error) || clock.now().getTime() >= deadline) throw error;
      const pause = Math.min(100, 2 ** attempt) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/**
 * An atomic operation recorded as steps and built afresh for each try: a committed (or
 * failed) `Deno.AtomicOperation` cannot be committed again.
 */
class RetryingAtomic {
  #kv: Deno.Kv;
  #steps: ((op: Deno.AtomicOperation) => void)[] = [];

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  check(...checks: Deno.AtomicCheck[]): this {
    this.#steps.push((op) => op.check(...checks));
    return this;
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    this.#steps.push((op) => op.set(key, value, options));
    return this;
  }

  delete(key: Deno.KvKey): this {
    this.#steps.push((op) => op.delete(key));
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    this.#steps.push((op) => op.sum(key, n));
    return this;
  }

  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return retryWhileBusy(() => {
      const op = this.#kv.atomic();
      for (const step of this.#steps) step(op);
      return op.commit();
    });
  }
}

/**
 * The parts of `Deno.Kv` a plugin usually needs (get, getMany, set, delete, list, atomic),
 * each retried while another process holds the file's write lock.
 */
export class SharedKvFile {
  #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  get<T = unknown>(
    key: Deno.KvKey,
    options?: { consistency?: Deno.KvConsistencyLevel },
  ): Promise<Deno.KvEntryMaybe<T>> {
    return retryWhileBusy(() => this.#kv.get<T>(key, options));
  }

  getMany<T extends readonly unknown[]>(
    keys: readonly [...{ [K in keyof T]: Deno.KvKey }],
    options?: { consistency?: Deno.KvConsistencyLevel },
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }> {
    return retryWhileBusy(() => this.#kv.getMany<T>(keys, options));
  }

  set(
    key: Deno.KvKey,
    value: unknown,
    options?: { expireIn?: number },
  ): Promise<Deno.KvCommitResult> {
    return retryWhileBusy(() => this.#kv.set(key, value, options));
  }

  delete(key: Deno.KvKey): Promise<void> {
    return retryWhileBusy(() => this.#kv.delete(key));
  }

  /** Lists entries; a busy file is retried for the first page only (reads rarely lock). */
  list<T = unknown>(
    selector: Deno.KvListSelector,
    options?: Deno.KvListOptions,
  ): Deno.KvListIterator<T> {
    return this.#kv.list<T>(selector, options);
  }

  atomic(): Deno.AtomicOperation {
    return new RetryingAtomic(this.#kv) as unknown as Deno.AtomicOperation;
  }

  close(): void {
    this.#kv.close();
  }
}

/** Opens a KV file that several processes may share, as a `Deno.Kv`. */
export async function openSharedKv(path: string): Promise<Deno.Kv> {
  return new SharedKvFile(await Deno.openKv(path)) as unknown as Deno.Kv;
}
