// Deno KV with telemetry: each operation a short client span and a count (`stave.kv.operations`).
// Used only with OpenTelemetry on; off, the store is used as opened.
import { inSpan, kvOperations, SpanKind } from "./mod.ts";

/** The parts of `Deno.Kv` the service uses, each counted and traced; the rest as `kv` has them. */
export function instrumentKv(kv: Deno.Kv): Deno.Kv {
  return new TracedKv(kv) as unknown as Deno.Kv;
}

function traced<T>(operation: string, run: () => Promise<T>): Promise<T> {
  return inSpan(
    `kv ${operation}`,
    { "db.system.name": "deno_kv", "db.operation.name": operation },
    async (span) => {
      try {
        const result = await run();
        kvOperations.add(1, { operation, outcome: "ok" });
        return result;
      } catch (error) {
        kvOperations.add(1, { operation, outcome: "error" });
        span.setAttribute("error.type", (error as Error)?.name ?? "Error");
        throw error;
      }
    },
    SpanKind.CLIENT,
  );
}

class TracedKv {
  #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  get<T = unknown>(
    key: Deno.KvKey,
    options?: { consistency?: Deno.KvConsistencyLevel },
  ): Promise<Deno.KvEntryMaybe<T>> {
    return traced("get", () => this.#kv.get<T>(key, options));
  }

  getMany<T extends readonly unknown[]>(
    keys: readonly [...{ [K in keyof T]: Deno.KvKey }],
    options?: { consistency?: Deno.KvConsistencyLevel },
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }> {
    return traced("get_many", () => this.#kv.getMany<T>(keys, options));
  }

  set(
    key: Deno.KvKey,
    value: unknown,
    options?: { expireIn?: number },
  ): Promise<Deno.KvCommitResult> {
    return traced("set", () => this.#kv.set(key, value, options));
  }

  delete(key: Deno.KvKey): Promise<void> {
    return traced("delete", () => this.#kv.delete(key));
  }

  list<T = unknown>(
    selector: Deno.KvListSelector,
    options?: Deno.KvListOptions,
  ): Deno.KvListIterator<T> {
    kvOperations.add(1, { operation: "list", outcome: "ok" });
    return this.#kv.list<T>(selector, options);
  }

  atomic(): Deno.AtomicOperation {
    const op = this.#kv.atomic();
    const commit = op.commit.bind(op);
    op.commit = () => traced("commit", commit);
    return op;
  }

  close(): void {
    this.#kv.close();
  }
}
