// A KV file several processes share: every operation is retried while SQLite reports the file busy,
// and concurrent atomic operations share commits.
import { type Clock, systemClock } from "../clock.ts";
import { atomicOf, CommitGroups, type PlannedAtomic } from "./commit_groups.ts";

/** How long one operation keeps retrying a busy file before the error is thrown. */
export const SHARED_KV_PATIENCE_MS = 5_000;

/**
 * True for SQLite's "another connection holds the write lock" errors. Deno KV on a local
 * file answers them at once instead of waiting, so two service processes writing the same
 * file (docs/deploy.md) would otherwise fail requests with 500.
 */
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
 * An atomic operation recorded as data and committed through the store's {@linkcode CommitGroups}:
 * each try builds a fresh `Deno.AtomicOperation`, since a committed (or failed) one cannot be
 * committed again, and concurrent operations share one commit.
 */
class GroupedAtomic {
  #groups: CommitGroups;
  #planned: PlannedAtomic = { checks: [], mutations: [] };

  constructor(groups: CommitGroups) {
    this.#groups = groups;
  }

  check(...checks: Deno.AtomicCheck[]): this {
    this.#planned.checks.push(...checks);
    return this;
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    this.#planned.mutations.push({
      type: "set",
      key,
      value,
      ...(options?.expireIn === undefined
        ? {}
        : { expireIn: options.expireIn }),
    });
    return this;
  }

  delete(key: Deno.KvKey): this {
    this.#planned.mutations.push({ type: "delete", key });
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    this.#planned.mutations.push({
      type: "sum",
      key,
      value: new Deno.KvU64(n),
    });
    return this;
  }

  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return this.#groups.commit(this.#planned);
  }
}

/**
 * The parts of `Deno.Kv` the service uses (get, getMany, set, delete, list, atomic), each
 * retried while another process holds the file's write lock. Listed explicitly, not proxied,
 * so a store that starts using another method fails type checks here first.
 */
export class SharedKvFile {
  #kv: Deno.Kv;
  #groups: CommitGroups;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
    this.#groups = new CommitGroups((group) =>
      retryWhileBusy(() => atomicOf(kv, group).commit())
    );
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
    return new GroupedAtomic(this.#groups) as unknown as Deno.AtomicOperation;
  }

  close(): void {
    this.#kv.close();
  }
}
