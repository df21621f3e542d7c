// `deno task bench:renderer`: the rendered home page and a post page at concurrency 32, beside a
// static file served by Deno.serve and beside the public API reads those pages need; and what
// one page weighs (HTML + CSS + JS). The demo CMS runs on embedded PGlite, or on a scratch
// database of the PostgreSQL server DATABASE_URL names; the load comes from wrk when installed.
// docs/benchmarks.md records runs.
import { DEMO_PORTS, startDemoSite } from "../tests/renderer/support.ts";
import { everySectionView } from "../tests/renderer/every_section.ts";
import { builtInTemplate } from "../services/renderer/template/builtin/mod.tsx";
import { hasWrk, median, runLoad, type RunStats, runWrk } from "./load.ts";

const CONCURRENCY = Number(
  Deno.env.get("BENCH_RENDERER_CONCURRENCY") ?? 32,
);
/** Requests per target and round with the Deno generator (the fallback without wrk). */
const REQUESTS = Number(Deno.env.get("BENCH_RENDERER_REQUESTS") ?? 2000);
/** Seconds per target and round with wrk. */
const SECONDS = Number(Deno.env.get("BENCH_RENDERER_SECONDS") ?? 10);
/** Rounds: every target once per round, in turn, so a disturbance hits all of them alike. */
const ROUNDS = Number(Deno.env.get("BENCH_RENDERER_ROUNDS") ?? 3);

/** About `REQUESTS` GETs of `url`, `CONCURRENCY` at a time after a warm-up, with `fetch`. */
async function loadWithFetch(url: string): Promise<RunStats> {
  for (let i = 0; i < 50; i++) await (await fetch(url)).arrayBuffer();
  return await runLoad(
    CONCURRENCY,
    Math.ceil(REQUESTS / CONCURRENCY),
    async () => {
      const response = await fetch(url);
      await response.arrayBuffer();
      return response.status === 200;
    },
  );
}

/** One target for `SECONDS` with wrk (after a two-second warm-up), else with `fetch`. */
async function load(url: string, viaWrk: boolean): Promise<RunStats> {
  if (!viaWrk) return await loadWithFetch(url);
  const { origin, pathname, search } = new URL(url);
  await runWrk(origin, [pathname + search], CONCURRENCY, 2);
  return await runWrk(origin, [pathname + search], CONCURRENCY, SECONDS);
}

function at(sorted: number[], q: number): string {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]
    .toFixed(1);
}

/** Bytes of the page and of every stylesheet and script it links, as sent (gzip when asked). */
async function weight(
  origin: string,
  path: string,
): Promise<{ html: number; css: number; js: number }> {
  const html = await (await fetch(origin + path)).text();
  const sum = async (urls: string[]) => {
    let n = 0;
    for (const u of urls) {
      n += (await (await fetch(new URL(u, origin))).arrayBuffer()).byteLength;
    }
    return n;
  };
  const css = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((
    m,
  ) => m[1]);
  const js = [...html.matchAll(/<script[^>]* src="([^"]+)"/g)].map((m) => m[1]);
  return {
    html: new TextEncoder().encode(html).length,
    css: await sum(css),
    js: await sum(js),
  };
}

// The template's own share: drawing a 20-section page from answers already read, in process.
{
  const view = everySectionView();
  for (let i = 0; i < 100; i++) builtInTemplate.page(view);
  const times: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const started = performance.now();
    builtInTemplate.page(view);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(
    `Drawing every section type (in process, 1000 times): p50 ${
      at(times, 0.5)
    } ms, p99 ${at(times, 0.99)} ms`,
  );
}

/** The renderer's page reuse window: its default (1 s) unless the environment names one. */
const PAGE_REUSE_MS = Deno.env.get("RENDERER_PAGE_REUSE_MS") ?? "1000";
const site = await startDemoSite(DEMO_PORTS.bench, {
  rendererEnv: { RENDERER_PAGE_REUSE_MS: PAGE_REUSE_MS },
  deadlineMs: 3_600_000,
});
const staticBody = await Deno.readTextFile(
  new URL("../services/renderer/template/builtin/style.css", import.meta.url),
);
const server = Deno.serve(
  { port: 0, hostname: "127.0.0.1", onListen() {} },
  () => new Response(staticBody, { headers: { "content-type": "text/css" } }),
);
try {
  const r = site.renderer.origin;
  const posts = await (await fetch(`${site.api}/v1/posts?limit=1`)).json();
  const post = `/posts/${posts.data[0].slug}`;
  const rows: [string, string][] = [
    [
      "static file (Deno.serve)",
      `http://127.0.0.1:${server.addr.port}/style.css`,
    ],
    ["API: /v1/pages/home", `${site.api}/v1/pages/home`],
    ["API: /v1/posts/<slug>", `${site.api}${`/v1${post}`}`],
    ["API: /v1/_chrome", `${site.api}/v1/_chrome`],
    ["rendered home page /", `${r}/`],
    [`rendered post ${post.slice(0, 24)}…`, `${r}${post}`],
  ];
  const viaWrk = Deno.env.get("BENCH_LOAD") !== "deno" && await hasWrk();
  const runs = new Map<string, RunStats[]>(rows.map(([name]) => [name, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, url] of rows) {
      runs.get(name)!.push(await load(url, viaWrk));
    }
  }
  console.log(
    `Concurrency ${CONCURRENCY}, ${
      viaWrk ? `wrk, ${SECONDS} s` : `Deno fetch, ${REQUESTS} requests`
    } per target and round, ${ROUNDS} rounds; ${
      Deno.env.get("DATABASE_URL") ? "PostgreSQL" : "embedded PGlite"
    }; renderer page reuse ${PAGE_REUSE_MS} ms; milliseconds`,
  );
  console.log(
    "| Target | req/s (median) | p50 (median) | p99 (median) | p99 per round | errors |",
  );
  console.log("| --- | ---: | ---: | ---: | --- | ---: |");
  for (const [name] of rows) {
    const r = runs.get(name)!;
    console.log(
      `| ${name} | ${median(r.map((x) => x.rps))} | ${
        median(r.map((x) => x.median_ms)).toFixed(1)
      } | ${median(r.map((x) => x.p99_ms)).toFixed(1)} | ${
        r.map((x) => x.p99_ms.toFixed(1)).join(" / ")
      } | ${r.reduce((n, x) => n + x.errors, 0)} |`,
    );
  }
  for (const path of ["/", post]) {
    const w = await weight(r, path);
    console.log(
      `${path}: HTML ${w.html} B, CSS ${w.css} B, JS ${w.js} B, total ${
        ((w.html + w.css + w.js) / 1024).toFixed(1)
      } KiB`,
    );
  }
} finally {
  await server.shutdown();
  await site.close();
}
