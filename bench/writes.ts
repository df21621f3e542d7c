// `deno task bench:writes`: Management API writes under load on PostgreSQL, the shapes a peer
// CMS's item writes take (create an item, change it, publish it).
// On a scratch database (made from DATABASE_URL, dropped afterwards), one site with an Articles
// model (a required title and a body, the columns of the side-by-side harness's `articles`)
// and enough credentials that none passes the API's 120 requests a minute. The service runs as
// its own process (bench/serve.ts); a closed-loop Deno generator then sends, at concurrency
// BENCH_WRITES_CONCURRENCY (default 8), BENCH_WRITES_REQUESTS requests per worker (default 50)
// of each scenario, each request on an entry of its own so every one is a real change:
// - create a draft: `POST /api/manage/v1/entries`;
// - update it: `PUT /api/manage/v1/entries/{id}`, pinned to the version the create answered;
// - publish it: `POST /api/manage/v1/entries/{id}/publish`, pinned to the update's version.
// Every request carries its own Idempotency-Key; an answer other than the documented status
// counts as an error.
import { systemClock } from "../core/clock.ts";
import { insertCredential } from "../core/credentials/credential_store.ts";
import { createModel } from "../core/models/store.ts";
import { createInstallation } from "../core/sites/installation.ts";
import { runLoad } from "./load.ts";
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
/** Requests one credential may send in a minute (the Management API's rate window). */
const RATE_LIMIT = 120;
const WARM_UP = 16;

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
  const total = WARM_UP + 3 * CONCURRENCY * PER_WORKER;
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

  const results: (MeasuredRun & { scenario: string; concurrency: number })[] =
    [];
  const measure = async (
    scenario: string,
    task: (i: number) => Promise<boolean>,
  ) => {
    const run = await runLoadWithCpu(
      service!.pid,
      CONCURRENCY,
      PER_WORKER,
      task,
    );
    const { stats: s, service_cpu_ms_per_request: cpu } = run;
    results.push({ scenario, concurrency: CONCURRENCY, ...run });
    console.log(
      `c=${CONCURRENCY} ${scenario}: ${s.rps} req/s, p50 ${s.median_ms} ms, p99 ${s.p99_ms} ms, ${s.errors} errors${
        cpu === undefined ? "" : `, service CPU ${cpu} ms/request`
      }`,
    );
  };
  // Warm-up: the service's first writes prepare its statements and fill its per-site reads.
  await runLoad(4, WARM_UP / 4, createDraft("warm", false));
  await measure("writes: create a draft", createDraft("article", true));
  await measure("writes: update it", update);
  await measure("writes: publish it", publish);
  console.log(JSON.stringify(
    {
      engine: "PostgreSQL",
      concurrency: CONCURRENCY,
      requests_per_worker: PER_WORKER,
      results,
    },
    null,
    2,
  ));
} finally {
  await service?.stop();
  await scratch.drop();
}
