// A list or item read starts from the context an earlier request read and confirms it inside its
// own page statement (core/public/request_context.ts): one statement per read. Every change to
// what a context is made of moves the site's context revision (migration 0236), so the next read
// shows it as a fresh context would (PUB-009, PUB-035, AUTH-002, AUTH-003).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import type { Db } from "../../core/db/database.ts";
import {
  type PublicContextQuery,
  rememberedContext,
} from "../../core/public/request_context.ts";
import {
  issueSiteToken,
  revokeSiteToken,
} from "../../core/public/site_tokens.ts";
import { sha256HexSync } from "../../core/kv/digest.ts";
import { SEARCH_LIMITS } from "../../core/search/request.ts";
import { searchWords } from "../../core/search/words.ts";
import { codeOf, openPublicWorld } from "./helpers.ts";

/** The site's context revision as stored (0 before any change). */
async function revisionOf(db: Db, siteId: string): Promise<number> {
  const { rows } = await sql<{ revision: string | number }>`
    select revision from public_context_revisions where site_id = ${siteId}
  `.execute(db);
  return rows.length === 0 ? 0 : Number(rows[0].revision);
}

Deno.test("every change to what a public context is made of moves the site's revision, other settings do not", async () => {
  const w = await openPublicWorld();
  try {
    const { db } = w.services;
    const steps: [string, ReturnType<typeof sql>, boolean][] = [
      [
        "site renamed",
        sql`update sites set name = 'Renamed' where id = ${w.siteId}`,
        true,
      ],
      [
        "language moved",
        sql`update site_languages set position = position where site_id = ${w.siteId}`,
        true,
      ],
      [
        "language policy written",
        sql`update site_settings set revision = revision + 1
          where site_id = ${w.siteId} and key = 'language-fallback'`,
        true,
      ],
      [
        "search settings written",
        sql`insert into site_settings (site_id, key, document, revision, updated_at)
          values (${w.siteId}, 'search', '{}'::jsonb, 1, now())
          on conflict (site_id, key) do update set revision = site_settings.revision + 1`,
        true,
      ],
      [
        "SEO settings written",
        sql`insert into site_settings (site_id, key, document, revision, updated_at)
          values (${w.siteId}, 'seo', '{}'::jsonb, 1, now())
          on conflict (site_id, key) do update set revision = site_settings.revision + 1`,
        false,
      ],
      [
        "browser origins written",
        sql`insert into site_browser_origins (site_id, origins, updated_at)
          values (${w.siteId}, '["https://shop.example"]'::jsonb, now())
          on conflict (site_id) do update set updated_at = now()`,
        true,
      ],
      [
        "model changed",
        sql`update models set folder = 'Blog' where site_id = ${w.siteId} and slug = 'posts'`,
        true,
      ],
      [
        "search settings removed",
        sql`delete from site_settings where site_id = ${w.siteId} and key = 'search'`,
        true,
      ],
    ];
    for (const [what, statement, moves] of steps) {
      const before = await revisionOf(db, w.siteId);
      await statement.execute(db);
      const after = await revisionOf(db, w.siteId);
      equal(after > before, moves, `${what}: revision ${before} -> ${after}`);
    }
    const before = await revisionOf(db, w.siteId);
    const issued = await issueSiteToken({ db, clock: w.clock }, {
      siteId: w.siteId,
      name: "build",
      modelIds: [],
    });
    ok(issued.ok);
    const issuedAt = await revisionOf(db, w.siteId);
    ok(issuedAt > before, "a token issued moves it");
    ok(await revokeSiteToken({ db, clock: w.clock }, w.siteId, issued.id));
    ok(await revisionOf(db, w.siteId) > issuedAt, "a token revoked moves it");
  } finally {
    await w.close();
  }
});

Deno.test("a remembered context serves the next reads, and each change shows at the next read (PUB-009, PUB-035)", async () => {
  // Computed answers: every read goes through the remembered context, none is kept.
  const w = await openPublicWorld({ PUBLIC_ANSWER_CACHE_MB: "0" });
  try {
    const { db } = w.services;
    const query = (modelSlug: string, token?: string): PublicContextQuery => ({
      site: { domain: "localhost" },
      tokenDigest: token === undefined ? null : sha256HexSync(token),
      modelSlug,
    });
    const first = await w.get("/v1/posts?limit=2");
    equal(first.status, 200);
    const firstBody = await first.text();
    const remembered = rememberedContext(db, query("posts"));
    ok(remembered, "the first read leaves its context for the next ones");
    equal(
      remembered.unconfirmed,
      true,
      "a remembered context starts unconfirmed",
    );
    for (let i = 0; i < 2; i++) {
      const again = await w.get("/v1/posts?limit=2");
      equal(again.status, 200);
      deepEqual(
        JSON.parse(await again.text()).data,
        JSON.parse(firstBody).data,
        "the same items from a remembered context",
      );
    }
    const slug = JSON.parse(firstBody).data[0].slug;
    equal((await w.get(`/v1/posts/${slug}`)).status, 200);
    equal((await w.get(`/v1/posts/${slug}`)).status, 200);

    // A model made private: the next list and item reads answer 404 like any hidden model.
    await sql`update models set is_public = false where site_id = ${w.siteId} and slug = 'posts'`
      .execute(db);
    equal(await codeOf(await w.get("/v1/posts?limit=2")), "not_found");
    equal(await codeOf(await w.get(`/v1/posts/${slug}`)), "not_found");
    ok(
      rememberedContext(db, query("posts"))!.revision !== remembered.revision,
      "the stale context was replaced",
    );
    await sql`update models set is_public = true where site_id = ${w.siteId} and slug = 'posts'`
      .execute(db);
    equal((await w.get("/v1/posts?limit=2")).status, 200);

    // A token that read a private model, then revoked.
    const notes = await w.modelId("notes");
    const issued = await issueSiteToken({ db, clock: w.clock }, {
      siteId: w.siteId,
      name: "build",
      modelIds: [notes],
    });
    ok(issued.ok);
    const auth = { authorization: `Bearer ${issued.token}` };
    equal((await w.get("/v1/notes", auth)).status, 200);
    equal((await w.get("/v1/notes", auth)).status, 200);
    ok(rememberedContext(db, query("notes", issued.token)));
    ok(await revokeSiteToken({ db, clock: w.clock }, w.siteId, issued.id));
    equal(await codeOf(await w.get("/v1/notes", auth)), "not_found");
    equal(await codeOf(await w.get("/v1/notes")), "not_found");

    // A token issued after a read without it: the remembered context of that read never holds
    // a token, and a new token's first read is checked on a fresh context.
    const later = await issueSiteToken({ db, clock: w.clock }, {
      siteId: w.siteId,
      name: "later",
      modelIds: [notes],
    });
    ok(later.ok);
    equal(
      (await w.get("/v1/notes", { authorization: `Bearer ${later.token}` }))
        .status,
      200,
    );

    // Browser origins added and removed: the CORS header follows at the next read.
    const allowedOrigin = async () =>
      (await w.get("/v1/posts?limit=1", { origin: "https://shop.example" }))
        .headers.get("access-control-allow-origin");
    equal(await allowedOrigin(), null);
    await sql`insert into site_browser_origins (site_id, origins, updated_at)
      values (${w.siteId}, '["https://shop.example"]'::jsonb, now())
      on conflict (site_id) do update set origins = excluded.origins`.execute(
      db,
    );
    equal(await allowedOrigin(), "https://shop.example");
    await sql`delete from site_browser_origins where site_id = ${w.siteId}`
      .execute(db);
    equal(await allowedOrigin(), null);

    // The site moved to another host.
    await sql`update sites set domain = 'elsewhere.example' where id = ${w.siteId}`
      .execute(db);
    equal(await codeOf(await w.get("/v1/posts?limit=1")), "unknown_host");
    equal(
      (await w.app.request("/v1/posts?limit=1", {
        headers: { host: "elsewhere.example" },
      })).status,
      200,
    );
  } finally {
    await w.close();
  }
});

Deno.test("an empty page and a missing item are confirmed too", async () => {
  const w = await openPublicWorld({ PUBLIC_ANSWER_CACHE_MB: "0" });
  try {
    const { db } = w.services;
    for (let i = 0; i < 2; i++) {
      equal(await codeOf(await w.get("/v1/posts/no-such-slug")), "not_found");
      const empty = await w.get("/v1/posts?filter[title]=nothing-matches");
      equal(empty.status, 200);
      deepEqual((await empty.json()).data, []);
    }
    // The model made private between two empty answers: a confirmed empty page is still
    // checked against the revision, so the refusal shows.
    await sql`update models set is_public = false where site_id = ${w.siteId} and slug = 'posts'`
      .execute(db);
    equal(
      await codeOf(await w.get("/v1/posts?filter[title]=nothing-matches")),
      "not_found",
    );
  } finally {
    await w.close();
  }
});

Deno.test("searches and suggestions start from a remembered context too, and a change to search settings shows at the next one (SRCH-004, PUB-035)", async () => {
  const w = await openPublicWorld({ PUBLIC_ANSWER_CACHE_MB: "0" });
  try {
    const { db } = w.services;
    const listed = await (await w.get("/v1/posts?limit=1")).json();
    // A word suggestions take too (at least SEARCH_LIMITS.suggestQ.min characters): a title
    // starting "A ..." made the suggestions below a 400.
    const word = searchWords(String(listed.data[0].fields.title)).find((
      candidate,
    ) => [...candidate].length >= SEARCH_LIMITS.suggestQ.min);
    ok(word, "the newest post's title holds a word suggestions take");
    const searched = async () => {
      const r = await w.get(`/v1/_search?q=${encodeURIComponent(word)}`);
      return { status: r.status, body: await r.json() };
    };
    const first = await searched();
    equal(first.status, 200);
    ok(first.body.data.length > 0, `"${word}" finds the post it came from`);
    const remembered = rememberedContext(db, {
      site: { domain: "localhost" },
      tokenDigest: null,
      modelSlug: null,
    });
    ok(remembered, "the search leaves its context for the next requests");
    deepEqual(
      (await searched()).body,
      first.body,
      "the same page from a remembered context",
    );

    // Search turned off, then on again, by a write the service did not make: each change is
    // the next search's answer.
    const setSearch = (enabled: boolean) =>
      sql`insert into site_settings (site_id, key, document, revision, updated_at)
        values (${w.siteId}, 'search', ${
        JSON.stringify({ enabled, types: [] })
      }, 1, now())
        on conflict (site_id, key) do update set document = excluded.document,
          revision = site_settings.revision + 1`.execute(db);
    const suggested = async () => {
      const r = await w.get(
        `/v1/_search/suggest?q=${encodeURIComponent(word)}&locale=en`,
      );
      return { status: r.status, body: await r.json() };
    };
    const firstSuggested = await suggested();
    equal(firstSuggested.status, 200);
    ok(firstSuggested.body.data.length > 0);
    deepEqual((await suggested()).body, firstSuggested.body);
    await setSearch(false);
    const off = await searched();
    equal(off.status, 404);
    equal(off.body.error.code, "search_off");
    equal((await suggested()).body.error.code, "search_off");
    await setSearch(true);
    deepEqual((await suggested()).body, firstSuggested.body);
    deepEqual((await searched()).body, first.body);
  } finally {
    await w.close();
  }
});
