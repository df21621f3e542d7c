// A small closed-loop load generator: N workers on 127.0.0.1, a bounded number of requests each.

/** Latency figures of one run. */
export interface RunStats {
  requests: number;
  seconds: number;
  rps: number;
  median_ms: number;
  /** Absent from `wrk` runs: its latency report stops at 50/75/90/99. */
  p95_ms?: number;
  p99_ms: number;
  errors: number;
}

/** The middle value of `values` (the upper of the two middle ones for an even count). */
export function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
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
    p95_ms: Number(at(0.95).toFixed(2)),
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

/** True when `wrk` (Debian package `wrk`) is on PATH; the Deno generator is the fallback. */
export async function hasWrk(): Promise<boolean> {
  try {
    const out = await new Deno.Command("wrk", { args: ["--version"] }).output();
    return new TextDecoder().decode(out.stdout).includes("wrk");
  } catch {
    return false;
  }
}

/**
 * Runs `wrk` on 127.0.0.1 for `seconds` with `concurrency` keep-alive connections on one thread
 * (much cheaper per request than a Deno `fetch` loop, so the load generator takes less of the
 * CPU the service and PostgreSQL share). `paths` are requested in turn. Non-2xx answers and
 * socket errors count as errors.
 */
export async function runWrk(
  origin: string,
  paths: string[],
  concurrency: number,
  seconds: number,
): Promise<RunStats> {
  const script = await Deno.makeTempFile({ suffix: ".lua" });
  try {
    await Deno.writeTextFile(
      script,
      `local paths = {${paths.map((p) => JSON.stringify(p)).join(",")}}
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[(n % #paths) + 1])
end
`,
    );
    // wrk connects to the first address a name resolves to (::1 for localhost here) while the
    // servers listen on 127.0.0.1; the Host header keeps the name a site is resolved by.
    const url = new URL(origin);
    const host = url.host;
    if (url.hostname === "localhost") url.hostname = "127.0.0.1";
    const out = await new Deno.Command("wrk", {
      args: [
        "-H",
        `Host: ${host}`,
        "-t1",
        `-c${concurrency}`,
        `-d${seconds}s`,
        "--latency",
        "-s",
        script,
        url.origin,
      ],
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      const said = new TextDecoder().decode(out.stderr) || text;
      throw new Error(`Cannot run wrk on ${origin}: ${said.slice(0, 500)}`);
    }
    return parseWrk(text);
  } finally {
    await Deno.remove(script);
  }
}

/** Reads the figures of a `wrk --latency` report. */
export function parseWrk(text: string): RunStats {
  const ms = (value: string) => {
    const m = /^([\d.]+)(us|ms|s|m)$/.exec(value);
    if (!m) throw new Error(`Cannot read wrk latency "${value}"`);
    const scale = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2]]!;
    return Number((Number(m[1]) * scale).toFixed(2));
  };
  const done = /(\d+) requests in ([\d.]+)(ms|s|m),/.exec(text);
  const p50 = /^\s+50%\s+(\S+)\s*$/m.exec(text);
  const p99 = /^\s+99%\s+(\S+)\s*$/m.exec(text);
  if (!done || !p50 || !p99) {
    throw new Error(`Cannot read the wrk report: ${text.slice(0, 500)}`);
  }
  const seconds = Number(done[2]) *
    { ms: 0.001, s: 1, m: 60 }[done[3] as "ms" | "s" | "m"];
  const requests = Number(done[1]);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  const socket =
    /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
      .exec(text);
  const socketErrors = socket
    ? socket.slice(1).reduce((sum, v) => sum + Number(v), 0)
    : 0;
  return {
    requests,
    seconds: Number(seconds.toFixed(2)),
    rps: Math.round(requests / seconds),
    median_ms: ms(p50[1]),
    p99_ms: ms(p99[1]),
    errors: non2xx + socketErrors,
  };
}
