// `deno task bench:admin`: the editors' admin on a model with 100,000 entries (two languages) on
// real PostgreSQL. Measures each admin page's answer time over HTTP on 127.0.0.1 (sequential, so
// the time is the server's plus loopback; median, p95 and p99), then loads each page in headless
// Chromium and sums the JavaScript and CSS it fetched: raw, and as sent over the wire (the service
// compresses them, issue 43). Issue 13's budgets: < 100 KB editor, < 20 KB lists; pages that need
// no script (dashboard, lists, versions) must load none, or the bench fails.
import { sql } from "kysely";
import { chromium } from "playwright-core";
import { seedDefaultRoles } from "../core/access/roles.ts";
import { SESSION_COOKIE } from "../core/auth/cookies.ts";
import { createSession } from "../core/auth/session_store.ts";
import { systemClock } from "../core/clock.ts";
import { createModel } from "../core/models/store.ts";
import { bulkIndexSite } from "../core/search/bulk_index.ts";
import { runLoad } from "./load.ts";
import { seedEntries } from "./seed.ts";
import { openScratchDatabase } from "./scratch_db.ts";
import { startService } from "./service.ts";

const ENTRIES = Number(Deno.env.get("BENCH_ENTRIES") ?? 100_000);
const SAMPLES = Number(Deno.env.get("BENCH_SAMPLES") ?? 200);
const scratch = await openScratchDatabase(
  "stave_bench_admin",
  "the admin benchmark",
);
const { db } = scratch;
try {
  const siteId = crypto.randomUUID();
  await db.insertInto("sites").values({
    id: siteId,
    slug: "bench",
    name: "bench",
    domain: "127.0.0.1",
    created_at: new Date(),
  }).execute();
  await db.insertInto("site_languages").values([
    { site_id: siteId, code: "en", position: 0, is_default: true },
    { site_id: siteId, code: "de", position: 1, is_default: false },
  ]).execute();
  const made = await createModel({ db, clock: systemClock, siteId }, {
    model: { name: "Posts", slug: "posts", description: "", enableI18n: true },
    fields: [
      {
        key: "title",
        label: "Title",
        type: "text",
        required: true,
        localized: true,
      },
      {
        key: "category",
        label: "Category",
        type: "select",
        config: { options: ["news", "guide", "release", "opinion"] },
      },
      { key: "body", label: "Body", type: "rich_text", localized: true },
      { key: "price", label: "Price", type: "number" },
    ],
  });
  if (!made.ok) throw new Error(`Cannot create the bench model: ${made.code}`);
  const modelId = made.model_id!;
  const seedStart = performance.now();
  const at = sql<Date>`timestamptz '2020-01-01' + i * interval '1 minute'`;
  await seedEntries(db, {
    siteId,
    modelId,
    count: ENTRIES,
    languages: ["en", "de"],
    title: sql<
      string
    >`case when l = 'en' then 'Post ' || i else 'Beitrag ' || i end`,
    fields: sql`jsonb_build_object(
      'category', (array['news', 'guide', 'release', 'opinion'])[1 + i % 4],
      'body', '<p>Text of post ' || i || '.</p>',
      'price', (i * 7919) % 1000)`,
    draft: sql<boolean>`i % 10 = 0`,
    publishedAt: at,
    changedAt: at,
  });
  await sql`analyze`.execute(db);
  await bulkIndexSite(db, siteId);
  await sql`vacuum analyze`.execute(db);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  console.log(
    `seeded ${ENTRIES} entries x 2 languages in ${seedSeconds.toFixed(1)} s`,
  );

  const userId = crypto.randomUUID();
  await db.insertInto("users").values({
    id: userId,
    email: "bench@example.com",
    display_name: "Bench",
    password_hash: "x",
    status: "active",
    created_at: new Date(),
  }).execute();
  const roles = await seedDefaultRoles(db, siteId, systemClock);
  await db.insertInto("site_members").values({
    site_id: siteId,
    user_id: userId,
    role_id: roles.administrator.id,
    created_at: new Date(),
  }).execute();
  const session = await createSession({ db, clock: systemClock }, userId);
  const cookie = `${SESSION_COOKIE}=${session.token}`;

  const service = await startService(scratch.url, { BENCH_ISLANDS: "1" });
  try {
    const group = await db.selectFrom("entry_groups").select("id")
      .where("site_id", "=", siteId).orderBy("created_at", "desc").limit(1)
      .executeTakeFirstOrThrow();
    // The second page is reached as a person reaches it: through the first page's own
    // next-page link, so the bench measures the cursor the admin hands out.
    const firstPage = await fetch(`${service.origin}/admin/content/posts`, {
      headers: { cookie, accept: "text/html" },
    });
    const nextLink = /<a href="([^"]+)" rel="next"/.exec(await firstPage.text())
      ?.[1];
    if (!nextLink) {
      throw new Error("The entry list's first page has no next-page link");
    }
    const pages: Record<string, string> = {
      "dashboard": "/admin",
      "entry list (25 newest)": "/admin/content/posts",
      "entry list, next page": nextLink.replaceAll("&amp;", "&"),
      "entry list, drafts in en": "/admin/content/posts?status=draft&lang=en",
      "entry list, search q=4242": "/admin/content/posts?q=4242",
      "entry list, category guide":
        "/admin/content/posts?field=category&value=guide",
      "entry list, sort by title": "/admin/content/posts?sort=title",
      "entry editor": `/admin/content/posts/${group.id}?lang=en`,
      "new entry": "/admin/content/posts/new?lang=en",
      "versions": `/admin/content/posts/${group.id}/versions?lang=en`,
    };
    /** Pages without islands: they must load no JavaScript at all. */
    const NO_SCRIPT = new Set([
      "dashboard",
      "entry list (25 newest)",
      "versions",
    ]);
    const results: Record<string, unknown> = {};
    for (const [name, path] of Object.entries(pages)) {
      const get = async () => {
        const response = await fetch(`${service.origin}${path}`, {
          headers: { cookie, accept: "text/html" },
          redirect: "manual",
        });
        await response.arrayBuffer();
        return response.status === 200;
      };
      for (let i = 0; i < 10; i++) await get(); // warm-up
      const run = await runLoad(1, SAMPLES, get);
      results[name] = { path, ...run };
      console.log(
        `${
          name.padEnd(28)
        } median ${run.median_ms} ms, p95 ${run.p95_ms} ms, p99 ${run.p99_ms} ms, errors ${run.errors}`,
      );
    }

    const browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
    });
    const assets: Record<
      string,
      {
        js: { raw: number; sent: number; files: number };
        css: { raw: number; sent: number; files: number };
      }
    > = {};
    const scriptful: string[] = [];
    try {
      const context = await browser.newContext();
      await context.addCookies([{
        name: SESSION_COOKIE,
        value: session.token,
        url: service.origin,
      }]);
      const page = await context.newPage();
      for (const [name, path] of Object.entries(pages)) {
        if (name.startsWith("entry list,")) continue;
        const fetched: {
          kind: "js" | "css";
          raw: Promise<number>;
          sent: Promise<number>;
        }[] = [];
        const onResponse = (
          response: {
            body(): Promise<Uint8Array>;
            request(): {
              resourceType(): string;
              sizes(): Promise<{ responseBodySize: number }>;
            };
          },
        ) => {
          const type = response.request().resourceType();
          if (type !== "script" && type !== "stylesheet") return;
          fetched.push({
            kind: type === "script" ? "js" : "css",
            raw: response.body().then((b) => b.byteLength),
            // The body's size on the wire: compressed when the service compressed it.
            sent: response.request().sizes().then((s) =>
              Math.max(0, s.responseBodySize)
            ),
          });
        };
        page.on("response", onResponse);
        // A fresh cache per page, so each page's bytes are counted as a first visit's.
        const cdp = await context.newCDPSession(page);
        await cdp.send("Network.enable");
        await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
        await page.goto(`${service.origin}${path}`, {
          waitUntil: "networkidle",
        });
        await cdp.detach();
        page.off("response", onResponse);
        const sum = { raw: 0, sent: 0, files: 0 };
        const totals = { js: { ...sum }, css: { ...sum } };
        for (const f of fetched) {
          totals[f.kind].raw += await f.raw;
          totals[f.kind].sent += await f.sent;
          totals[f.kind].files++;
        }
        assets[name] = totals;
        if (NO_SCRIPT.has(name) && totals.js.files > 0) scriptful.push(name);
        const kb = (n: number) => (n / 1024).toFixed(1);
        console.log(
          `${name.padEnd(28)} JS ${totals.js.files} files, ${
            kb(totals.js.raw)
          } KB (${
            kb(totals.js.sent)
          } KB sent); CSS ${totals.css.files} files, ${
            kb(totals.css.raw)
          } KB (${kb(totals.css.sent)} KB sent)`,
        );
      }
    } finally {
      await browser.close();
    }
    const out = {
      machine:
        `${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} CPUs, ${Deno.version.deno}`,
      postgres:
        (await sql<{ v: string }>`select version() as v`.execute(db)).rows[0].v,
      entries: ENTRIES,
      seed_seconds: Number(seedSeconds.toFixed(1)),
      samples: SAMPLES,
      pages: results,
      assets,
    };
    await Deno.writeTextFile(
      new URL("./admin-results.json", import.meta.url),
      JSON.stringify(out, null, 2) + "\n",
    );
    console.log("wrote bench/admin-results.json");
    if (scriptful.length > 0) {
      throw new Error(
        `Pages that need no script loaded JavaScript: ${scriptful.join(", ")}`,
      );
    }
  } finally {
    await service.stop();
  }
} finally {
  await scratch.drop();
}
