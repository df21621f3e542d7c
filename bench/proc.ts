// CPU time of a process as Linux's /proc tells it, for the bench's per-request figures.

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
