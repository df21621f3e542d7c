// `deno task bench:writes`: Management API writes under load on PostgreSQL, the shapes a peer
// CMS's item writes take (create an item, change it, publish it).
// On a scratch database (made from DATABASE_URL, dropped afterwards), one site with an Articles
// model (a required title and a body, the columns of the side-by-side harness's `articles`)
// and enough credentials that none passes the API's 120 requests a minute. The service runs as
// its own process (bench/serve.ts). The site first gets BENCH_WRITES_SITE_ENTRIES published
// entries (default 2,000) through the API, and its tables statistics (`analyze`), as a live
// site's are. A closed-loop Deno generator then sends, at concurrency
// BENCH_WRITES_CONCURRENCY (default 8), BENCH_WRITES_REQUESTS requests per worker (default 50)
// of each scenario, each request on an entry of its own so every one is a real change:
// - create a draft: `POST /api/manage/v1/entries`;
// - update it: `PUT /api/manage/v1/entries/{id}`, pinned to the version the create answered;
// - publish it: `POST /api/manage/v1/entries/{id}/publish`, pinned to the update's version.
// Every request carries its own Idempotency-Key; an answer other than the documented status
// counts as an error. BENCH_WRITES_ROUNDS (default 1) repeats the three scenarios, each round on
// new entries. With BENCH_DIRECTUS_URL (bench/directus.ts) every scenario also runs, right after
// ours in the same round, on the peer harness's Directus 12.4: `POST /items/articles` (a draft
// of the same title, slug and body), `PATCH /items/articles/{id}` (title and body), and a
// `PATCH` of `status` and `published_at`; the items it made are deleted at the end, as the
// harness's read benches count that table. BENCH_DIRECTUS_PID adds Directus's CPU per request.
// Directus runs faster after its first few hundred writes (its creates went from 239 to 322 a
// second over three runs), so beside it every scenario first runs BENCH_WRITES_WARM_ROUNDS
// (default 1; 0 without Directus) unrecorded rounds on both.
import { sql } from "kysely";
import { systemClock } from "../core/clock.ts";
import { insertCredential } from "../core/credentials/credential_store.ts";
import { createModel } from "../core/models/store.ts";
import { createInstallation } from "../core/sites/installation.ts";
import { directusToken, directusUrl } from "./directus.ts";
import { median, runLoad } from "./load.ts";
import { type MeasuredRun, runLoadWithCpu } from "./proc.ts";
import { openScratchDatabase } from "./scratch_db.ts";
import { startService } from "./service.ts";

// `deno task bench` runs this last; a BENCH_ONLY run that names other scenarios skips it.
const benchOnly = (Deno.env.get("BENCH_ONLY") ?? "").split(",").filter((w) =>
  w
);
if (benchOnly.length > 0 && !benchOnly.some((w) => "writes".includes(w))) {
  Deno.exit(0);
}

const CONCURRENCY = Number(Deno.env.get("BENCH_WRITES_CONCURRENCY") ?? 8);
const PER_WORKER = Number(Deno.env.get("BENCH_WRITES_REQUESTS") ?? 50);
const ROUNDS = Number(Deno.env.get("BENCH_WRITES_ROUNDS") ?? 1);
const WARM_ROUNDS = directusUrl() === null
  ? 0
  : Number(Deno.env.get("BENCH_WRITES_WARM_ROUNDS") ?? 1);
/** Requests one credential may send in a minute (the Management API's rate window). */
const RATE_LIMIT = 120;
const WARM_UP = 16;
/**
 * Published entries the site holds before the measured writes. A live site has entries, and
 * autovacuum keeps its tables' statistics (it analyzes a table once a tenth of it changed): on
 * tables that were never analyzed, PostgreSQL guesses every index scan alike, and the plans the
 * service's connections cache after a statement's sixth run walked, for one group, a whole
 * site's entries in an index led by the site (2026-11-30; "Plans without statistics" in
 * docs/benchmarks.md). A changed table's statistics make PostgreSQL plan its statements again.
 */
const SITE_ENTRIES = Number(
  Deno.env.get("BENCH_WRITES_SITE_ENTRIES") ?? 2000,
);

const scratch = await openScratchDatabase(
  "stave_bench_writes",
  "the write benchmark",
);
const { db } = scratch;
let service: Awaited<ReturnType<typeof startService>> | null = null;
try {
  service = await startService(scratch.url);
  const created = await createInstallation({ db, clock: systemClock }, {
    domain: "writes.bench",
    slug: "writes",
    name: "Writes",
    locales: ["en"],
    adminEmail: "admin@writes.bench",
  });
  if (!created.ok) throw new Error(created.message);
  const siteId = created.site.id;
  const model = await createModel({ db, clock: systemClock, siteId }, {
    model: { name: "Articles", slug: "articles" },
    fields: [
      { key: "title", label: "Title", type: "text", required: true },
      { key: "body", label: "Body", type: "text" },
    ],
  });
  if (!model.ok) throw new Error(model.code);
  // Every request of the run, warm-up included, spread so no credential passes its window.
  const total = WARM_UP + SITE_ENTRIES * 2 +
    (WARM_ROUNDS + ROUNDS) * 3 * CONCURRENCY * PER_WORKER;
  const secrets: string[] = [];
  for (let n = 0; n < Math.ceil(total / (RATE_LIMIT / 2)); n++) {
    const { secret } = await insertCredential(db, systemClock, {
      siteId,
      creatorId: created.admin.id,
      name: `bench ${n}`,
      scopes: ["content:read", "content:write", "lifecycle:publish"],
      models: null,
    });
    secrets.push(secret);
  }
  let sent = 0;
  const api = async (
    method: string,
    path: string,
    body: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> | null }> => {
    const secret = secrets[sent++ % secrets.length];
    const res = await fetch(`${service!.origin}/api/manage/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        "idempotency-key": crypto.randomUUID(),
      },
      body: JSON.stringify(body),
    });
    const answer = res.status < 300 ? await res.json() : null;
    if (answer === null) await res.body?.cancel();
    return { status: res.status, body: answer };
  };

  /** One entry per request of a scenario: what the next scenario pins to. */
  interface Written {
    id: string;
    version: string;
    revision: number;
  }
  const writtenOf = (body: Record<string, unknown>): Written => ({
    id: body.id as string,
    version: body.current_version_id as string,
    revision: body.revision as number,
  });
  const entries: (Written | undefined)[] = [];
  const createDraft = (prefix: string, keep: boolean) => async (i: number) => {
    const { status, body } = await api("POST", "/entries", {
      model_id: model.model_id,
      locale: "en",
      slug: `${prefix}-${i}`,
      fields: { title: `Article ${i}`, body: `The body of article ${i}.` },
    });
    if (status !== 201 || !body) return false;
    if (keep) entries[i] = writtenOf(body);
    return true;
  };
  const update = async (i: number) => {
    const entry = entries[i];
    if (!entry) return false;
    const { status, body } = await api("PUT", `/entries/${entry.id}`, {
      locale: "en",
      expected_current_version_id: entry.version,
      fields: {
        title: `Article ${i}, revised`,
        body: `The revised body of article ${i}.`,
      },
    });
    if (status !== 200 || !body) return false;
    entries[i] = writtenOf(body);
    return true;
  };
  const publish = async (i: number) => {
    const entry = entries[i];
    if (!entry) return false;
    const { status } = await api("POST", `/entries/${entry.id}/publish`, {
      expected_current_version_id: entry.version,
      expected_workflow_revision: entry.revision,
    });
    return status === 200;
  };

  const directusBase = directusUrl();
  const directus = directusBase ? await directusWrites(directusBase) : null;
  const directusPid = Number(Deno.env.get("BENCH_DIRECTUS_PID") ?? 0);

  const results: (MeasuredRun & {
    target: string;
    scenario: string;
    round: number;
    concurrency: number;
  })[] = [];
  const measure = async (
    target: "stave" | "directus",
    round: number,
    scenario: string,
    task: (i: number) => Promise<boolean>,
  ) => {
    const pid = target === "stave" ? service!.pid : directusPid;
    const run = pid > 0
      ? await runLoadWithCpu(pid, CONCURRENCY, PER_WORKER, task)
      : { stats: await runLoad(CONCURRENCY, PER_WORKER, task) };
    const { stats: s } = run;
    // Rounds up to 0 warm Directus (and Stave) up: printed, not counted.
    if (round > 0) {
      results.push({
        target,
        scenario,
        round,
        concurrency: CONCURRENCY,
        ...run,
      });
    }
    const cpu = [
      ["service", run.service_cpu_ms_per_request],
      ["PostgreSQL", run.postgres_cpu_ms_per_request],
      ["generator", run.generator_cpu_ms_per_request],
      ["machine", run.machine_cpu_ms_per_request],
    ].filter(([, ms]) => ms !== undefined).map(([who, ms]) => `${who} ${ms}`);
    console.log(
      `${
        round > 0 ? `round ${round}` : "warm-up"
      } c=${CONCURRENCY} ${target} ${scenario}: ${s.rps} req/s, p50 ${s.median_ms} ms, p99 ${s.p99_ms} ms, ${s.errors} errors${
        cpu.length ? `, CPU ms/request: ${cpu.join(", ")}` : ""
      }`,
    );
  };
  if (SITE_ENTRIES > 0) {
    const seeded = CONCURRENCY * Math.ceil(SITE_ENTRIES / CONCURRENCY);
    const perWorker = seeded / CONCURRENCY;
    await runLoad(CONCURRENCY, perWorker, createDraft("site", true));
    await runLoad(CONCURRENCY, perWorker, publish);
    const missing = seeded - entries.filter((e) => e).length;
    if (missing > 0) throw new Error(`${missing} site entries were not made`);
    await sql`analyze`.execute(db);
    console.log(`site: ${seeded} published entries, tables analyzed`);
  }
  // Warm-up: the service's first writes prepare its statements and fill its per-site reads.
  await runLoad(4, WARM_UP / 4, createDraft("warm", false));
  try {
    for (let round = 1 - WARM_ROUNDS; round <= ROUNDS; round++) {
      entries.length = 0;
      directus?.startRound();
      const scenarios: [string, (i: number) => Promise<boolean>, Task][] = [
        [
          "create a draft",
          createDraft(`article-${round}`, true),
          directus?.create(round),
        ],
        ["update it", update, directus?.update],
        ["publish it", publish, directus?.publish],
      ];
      for (const [scenario, ours, theirs] of scenarios) {
        await measure("stave", round, scenario, ours);
        if (theirs) await measure("directus", round, scenario, theirs);
      }
    }
  } finally {
    await directus?.cleanUp();
  }
  const summary = ["create a draft", "update it", "publish it"].map(
    (scenario) => {
      const of = (target: string) =>
        results.filter((r) => r.target === target && r.scenario === scenario);
      const figures = (target: string) => {
        const runs = of(target);
        return runs.length === 0 ? null : {
          rps: median(runs.map((r) => r.stats.rps)),
          p99_ms: median(runs.map((r) => r.stats.p99_ms)),
          errors: runs.reduce((n, r) => n + r.stats.errors, 0),
        };
      };
      const ours = figures("stave")!;
      const theirs = figures("directus");
      // Ratios per round, then their median: only figures of one round compare.
      const rounds = of("stave").map((r) => r.round);
      const ratio = theirs === null ? null : median(rounds.map((round) => {
        const a = of("stave").find((r) => r.round === round)!;
        const b = of("directus").find((r) => r.round === round)!;
        return a.stats.rps / b.stats.rps;
      }));
      return {
        scenario,
        stave: ours,
        directus: theirs,
        rps_ratio: ratio === null ? null : Number(ratio.toFixed(2)),
      };
    },
  );
  for (const row of summary) {
    console.log(
      `${row.scenario}: Stave ${row.stave.rps} req/s, p99 ${row.stave.p99_ms} ms${
        row.directus
          ? `; Directus ${row.directus.rps} req/s, p99 ${row.directus.p99_ms} ms; ${row.rps_ratio}x`
          : ""
      } (median of ${ROUNDS} round${ROUNDS === 1 ? "" : "s"})`,
    );
  }
  console.log(JSON.stringify(
    {
      engine: "PostgreSQL",
      concurrency: CONCURRENCY,
      requests_per_worker: PER_WORKER,
      rounds: ROUNDS,
      summary,
      results,
    },
    null,
    2,
  ));
} finally {
  await service?.stop();
  await scratch.drop();
}

type Task = ((i: number) => Promise<boolean>) | undefined;

/** The same three writes on the harness's Directus `articles` collection, one item per request. */
async function directusWrites(base: string) {
  const token = await directusToken(base);
  const call = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return null;
    }
    return await res.json();
  };
  const run = crypto.randomUUID().slice(0, 8);
  let ids: number[] = [];
  const made: number[] = [];
  return {
    startRound: () => {
      ids = [];
    },
    create: (round: number) => async (i: number) => {
      const answer = await call("POST", "/items/articles", {
        title: `Article ${i}`,
        slug: `bench-writes-${run}-${round}-${i}`,
        body: `The body of article ${i}.`,
        status: "draft",
        locale: "en",
      });
      if (!answer) return false;
      ids[i] = answer.data.id;
      made.push(answer.data.id);
      return true;
    },
    update: async (i: number) =>
      ids[i] !== undefined &&
      await call("PATCH", `/items/articles/${ids[i]}`, {
          title: `Article ${i}, revised`,
          body: `The revised body of article ${i}.`,
        }) !== null,
    publish: async (i: number) =>
      ids[i] !== undefined &&
      await call("PATCH", `/items/articles/${ids[i]}`, {
          status: "published",
          published_at: new Date().toISOString(),
        }) !== null,
    cleanUp: async () => {
      for (let n = 0; n < made.length; n += 500) {
        const res = await fetch(`${base}/items/articles`, {
          method: "DELETE",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
          },
          body: JSON.stringify(made.slice(n, n + 500)),
        });
        await res.body?.cancel();
        if (!res.ok) {
          console.error(
            `Directus kept bench items: DELETE answered ${res.status}`,
          );
        }
      }
    },
  };
}
