// CPU time of a process as Linux's /proc tells it, for the bench's per-request figures.
import { runLoad, type RunStats } from "./load.ts";

/** User + system CPU of process `pid` in clock ticks (1/100 s on Linux); null elsewhere. */
export async function cpuTicks(pid: number): Promise<number | null> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** One measured run and the service's CPU per request over it. */
export interface MeasuredRun {
  stats: RunStats;
  /** Milliseconds of service CPU per request; absent where /proc cannot say. */
  service_cpu_ms_per_request?: number;
}

/** Runs {@link runLoad} and reads the service's CPU before and after it. */
export async function runLoadWithCpu(
  pid: number,
  concurrency: number,
  perWorker: number,
  task: (i: number) => Promise<boolean>,
): Promise<MeasuredRun> {
  const cpu0 = await cpuTicks(pid);
  const stats = await runLoad(concurrency, perWorker, task);
  const cpu1 = await cpuTicks(pid);
  // A tick is 10 ms.
  return cpu0 !== null && cpu1 !== null && stats.requests > 0
    ? {
      stats,
      service_cpu_ms_per_request: Number(
        ((cpu1 - cpu0) * 10 / stats.requests).toFixed(3),
      ),
    }
    : { stats };
}
