// `deno run -A --unstable-kv bench/cpu.ts <database url> <path> [concurrency] [seconds]`: serves the
// app against a database an earlier bench run kept (BENCH_KEEP=1), loads one path with `wrk`, and
// prints the CPU per request of the service process and of all PostgreSQL processes (user +
// system, from /proc): where a request's time goes, steadier than requests per second on a
// shared machine. Linux only; needs `wrk`.
import { cpuTicks, postgresTicks, spent } from "./proc.ts";
import { startService } from "./service.ts";

const [url, path, concurrency = "32", seconds = "10"] = Deno.args;
if (!url || !path) {
  console.error(
    "usage: deno run -A --unstable-kv bench/cpu.ts <database url> <path> [concurrency] [seconds]",
  );
  Deno.exit(2);
}

const server = await startService(url);
try {
  const target = `${server.origin}${path}`;
  await wrk(target, 4, 2); // warm-up: prepared statements, JIT
  const service0 = await cpuTicks(server.pid);
  const postgres0 = await postgresTicks();
  const out = await wrk(target, Number(concurrency), Number(seconds));
  const service = (await cpuTicks(server.pid) ?? 0) - (service0 ?? 0);
  const postgres = spent(postgres0, await postgresTicks());
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  // Ticks are 1/100 s on Linux.
  const perRequest = (ticks: number) => (ticks * 10 / requests).toFixed(3);
  console.log(out.trim());
  console.log(
    `CPU per request: service ${perRequest(service)} ms, PostgreSQL ${
      perRequest(postgres)
    } ms (${requests} requests)`,
  );
} finally {
  await server.stop();
}

async function wrk(target: string, c: number, s: number): Promise<string> {
  const run = await new Deno.Command("wrk", {
    args: ["-t1", `-c${c}`, `-d${s}s`, "--latency", target],
  }).output();
  return new TextDecoder().decode(run.stdout);
}
