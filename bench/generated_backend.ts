// `deno task bench` (last): the generated standalone backend's findMany and findUnique over
// HTTP at concurrency 1 and 32, beside a bare Deno.serve + `pg` server answering the same
// queries on the same table (bench/raw_pg_server.ts) as the ceiling; the goal is at least 0.9x
// its requests per second at concurrency 32. A site with one public model is generated into a
// temporary folder, the backend runs as its own process on a scratch PostgreSQL database, and
// ROWS rows are inserted there directly.
import { putModelAccess } from "../core/backend/access.ts";
import { generateBackend, writeProject } from "../core/backend/generate/mod.ts";
import { systemClock } from "../core/clock.ts";
import { openDatabase } from "../core/db/database.ts";
import { createModel } from "../core/models/store.ts";
import { insertSite } from "../tests/support/sites.ts";
import { hasWrk, median, runLoad, type RunStats, runWrk } from "./load.ts";
import { openScratchDatabase } from "./scratch_db.ts";

const benchOnly = (Deno.env.get("BENCH_ONLY") ?? "").split(",").filter((w) =>
  w
);
if (
  benchOnly.length > 0 &&
  !benchOnly.some((w) => "generated backend".includes(w))
) {
  Deno.exit(0);
}

const ROWS = Number(Deno.env.get("BENCH_BACKEND_ROWS") ?? 10_000);
const PER_WORKER = Number(Deno.env.get("BENCH_BACKEND_REQUESTS") ?? 300);
/** Alternating slices per server and scenario; with wrk each lasts SLICE_SECONDS. */
const SLICES = Number(Deno.env.get("BENCH_BACKEND_SLICES") ?? 4);
const SLICE_SECONDS = Number(Deno.env.get("BENCH_BACKEND_SLICE_SECONDS") ?? 3);

/**
 * One figure from a server's slices: requests per second over all of them, the median of the
 * slices' medians and p99s (wrk reports percentiles, not latencies, so they cannot be pooled).
 */
function combined(runs: RunStats[]): RunStats {
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  return {
    requests,
    seconds: Number(seconds.toFixed(2)),
    rps: Math.round(requests / seconds),
    median_ms: median(runs.map((r) => r.median_ms)),
    p99_ms: median(runs.map((r) => r.p99_ms)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  };
}

/** Starts `deno run -A <script>` in `cwd`; answers its origin once it listens. */
async function serve(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ origin: string; stop(): Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script],
    cwd,
    env: { PORT: "0", ...env },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let port: string | undefined;
  while (!port) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} did not start:\n${seen}`);
    seen += value;
    port = /Serving on http:\/\/[^:]+:(\d+)/.exec(seen)?.[1];
  }
  const drained = (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  return {
    origin: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await drained;
    },
  };
}

const source = await openScratchDatabase(
  "stave_bench_gen_src",
  "the generated backend benchmark",
);
const target = await openScratchDatabase(
  "stave_bench_gen_out",
  "the generated backend benchmark",
);
const dir = await Deno.makeTempDir({ prefix: "stave-bench-backend-" });
const servers: { stop(): Promise<void> }[] = [];
try {
  const siteId = await insertSite(source.db, { domain: "bench.example" });
  const ctx = { db: source.db, clock: systemClock, siteId };
  const model = await createModel(ctx, {
    model: { name: "Article", slug: "article" },
    fields: [
      { key: "title", label: "Title", type: "text", required: true },
      {
        key: "views",
        label: "Views",
        type: "number",
        config: { integer: true },
      },
      { key: "day", label: "Day", type: "date" },
    ],
  });
  if (!model.ok) throw new Error(`Cannot create the model: ${model.code}`);
  await putModelAccess(ctx, model.model_id, {
    operations: {
      findMany: { audience: "anonymous" },
      findUnique: { audience: "anonymous" },
    },
  });
  const generated = await generateBackend(source.db, {
    siteId,
    publicUrl: "http://media.example",
  });
  if (!generated.ok) throw new Error(`Cannot generate: ${generated.code}`);
  await writeProject(dir, generated.files);
  // The backend creates its tables on start; rows go in afterwards, straight into PostgreSQL.
  const backend = await serve("main.ts", dir, {
    DATABASE_URL: target.url,
    API_BEARER_TOKEN: "bench",
  });
  servers.push(backend);
  const db = await openDatabase({ url: target.url });
  const ids: string[] = [];
  for (let i = 0; i < ROWS; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, ROWS - i) }, (_, n) => {
      const id = crypto.randomUUID();
      ids.push(id);
      return { id, title: `Article ${i + n}`, views: i + n, day: "2026-11-28" };
    });
    // deno-lint-ignore no-explicit-any
    await (db as any).insertInto("article").values(rows).execute();
  }
  await db.destroy();
  const raw = await serve(
    new URL("./raw_pg_server.ts", import.meta.url).pathname,
    Deno.cwd(),
    {
      DATABASE_URL: target.url,
      TABLE: "article",
      COLUMNS: "id, title, views, day",
    },
  );
  servers.push(raw);

  const scenarios = [
    { name: "findMany", path: () => "/api/article" },
    {
      name: "findUnique",
      path: (i: number) =>
        `/api/article/unique?where=${
          encodeURIComponent(
            JSON.stringify({ id: ids[(i * 7919) % ids.length] }),
          )
        }`,
    },
  ];
  // The two servers are measured in alternating slices, so a change in the machine's load
  // (other processes on a shared box) falls on both alike and the ratio stays meaningful.
  const viaWrk = await hasWrk();
  const results: Record<string, Record<string, RunStats>> = {};
  for (const scenario of scenarios) {
    for (const concurrency of [1, 32]) {
      const slices: Record<string, RunStats[]> = {
        generated: [],
        "raw pg": [],
      };
      for (let slice = 0; slice < SLICES; slice++) {
        for (
          const [label, origin] of [["generated", backend.origin], [
            "raw pg",
            raw.origin,
          ]] as const
        ) {
          const task = async (i: number) => {
            const res = await fetch(`${origin}${scenario.path(i)}`);
            const body = await res.json();
            return res.ok && body !== null;
          };
          if (slice === 0) await runLoad(concurrency, 20, task); // warm-up
          slices[label].push(
            viaWrk
              ? await runWrk(
                origin,
                Array.from({ length: 64 }, (_, i) => scenario.path(i)),
                concurrency,
                SLICE_SECONDS,
              )
              : await runLoad(
                concurrency,
                Math.ceil(
                  (concurrency === 1 ? PER_WORKER * 2 : PER_WORKER) / SLICES,
                ),
                task,
              ),
          );
        }
      }
      for (const [label, runs] of Object.entries(slices)) {
        const stats = combined(runs);
        (results[`${scenario.name} c${concurrency}`] ??= {})[label] = stats;
        console.log(JSON.stringify({
          scenario: `generated backend ${scenario.name}`,
          server: label,
          concurrency,
          load: viaWrk ? "wrk" : "deno",
          ...stats,
          slice_rps: runs.map((r) => r.rps),
        }));
      }
    }
  }
  for (const [name, pair] of Object.entries(results)) {
    console.log(
      `${name}: generated ${pair.generated.rps} req/s, raw pg ${
        pair["raw pg"].rps
      } req/s, ratio ${(pair.generated.rps / pair["raw pg"].rps).toFixed(2)}`,
    );
  }
} finally {
  for (const server of servers) await server.stop();
  await Deno.remove(dir, { recursive: true });
  await source.drop();
  await target.drop();
}
