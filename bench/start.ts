// `deno task bench:start`: time from starting `main.ts` to the first `/health` 200 on the embedded
// store: cold (empty DATA_DIR, with nothing prepared and with the prepared schema and demo) and
// warm (the same DATA_DIR again). Prints one line per run with the steps each start reported
// before it listened, and the medians; docs/benchmarks.md records a run.
import { SNAPSHOT_DIR } from "../core/db/pglite_snapshot.ts";
import { median } from "./load.ts";

const RUNS = Number(Deno.env.get("BENCH_START_RUNS") ?? 3);
const ROOT = new URL("..", import.meta.url).pathname;

/** One start: milliseconds to the first /health 200 and the steps it printed before listening. */
interface Start {
  ms: number;
  steps: string[];
}

/** Starts main.ts on `dataDir`, times it to the first /health 200, then stops it. */
async function timeStart(dataDir: string, port: number): Promise<Start> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "--unstable-cron", "main.ts"],
    cwd: ROOT,
    env: {
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_REQUESTS: "false",
      DATABASE_URL: "",
    },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  // Read to the end, so the child never waits on a full pipe.
  const printed = new Response(child.stdout).text();
  let ms = 0;
  try {
    for (;;) {
      try {
        const res = await fetch(`http://localhost:${port}/health`);
        await res.body?.cancel();
        if (res.status === 200) ms = performance.now() - started;
      } catch { /* not listening yet */ }
      if (ms > 0) break;
      await new Promise((r) => setTimeout(r, 50));
      if (performance.now() - started > 300_000) {
        throw new Error("No /health 200 within 5 minutes");
      }
    }
  } finally {
    child.kill("SIGINT");
    await child.status;
  }
  const lines = (await printed).split("\n").filter((l) => l.startsWith("✓"))
    .map((l) => l.slice(2));
  // /health may answer before the start prints that it listens, and is stopped then.
  const listening = lines.findIndex((l) => l.startsWith("Listening"));
  return { ms, steps: listening < 0 ? lines : lines.slice(0, listening) };
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const port = 18_000 + Math.floor(Math.random() * 1000);
const results: Record<string, number[]> = {
  "cold start, embedded, nothing prepared yet": [],
  "cold start, embedded": [],
  "warm start, embedded": [],
};
const steps: Record<string, string[]> = {};
const record = (name: string, start: Start) => {
  results[name].push(start.ms);
  steps[name] = start.steps;
};
for (let run = 0; run < RUNS; run++) {
  // Nothing prepared: the first start on a machine, or after the code changed (a changed
  // migration also names another schema snapshot, any change under core/ another demo).
  await Deno.remove(SNAPSHOT_DIR, { recursive: true }).catch(() => {});
  const first = await Deno.makeTempDir({ prefix: "stave-bench-start-" });
  record(
    "cold start, embedded, nothing prepared yet",
    await timeStart(first, port),
  );
  const cold = await Deno.makeTempDir({ prefix: "stave-bench-start-" });
  record("cold start, embedded", await timeStart(cold, port));
  record("warm start, embedded", await timeStart(cold, port));
  for (const dir of [first, cold]) await Deno.remove(dir, { recursive: true });
  console.log(
    `run ${run + 1}: ${
      Object.entries(results).map(([k, v]) => `${k} ${fmt(v.at(-1)!)}`).join(
        ", ",
      )
    }`,
  );
  for (const [name, lines] of Object.entries(steps)) {
    console.log(`  ${name}: ${lines.join("; ")}`);
  }
}
const load = await Deno.readTextFile("/proc/loadavg").catch(() => "?");
console.log(`\nmedians of ${RUNS} runs (load average ${load.split(" ")[0]}):`);
for (const [name, values] of Object.entries(results)) {
  console.log(`  ${name.padEnd(40)} ${fmt(median(values))}`);
}
