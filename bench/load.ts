// A small closed-loop load generator: N workers on 127.0.0.1, a bounded number of requests each.

/** Latency figures of one run. */
export interface RunStats {
  requests: number;
  seconds: number;
  rps: number;
  median_ms: number;
  p99_ms: number;
  errors: number;
}

/** Summarises latencies (ms) measured over `seconds`. */
export function stats(
  latencies: number[],
  seconds: number,
  errors: number,
): RunStats {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    requests: sorted.length,
    seconds: Number(seconds.toFixed(2)),
    rps: Math.round(sorted.length / seconds),
    median_ms: Number(at(0.5).toFixed(2)),
    p99_ms: Number(at(0.99).toFixed(2)),
    errors,
  };
}

/**
 * Runs `concurrency` workers, each calling `task(i)` `perWorker` times; a task answers false on
 * a wrong answer. Every loop is bounded; nothing leaves the machine.
 */
export async function runLoad(
  concurrency: number,
  perWorker: number,
  task: (i: number) => Promise<boolean>,
): Promise<RunStats> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async (_, w) => {
    for (let n = 0; n < perWorker; n++) {
      const t0 = performance.now();
      const ok = await task(w * perWorker + n);
      latencies.push(performance.now() - t0);
      if (!ok) errors++;
    }
  }));
  return stats(latencies, (performance.now() - started) / 1000, errors);
}
