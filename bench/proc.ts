// CPU time of processes as Linux's /proc tells it, for the bench's per-request figures.
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

/** CPU ticks of each process of the user `postgres` (server and backends), by pid. */
export async function postgresTicks(): Promise<Map<number, number>> {
  const ticks = new Map<number, number>();
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("pgrep", { args: ["-u", "postgres"] })
      .output();
  } catch {
    return ticks;
  }
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    if (line) ticks.set(Number(line), await cpuTicks(Number(line)) ?? 0);
  }
  return ticks;
}

/** Ticks spent between two snapshots; a backend the pool opened in between counts whole. */
export function spent(
  before: Map<number, number>,
  after: Map<number, number>,
): number {
  let total = 0;
  for (const [pid, ticks] of after) total += ticks - (before.get(pid) ?? 0);
  return total;
}

/** Busy ticks of the whole machine (every core, all but idle and I/O wait); null elsewhere. */
export async function machineTicks(): Promise<number | null> {
  try {
    const cpu = (await Deno.readTextFile("/proc/stat")).split("\n")[0]
      .split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = cpu;
    return user + nice + system + irq + softirq + steal;
  } catch {
    return null;
  }
}

/** One measured run and the CPU per request it cost. */
export interface MeasuredRun {
  stats: RunStats;
  /** Milliseconds of service CPU per request; absent where /proc cannot say. */
  service_cpu_ms_per_request?: number;
  /** Milliseconds of CPU per request of the load generator (the bench's own process). */
  generator_cpu_ms_per_request?: number;
  /** Milliseconds of CPU per request of every PostgreSQL process on the machine. */
  postgres_cpu_ms_per_request?: number;
  /**
   * Milliseconds of busy CPU per request of the whole machine: the service, PostgreSQL, the load
   * generator (this process) and the kernel. At saturation, what bounds requests per second.
   */
  machine_cpu_ms_per_request?: number;
}

/** Runs {@link runLoad} and reads the service's, PostgreSQL's and the machine's CPU around it. */
export async function runLoadWithCpu(
  pid: number,
  concurrency: number,
  perWorker: number,
  task: (i: number) => Promise<boolean>,
): Promise<MeasuredRun> {
  const [cpu0, own0, postgres0, machine0] = [
    await cpuTicks(pid),
    await cpuTicks(Deno.pid),
    await postgresTicks(),
    await machineTicks(),
  ];
  const stats = await runLoad(concurrency, perWorker, task);
  const [cpu1, own1, postgres1, machine1] = [
    await cpuTicks(pid),
    await cpuTicks(Deno.pid),
    await postgresTicks(),
    await machineTicks(),
  ];
  if (stats.requests === 0) return { stats };
  // A tick is 10 ms.
  const perRequest = (ticks: number) =>
    Number((ticks * 10 / stats.requests).toFixed(3));
  return {
    stats,
    ...(cpu0 !== null && cpu1 !== null
      ? { service_cpu_ms_per_request: perRequest(cpu1 - cpu0) }
      : {}),
    ...(own0 !== null && own1 !== null
      ? { generator_cpu_ms_per_request: perRequest(own1 - own0) }
      : {}),
    ...(postgres1.size > 0
      ? { postgres_cpu_ms_per_request: perRequest(spent(postgres0, postgres1)) }
      : {}),
    ...(machine0 !== null && machine1 !== null
      ? { machine_cpu_ms_per_request: perRequest(machine1 - machine0) }
      : {}),
  };
}
