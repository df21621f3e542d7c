// `deno run -A --unstable-kv bench/alloc.ts <database url> <path> [concurrency] [seconds]`: serves
// the app against a database an earlier bench run kept (BENCH_KEEP=1, or the side-by-side
// harness's `stave_bench`), loads one path with `wrk` while V8's sampling heap profiler runs in
// the service (through its inspector), and prints the bytes allocated per request, in all and by
// the function that allocated them. Garbage per answer is what sizes the young generation and
// what a collection has to sweep: the figure to watch when working on memory under load
// (docs/benchmarks.md, "Memory of public reads"). Needs `wrk`.
import { connectInspector } from "./inspector.ts";
import { runWrk } from "./load.ts";
import { startService } from "./service.ts";

const [url, path, concurrency = "32", seconds = "10"] = Deno.args;
if (!url || !path) {
  console.error(
    "usage: deno run -A --unstable-kv bench/alloc.ts <database url> <path> [concurrency] [seconds]",
  );
  Deno.exit(2);
}

/** A node of V8's sampling heap profile (the inspector's `SamplingHeapProfileNode`). */
interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const INSPECT_PORT = 9329;
const server = await startService(url, {}, { inspectPort: INSPECT_PORT });
const inspector = await connectInspector(INSPECT_PORT);
try {
  await runWrk(server.origin, [path], 4, 2); // warm-up: prepared statements, JIT
  await inspector.call("HeapProfiler.enable");
  // Every allocation counts, also those a collection has since freed: the garbage is the point.
  await inspector.call("HeapProfiler.startSampling", {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  const load = await runWrk(
    server.origin,
    [path],
    Number(concurrency),
    Number(seconds),
  );
  const { profile } = await inspector.call("HeapProfiler.stopSampling") as {
    profile: { head: ProfileNode };
  };
  const requests = load.requests;
  if (requests === 0) throw new Error("wrk made no request");
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || "(anonymous)"} ${
      url.split("/").slice(-2).join("/")
    }:${lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(walk);
  };
  walk(profile.head);
  console.log(
    `${requests} requests; about ${
      Math.round(total / requests)
    } bytes allocated per request (sampled every 1 KB)`,
  );
  const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 30);
  for (const [site, bytes] of top) {
    console.log(
      `${String(Math.round(bytes / requests)).padStart(8)} B  ${site}`,
    );
  }
} finally {
  inspector.close();
  await server.stop();
}
