// `deno task bench`: seeds 100,000 published entries in two languages on real PostgreSQL, then measures
// the public list, filtered+sorted list, 50-page cursor walk, single read, live search and suggestions
// over HTTP on 127.0.0.1 at concurrency 1 and 32, and the same queries as raw SQL through the same
// driver as a ceiling. Search documents are written with `bulkIndexSite` (same rows as `reindexSite`).
// HTTP load comes from `wrk` when it is installed (`BENCH_LOAD=deno` forces the Deno generator).
import { sql } from "kysely";
import { openDatabase } from "../core/db/database.ts";
import { prefixEnd } from "../core/search/suggest.ts";
import { contextQuery } from "../core/public/request_context.ts";
import { hasWrk, runLoad, type RunStats, runWrk } from "./load.ts";
import { cpuTicks } from "./proc.ts";
import { BENCH_PAGE } from "./pages_seed.ts";
import { readPublicSeed, seedPublic, VOCAB } from "./public_seed.ts";
import { onServer } from "./scratch_db.ts";
import { type BenchService, startService } from "./service.ts";

const ENTRIES = Number(Deno.env.get("BENCH_ENTRIES") ?? 100_000);
const base = Deno.env.get("DATABASE_URL");
if (!base) {
  throw new Error(
    "Cannot run the benchmark: set DATABASE_URL to a PostgreSQL server (it creates a scratch database)",
  );
}

const admin = (text: string) => onServer(base, text);

// BENCH_DB=<name> reuses a database an earlier run kept (BENCH_KEEP=1) instead of seeding again;
// BENCH_ONLY=<words,...> runs only the scenarios whose names contain one of the words.
const reused = Deno.env.get("BENCH_DB");
const keep = reused !== undefined || Deno.env.get("BENCH_KEEP") === "1";
const only = (Deno.env.get("BENCH_ONLY") ?? "").split(",").filter((w) => w);
const dbName = reused ?? `stave_bench_${Date.now()}`;
if (!reused) await admin(`create database ${dbName}`);
const url = new URL(base);
url.pathname = `/${dbName}`;
const db = await openDatabase({ url: url.toString() });
const servers: BenchService[] = [];
try {
  const seeded = reused
    ? await readPublicSeed(db)
    : await seedPublic(db, ENTRIES);
  const { siteId, modelId, pagesModelId } = seeded;
  // The service as configured by default, and one that keeps no answers between requests
  // (PUBLIC_ANSWER_CACHE_MB=0): every request computes its answer, as on a site whose content
  // changes between reads.
  const kept = await startService(url.toString());
  servers.push(kept);
  const computed = await startService(url.toString(), {
    PUBLIC_ANSWER_CACHE_MB: "0",
  });
  servers.push(computed);

  const slugs = Array.from(
    { length: 1000 },
    (_, i) => `en-post-${1 + ((i * 9973) % seeded.entries)}`,
  );
  const get = async (origin: string, path: string) => {
    const res = await fetch(origin + path);
    const body = await res.json();
    return { ok: res.status === 200, body };
  };
  const LIST = "/v1/posts?limit=20";
  const PAGE = `/v1/pages/${BENCH_PAGE}`;
  const FILTERED =
    "/v1/posts?limit=20&filter[category]=news&filter[price][gte]=100&filter[price][lt]=200&sort=-price";
  const SORTED_TEXT = "/v1/posts?limit=20&sort=title";
  const SORTED_TIME = "/v1/posts?limit=20&sort=-happened_at";
  const SEARCH = VOCAB.map((w) => `/v1/_search?q=${w}&locale=en`);
  // Two words meet in one title of 200 (0.5%: either may come first): few matches among the
  // newest documents.
  const SEARCH_RARE = VOCAB.map((w, i) =>
    `/v1/_search?q=${w}%20${VOCAB[(i + 7) % VOCAB.length]}&locale=en`
  );
  const SUGGEST = VOCAB.map((w) =>
    `/v1/_search/suggest?q=${w.slice(0, 3)}&locale=en`
  );
  // Each scenario takes the origin of the service it loads.
  const scenarios: Record<
    string,
    (origin: string, i: number) => Promise<boolean>
  > = {
    "list page (limit=20, default order)": async (o) => (await get(o, LIST)).ok,
    "filtered + sorted list": async (o) => (await get(o, FILTERED)).ok,
    "single read by slug": async (o, i) =>
      (await get(o, `/v1/posts/${slugs[i % slugs.length]}`)).ok,
    "page with two shared sections": async (o) => (await get(o, PAGE)).ok,
    "sorted by a text field (sort=title)": async (o) =>
      (await get(o, SORTED_TEXT)).ok,
    "sorted by a date-time field (sort=-happened_at)": async (o) =>
      (await get(o, SORTED_TIME)).ok,
    "search (q=<word>, locale=en)": async (o, i) =>
      (await get(o, SEARCH[i % SEARCH.length])).ok,
    "search, two words that seldom meet (q=<word> <word>)": async (o, i) =>
      (await get(o, SEARCH_RARE[i % SEARCH_RARE.length])).ok,
    "suggest (q=<3-letter prefix>, locale=en)": async (o, i) =>
      (await get(o, SUGGEST[i % SUGGEST.length])).ok,
    "cursor walk, 50 pages (one sample = whole walk)": async (o) => {
      let cursor: string | null = null;
      for (let p = 0; p < 50; p++) {
        const r = await get(o, `${LIST}${cursor ? `&cursor=${cursor}` : ""}`);
        if (!r.ok) return false;
        cursor = r.body.page.next_cursor;
      }
      return true;
    },
  };

  const cols =
    sql`p.group_id, p.slug, p.served_locale, p.version_id, p.version_number, p.published_at, p.fields`;
  const base_ =
    sql`p.site_id = ${siteId} and p.model_id = ${modelId} and p.requested_locale = 'en'`;
  const rawList = (after: { at: string; id: string } | null) =>
    sql<
      { group_id: string; k_at: string }
    >`select ${cols}, p.published_at::text as k_at from public_items p
      where ${base_} ${
      after
        ? sql`and (p.published_at, p.group_id) < (${after.at}::timestamptz, ${after.id}::uuid)`
        : sql``
    }
      order by p.published_at desc, p.group_id desc limit 21`;
  const price =
    sql`(case when jsonb_typeof(p.fields -> 'price') = 'number' then (p.fields ->> 'price')::numeric end)`;
  const facetPrice =
    sql`(case when jsonb_typeof(s.facets -> 'price') = 'number' then (s.facets ->> 'price')::numeric end)`;
  const usable = (key: string) =>
    sql`(s.facets is not null and (s.facets -> ${key}::text) is distinct from '{"~": true}'::jsonb)`;
  // The service's query for FILTERED (core/public/list.ts, sortedByValues): a range scan of the
  // price keys in sort order, filtered on the index entries' facets, then each survivor read by
  // primary key (where a facet cannot decide, the probe checks the item's fields).
  const rawFiltered = sql<{ slug: string }>`select p.* from public_item_values s
      cross join lateral (select ${cols} from public_items p
        where p.site_id = s.site_id and p.model_id = s.model_id
          and p.requested_locale = s.requested_locale and p.group_id = s.group_id
          and (${
    usable("category")
  } or p.fields @> '{"category": "news"}'::jsonb)
          and (${usable("price")} or ${price} >= '100'::numeric)
          and (${usable("price")} or ${price} < '200'::numeric)
        offset 0) p
      where s.site_id = ${siteId} and s.model_id = ${modelId} and s.requested_locale = 'en'
        and s.field_key = 'price' and s.num_value is not null
        and s.num_value >= '100'::numeric and s.num_value < '200'::numeric
        and (not ${
    usable("category")
  } or s.facets @> '{"category": "news"}'::jsonb)
        and (not ${usable("price")} or ${facetPrice} >= '100'::numeric)
        and (not ${usable("price")} or ${facetPrice} < '200'::numeric)
      order by s.num_value desc, s.group_id asc limit 21`;
  // The previous query: GIN containment, then a sort on the JSON value.
  const jsonFiltered = sql`select ${cols} from public_items p where ${base_}
      and p.fields @> '{"category": "news"}'::jsonb and ${price} >= 100 and ${price} < 200
      order by (${price} is null) asc, ${price} desc, p.group_id asc limit 21`;
  const rawSingle = (slug: string) =>
    sql`select ${cols},
      (select coalesce(json_agg(json_build_object('locale', e.locale, 'slug', e.slug)
          order by e.locale), '[]'::json)
        from entries e join entry_groups g on g.site_id = e.site_id and g.id = e.group_id
        where e.site_id = p.site_id and e.group_id = p.group_id
          and e.published_version_id is not null and g.trashed_at is null) as alternates
      from public_items p where ${base_} and p.slug = ${slug} order by p.group_id limit 2`;
  // The page and, by the ids its sections name, the two shared sections' published documents.
  const rawPage = sql`select ${cols},
      (select json_agg(s.fields -> 'slides') from public_items s
        where s.site_id = p.site_id and s.requested_locale = p.requested_locale
          and s.group_id in (select (x -> 'shared' ->> 'entry')::uuid
            from jsonb_array_elements(p.fields -> 'slides' -> 'sections') x
            where x ->> 'type' = 'shared')) as shared
      from public_items p where p.site_id = ${siteId} and p.model_id = ${pagesModelId}
        and p.requested_locale = 'en' and p.slug = ${BENCH_PAGE} limit 2`;
  // The service's search and suggestion SQL (core/search/search.ts, suggest.ts) for this site's plan: posts
  // only, whole words, matched over title + category, ranked by title (weight 10). Whole-word
  // matching reads no stems. Search first looks for top-ranked matches among the newest 1,000
  // documents (every answer here is found there); suggest reads titles starting with the typed
  // words (none here: titles start with "Post"), then titles containing them among the newest
  // 1,000, in one statement.
  const text =
    sql`(coalesce(d.field_words->>'title', '') || coalesce(d.field_words->>'category', ''))`;
  const newest = sql`(select * from search_documents d
      where d.site_id = ${siteId} and d.locale = 'en'
      order by d.published_at desc, d.entry_id desc limit ${1000}) d`;
  const docColumns =
    sql`d.entry_id, d.model_id, d.locale, d.slug, d.title, d.summary, d.published_at`;
  const rawSearch = (w: string) =>
    sql<{ slug: string }>`select * from (
      select ${docColumns},
        case d.model_id when ${modelId} then greatest(case when (strpos((coalesce(d.field_words->>'title', '')), ${` ${w} `}) > 0) then ${10}::int else 0 end, 0) else 0 end as rank
      from ${newest}
      where ((d.model_id = ${modelId} and d.words @@ ${`'${w}'`}::tsquery and (strpos(${text}, ${` ${w} `}) > 0)))
    ) s
    where s.rank = ${10}
    order by s.published_at desc, s.entry_id desc
    limit ${11}`;
  const suggestMatch = (p: string) =>
    sql`(d.model_id = ${modelId} and d.words @@ ${`'${p}':*`}::tsquery and (strpos(${text}, ${` ${p}`}) > 0))`;
  // As the service runs it, one statement: titles starting with the prefix, read only when the
  // prefix range holds at most 200 titles (counted first), then titles containing it among the
  // newest 1,000.
  const prefixRange = (p: string) =>
    sql`d.site_id = ${siteId} and d.locale = 'en'
      and d.title_words ~>=~ ${` ${p}`} and d.title_words ~<~ ${
      prefixEnd(` ${p}`)
    }`;
  const newestFirst = sql`order by d.published_at desc, d.entry_id desc`;
  const rawSuggestQuery = (p: string) =>
    sql<{ slug: string | null; many: string }>`with starts as materialized (
      select count(*) as many from (
        select 1 from search_documents d where ${prefixRange(p)} limit ${201}
      ) x
    ), first as materialized (
      select ${docColumns}, 0 as rank, 0 as lvl
      from search_documents d
      where ${prefixRange(p)} and strpos(d.title_words, ${` ${p}`}) = 1
        and (${suggestMatch(p)}) and (select many from starts) <= ${200}
      ${newestFirst} limit ${5}
    ), found as (
      select * from first
      union all
      select * from (
        select ${docColumns}, 0 as rank, 1 as lvl
        from ${newest}
        where (${
      suggestMatch(p)
    }) and case when strpos(d.title_words, ${` ${p}`}) = 1 then 0
          when strpos(d.title_words, ${` ${p}`}) > 0 then 1 else 2 end = 1
        ${newestFirst} limit ${5}
      ) c
      where (select count(*) from first) < ${5} and (select many from starts) <= ${200}
    )
    select f.*, s.many from starts s left join lateral (
      select * from found u order by u.lvl, u.published_at desc, u.entry_id desc limit ${5}
    ) f on true`;
  const rawSuggest = async (p: string) =>
    (await rawSuggestQuery(p).execute(db)).rows.filter((r) => r.slug) as {
      slug: string;
    }[];
  // The hand-written SQL must answer what the service answers: the same slugs, in order.
  const sameAnswer = async (
    path: string,
    rows: { slug: string }[],
    pageSize: number,
  ) => {
    const viaHttp = (await get(computed.origin, path)).body.data.map((
      r: { slug: string },
    ) => r.slug);
    const viaSql = rows.slice(0, pageSize).map((r) => r.slug);
    if (
      viaSql.length === 0 || JSON.stringify(viaHttp) !== JSON.stringify(viaSql)
    ) {
      throw new Error(
        `Raw SQL differs from the service for ${path}: ${
          JSON.stringify({ viaHttp, viaSql })
        }`,
      );
    }
  };
  await sameAnswer(FILTERED, (await rawFiltered.execute(db)).rows, 20);
  for (let i = 0; i < 3; i++) {
    const word = VOCAB[i];
    await sameAnswer(SEARCH[i], (await rawSearch(word).execute(db)).rows, 10);
    await sameAnswer(SUGGEST[i], await rawSuggest(word.slice(0, 3)), 5);
  }
  // Scenarios without a hand-written query here are compared with the plain list instead.
  const raw: Record<string, (i: number) => Promise<boolean>> = {
    "list page (limit=20, default order)": async () =>
      (await rawList(null).execute(db)).rows.length === 21,
    "filtered + sorted list": async () =>
      (await rawFiltered.execute(db)).rows.length > 0,
    "single read by slug": async (i) =>
      (await rawSingle(slugs[i % slugs.length]).execute(db)).rows.length === 1,
    "page with two shared sections": async () =>
      (await rawPage.execute(db)).rows.length === 1,
    "search (q=<word>, locale=en)": async (i) =>
      (await rawSearch(VOCAB[i % VOCAB.length]).execute(db)).rows.length === 11,
    "suggest (q=<3-letter prefix>, locale=en)": async (i) =>
      (await rawSuggest(VOCAB[i % VOCAB.length].slice(0, 3))).length === 5,
    "cursor walk, 50 pages (one sample = whole walk)": async () => {
      let after: { at: string; id: string } | null = null;
      for (let p = 0; p < 50; p++) {
        const rows: { group_id: string; k_at: string }[] =
          (await rawList(after).execute(db)).rows;
        const last = rows[19];
        after = { at: last.k_at, id: last.group_id };
      }
      return true;
    },
  };

  // Paths `wrk` cycles through for the single-request scenarios (the walk needs each answer).
  const wrkPaths: Record<string, string[]> = {
    "list page (limit=20, default order)": [LIST],
    "filtered + sorted list": [FILTERED],
    "single read by slug": slugs.map((s) => `/v1/posts/${s}`),
    "page with two shared sections": [PAGE],
    "sorted by a text field (sort=title)": [SORTED_TEXT],
    "sorted by a date-time field (sort=-happened_at)": [SORTED_TIME],
    "search (q=<word>, locale=en)": SEARCH,
    "search, two words that seldom meet (q=<word> <word>)": SEARCH_RARE,
    "suggest (q=<3-letter prefix>, locale=en)": SUGGEST,
  };
  const useWrk = Deno.env.get("BENCH_LOAD") !== "deno" && await hasWrk();
  console.log(`HTTP load generator: ${useWrk ? "wrk" : "Deno fetch"}`);
  const results: {
    scenario: string;
    kind: string;
    concurrency: number;
    load: "wrk" | "deno";
    stats: RunStats;
    /** CPU (user + system) of the service process per request, where /proc tells it. */
    service_cpu_ms_per_request?: number;
  }[] = [];
  // Search and suggestions never keep answers (nothing about what visitors type is kept), so
  // they are measured once; the reads are measured with answers kept and computed every time.
  const kinds = (name: string) =>
    name.startsWith("search") || name.startsWith("suggest")
      ? [{ kind: "HTTP", server: computed }]
      : [
        { kind: "HTTP", server: kept },
        { kind: "HTTP, not kept", server: computed },
      ];
  for (const [name, task] of Object.entries(scenarios)) {
    if (only.length > 0 && !only.some((w) => name.includes(w))) continue;
    const walk = name.startsWith("cursor");
    const runs = [
      ...kinds(name).map(({ kind, server }) => ({
        kind,
        server: server as typeof server | null,
        fn: (i: number) => task(server.origin, i),
      })),
      ...(raw[name] ? [{ kind: "raw SQL", server: null, fn: raw[name] }] : []),
    ];
    for (const { kind, server, fn } of runs) {
      const viaWrk = useWrk && server !== null && !walk;
      if (viaWrk) await runWrk(server.origin, wrkPaths[name], 4, 2); // warm-up
      else await runLoad(4, walk ? 1 : 25, fn);
      for (const c of [1, 32]) {
        const per = walk ? (c === 1 ? 10 : 2) : (c === 1 ? 300 : 60);
        const cpu0 = server ? await cpuTicks(server.pid) : null;
        const s = viaWrk
          ? await runWrk(server.origin, wrkPaths[name], c, c === 1 ? 5 : 8)
          : await runLoad(c, per, fn);
        const cpu1 = server ? await cpuTicks(server.pid) : null;
        const cpu = cpu0 !== null && cpu1 !== null && s.requests > 0
          ? Number(((cpu1 - cpu0) * 10 / s.requests).toFixed(3))
          : undefined;
        results.push({
          scenario: name,
          kind,
          concurrency: c,
          load: viaWrk ? "wrk" : "deno",
          stats: s,
          ...(cpu === undefined ? {} : { service_cpu_ms_per_request: cpu }),
        });
        console.log(
          `${kind.padEnd(14)} c=${String(c).padStart(2)} ${name}: ${
            JSON.stringify(s)
          }${cpu === undefined ? "" : ` service CPU ${cpu} ms/request`}`,
        );
      }
    }
  }

  const plans: Record<string, string> = {};
  const explain = async (
    name: string,
    query: {
      compile(db: unknown): { sql: string; parameters: readonly unknown[] };
    },
  ) => {
    const compiled = query.compile(db);
    const res = await sql.raw(
      `explain (analyze, buffers, costs off, timing off) ${
        interpolate(compiled.sql, compiled.parameters)
      }`,
    ).execute(db);
    plans[name] = (res.rows as Record<string, string>[]).map((r) =>
      r["QUERY PLAN"]
    ).join("\n");
  };
  await explain("list page", rawList(null));
  const mid = (await rawList(null).execute(db)).rows[19];
  await explain("cursor page", rawList({ at: mid.k_at, id: mid.group_id }));
  await explain("filtered + sorted list", rawFiltered);
  await explain("filtered + sorted list, JSON sort (before)", jsonFiltered);
  await explain("single read by slug", rawSingle("en-post-4242"));
  await explain("page with two shared sections", rawPage);
  await explain("search q=garden", rawSearch("garden"));
  await explain("suggest q=gar", rawSuggestQuery("gar"));
  await explain(
    "suggest q=pos (every title starts with it)",
    rawSuggestQuery("pos"),
  );
  await explain(
    "request context (site, languages, policy, origins, token, model)",
    contextQuery({
      site: { domain: "127.0.0.1" },
      tokenDigest: null,
      modelSlug: "posts",
    }),
  );
  const out = {
    machine:
      `${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} CPUs, ${Deno.version.deno}`,
    postgres:
      (await sql<{ v: string }>`select version() as v`.execute(db)).rows[0].v,
    entries: seeded.entries,
    public_rows: seeded.publicRows,
    seed_seconds: Number(seeded.seedSeconds.toFixed(1)),
    search_documents: seeded.documents,
    search_index_seconds: Number(seeded.indexSeconds.toFixed(1)),
    queries: {
      list: LIST,
      filtered: FILTERED,
      single: "/v1/posts/en-post-<n>",
      sorted_text: SORTED_TEXT,
      sorted_time: SORTED_TIME,
      search: "/v1/_search?q=<word of VOCAB>&locale=en",
      search_rare:
        "/v1/_search?q=<word of VOCAB> <the word 7 places on>&locale=en",
      suggest:
        "/v1/_search/suggest?q=<first 3 letters of a VOCAB word>&locale=en",
    },
    results,
    plans,
  };
  await Deno.writeTextFile(
    new URL("./results.json", import.meta.url),
    JSON.stringify(out, null, 2) + "\n",
  );
  console.log("wrote bench/results.json");
} finally {
  for (const server of servers) await server.stop();
  await db.destroy();
  if (keep) console.log(`kept the database: BENCH_DB=${dbName}`);
  else await admin(`drop database if exists ${dbName} with (force)`);
}

/** Inlines parameters for EXPLAIN (values are the benchmark's own, never user input). */
function interpolate(text: string, params: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n) => {
    const v = params[Number(n) - 1];
    return typeof v === "number"
      ? String(v)
      : `'${String(v).replaceAll("'", "''")}'`;
  });
}
