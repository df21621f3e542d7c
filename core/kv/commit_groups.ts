// Group commit for Deno KV: atomic operations that wait while another commit runs go in one commit.

/** One atomic operation as data, so it can be committed alone or beside others. */
export interface PlannedAtomic {
  checks: Deno.AtomicCheck[];
  mutations: Deno.KvMutation[];
}

/** Commits the operations of `group` as one atomic operation. */
export type CommitAll = (
  group: readonly PlannedAtomic[],
) => Promise<Deno.KvCommitResult | Deno.KvCommitError>;

/** Most operations one commit carries. */
export const MAX_GROUP_OPERATIONS = 32;
// Deno KV refuses a commit of more than 100 checks, 1,000 mutations, 800 KiB of mutations (keys
// and values) or 80 KiB of mutated keys; a group stays well inside, and an operation that alone
// comes near goes alone.
const MAX_GROUP_CHECKS = 64;
const MAX_GROUP_MUTATIONS = 512;
const MAX_GROUP_BYTES = 256 * 1024;
const MAX_GROUP_KEY_BYTES = 40 * 1024;

interface Waiting {
  op: PlannedAtomic;
  /** Measured only once the operation may share a commit: one that commits alone never is. */
  size: Size | null;
  resolve: (result: Deno.KvCommitResult | Deno.KvCommitError) => void;
  reject: (error: unknown) => void;
}

/** What an operation brings to a group. */
interface Size {
  keys: string[];
  /** An upper guess of its mutations' stored size, keys and values. */
  bytes: number;
  /** An upper guess of its mutated keys' encoded size. */
  keyBytes: number;
}

/**
 * Commits atomic operations one group at a time. An operation that arrives while no commit runs
 * is committed at once, alone; those that arrive while one runs wait for it and then go together
 * in the next commit. On a KV file each commit is a SQLite transaction with its `fsync`, whose
 * cost hardly grows with its size (4,000 commits of one claim: 129 us of CPU each alone, 39 us
 * each four to a commit), so under concurrent writes the grouped commits cost a fraction.
 *
 * Each operation keeps its own all-or-nothing meaning: operations that share a key never go in
 * one group (the later waits, in arrival order, for the next), so no operation's check can pass
 * against a value another in its group replaces. When a grouped commit fails a check or throws,
 * its operations are committed again each on its own, so each gets its own answer or error.
 */
export class CommitGroups {
  #commitAll: CommitAll;
  #waiting: Waiting[] = [];
  #running = false;

  constructor(commitAll: CommitAll) {
    this.#commitAll = commitAll;
  }

  /** Commits `op` alone or in a group; answers as `Deno.AtomicOperation.commit()` would. */
  commit(op: PlannedAtomic): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ op, size: null, resolve, reject });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#waiting.length > 0) await this.#run(this.#takeGroup());
    } finally {
      this.#running = false;
    }
  }

  /** Takes the next group from the queue, in arrival order, leaving what must wait. */
  #takeGroup(): Waiting[] {
    if (this.#waiting.length === 1) {
      const alone = this.#waiting;
      this.#waiting = [];
      return alone;
    }
    const group: Waiting[] = [];
    const left: Waiting[] = [];
    // Keys of the group and of every operation left behind: a later operation on one of them
    // waits too, so operations on one key commit in the order they arrived.
    const taken = new Set<string>();
    let checks = 0, mutations = 0, bytes = 0, keyBytes = 0;
    for (const waiting of this.#waiting) {
      const { op } = waiting;
      const size = waiting.size ??= sizeOf(op);
      const fits = group.length === 0 || (
        group.length < MAX_GROUP_OPERATIONS &&
        checks + op.checks.length <= MAX_GROUP_CHECKS &&
        mutations + op.mutations.length <= MAX_GROUP_MUTATIONS &&
        bytes + size.bytes <= MAX_GROUP_BYTES &&
        keyBytes + size.keyBytes <= MAX_GROUP_KEY_BYTES &&
        !size.keys.some((key) => taken.has(key))
      );
      for (const key of size.keys) taken.add(key);
      if (!fits) {
        left.push(waiting);
        continue;
      }
      group.push(waiting);
      checks += op.checks.length;
      mutations += op.mutations.length;
      bytes += size.bytes;
      keyBytes += size.keyBytes;
    }
    this.#waiting = left;
    return group;
  }

  async #run(group: Waiting[]): Promise<void> {
    if (group.length > 1) {
      try {
        const result = await this.#commitAll(group.map((w) => w.op));
        if (result.ok) {
          for (const waiting of group) waiting.resolve(result);
          return;
        }
      } catch {
        // One operation's error (a value too large, say) is reported to it alone, below.
      }
    }
    // Side by side, not one after another: the operations share no key, and each keeps the wait
    // its own commit would have had (a file locked by another process costs each its own patience
    // once, not the whole group's in turn).
    await Promise.all(group.map(async (waiting) => {
      try {
        waiting.resolve(await this.#commitAll([waiting.op]));
      } catch (error) {
        waiting.reject(error);
      }
    }));
  }
}

/** Builds one `Deno.AtomicOperation` from `group` on `kv`, uncommitted. */
export function atomicOf(
  kv: Deno.Kv,
  group: readonly PlannedAtomic[],
): Deno.AtomicOperation {
  const atomic = kv.atomic();
  for (const op of group) atomic.check(...op.checks).mutate(...op.mutations);
  return atomic;
}

function sizeOf(op: PlannedAtomic): Size {
  const keys = [
    ...op.checks.map((c) => c.key),
    ...op.mutations.map((m) => m.key),
  ].map(keyText);
  let bytes = 0, keyBytes = 0;
  for (const mutation of op.mutations) {
    const key = roughKeyBytes(mutation.key);
    keyBytes += key;
    bytes += key + roughBytes("value" in mutation ? mutation.value : null);
  }
  return { keys, bytes, keyBytes };
}

/** An upper guess of a key's encoded size: each part's bytes, escapes and tag. */
function roughKeyBytes(key: Deno.KvKey): number {
  let sum = 0;
  for (const part of key) {
    if (typeof part === "string") sum += encodedBytes(part) + 2;
    else if (part instanceof Uint8Array) sum += 2 * part.byteLength + 2;
    else sum += 18;
  }
  return sum;
}

/** A string's UTF-8 bytes, a zero byte counted twice as the key's encoding escapes it. */
function encodedBytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A surrogate is half of a four-byte character.
    bytes += unit === 0 || unit >= 0xd800 && unit < 0xe000
      ? 2
      : unit < 0x80
      ? 1
      : unit < 0x800
      ? 2
      : 3;
  }
  return bytes;
}

/** A key as text that tells any two different keys apart (part types included). */
function keyText(key: Deno.KvKey): string {
  return JSON.stringify(
    key.map((part) =>
      part instanceof Uint8Array
        ? ["u8", Array.from(part)]
        : [typeof part, typeof part === "bigint" ? String(part) : part]
    ),
  );
}

/** An upper guess of a value's stored size, to keep a group under the commit's byte limit. */
function roughBytes(value: unknown): number {
  if (value === null || value === undefined) return 1;
  if (typeof value === "string") return 3 * value.length + 8;
  if (value instanceof Uint8Array) return value.byteLength + 8;
  if (ArrayBuffer.isView(value)) return value.byteLength + 8;
  if (typeof value !== "object") return 16;
  if (value instanceof Date) return 16;
  if (value instanceof Deno.KvU64) return 16;
  let sum = 8;
  if (Array.isArray(value)) {
    for (const item of value) sum += roughBytes(item);
    return sum;
  }
  if (value instanceof Map) {
    for (const [k, v] of value) sum += roughBytes(k) + roughBytes(v);
    return sum;
  }
  if (value instanceof Set) {
    for (const item of value) sum += roughBytes(item);
    return sum;
  }
  for (const [k, v] of Object.entries(value)) {
    sum += roughBytes(k) + roughBytes(v);
  }
  return sum;
}
