// `deno run -A --unstable-kv bench/memory.ts <database url> <path> [concurrency] [seconds]`: where
// the service's memory goes under load. Serves the app against a database an earlier bench run
// kept (BENCH_KEEP=1, or the side-by-side harness's `stave_bench`), as bench/alloc.ts does, and
// prints, idle, after `wrk` loaded one path and again after a full collection: the process's
// resident memory split into anonymous and file-backed pages (`/proc/<pid>/smaps_rollup`), the
// size of each of V8's heap spaces, and the anonymous memory outside V8's heap. The service runs
// with this process's environment: `PUBLIC_ANSWER_CACHE_MB=0` measures computed answers. It runs
// with the V8 settings of `deno task start`; `BENCH_V8_FLAGS` tries others (docs/benchmarks.md,
// "Memory"). Needs `wrk`.
import { connectInspector } from "./inspector.ts";
import { runWrk } from "./load.ts";
import { serviceV8Flags, startService } from "./service.ts";

const [url, path, concurrency = "32", seconds = "20"] = Deno.args;
if (!url || !path) {
  console.error(
    "usage: deno run -A --unstable-kv bench/memory.ts <database url> <path> [concurrency] [seconds]",
  );
  Deno.exit(2);
}

const MIB = 1024 * 1024;
const INSPECT_PORT = 9331;
const server = await startService(url, {}, { inspectPort: INSPECT_PORT });
const inspector = await connectInspector(INSPECT_PORT);

/** Evaluates `expression` in the service and answers its JSON value. */
async function evaluate<T>(expression: string): Promise<T> {
  const answer = await inspector.call("Runtime.evaluate", {
    expression,
    awaitPromise: true,
    returnByValue: true,
  }) as { result: { value: string } };
  return JSON.parse(answer.result.value) as T;
}

/** Prints the service's memory, labelled. */
async function report(label: string): Promise<void> {
  const rollup = await Deno.readTextFile(`/proc/${server.pid}/smaps_rollup`);
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(rollup)?.[1] ?? 0);
  const rss = kib("Rss") * 1024;
  const anonymous = kib("Anonymous") * 1024;
  const heap = await evaluate<{ spaces: [string, number][]; external: number }>(
    `import("node:v8").then((v8) => JSON.stringify({
      spaces: v8.getHeapSpaceStatistics().filter((s) => s.space_size > 0)
        .map((s) => [s.space_name, s.space_size]),
      external: Deno.memoryUsage().external,
    }))`,
  );
  const heapTotal = heap.spaces.reduce((sum, [, size]) => sum + size, 0);
  const mib = (bytes: number) => (bytes / MIB).toFixed(0);
  console.log(
    `${label}: RSS ${mib(rss)} MiB = anonymous ${
      mib(anonymous)
    } + file-backed ${mib(rss - anonymous)}; V8 heap ${mib(heapTotal)} MiB (${
      heap.spaces.map(([name, size]) =>
        `${name.replace(/_space$/, "")} ${mib(size)}`
      ).join(", ")
    }); anonymous outside the heap about ${
      mib(anonymous - heapTotal)
    } MiB; external ${mib(heap.external)} MiB`,
  );
}

try {
  console.log(`V8 settings: ${serviceV8Flags() || "V8's defaults"}`);
  await report("idle");
  const load = await runWrk(
    server.origin,
    [path],
    Number(concurrency),
    Number(seconds),
  );
  console.log(
    `${load.requests} requests at concurrency ${concurrency} in ${seconds} s`,
  );
  await report("after the load");
  await inspector.call("HeapProfiler.collectGarbage");
  await report("after a full collection");
} finally {
  inspector.close();
  await server.stop();
}
