// Long on purpose: single reads' privacy, token and cache cases share one seeded world.
// Single reads, privacy, tokens, previews, cache headers and CORS over HTTP (spec 3 parts 3, 4.3, 5, 7;
// inventory PUB-005, PUB-008, PUB-009, PUB-031 to PUB-036, AUTH-001 to AUTH-013).
import { assertIfNoneMatch } from "../support/conditional.ts";
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  publishEntry,
  saveEntry,
  trashEntry,
  unpublishEntry,
} from "../../core/entries/mod.ts";
import { setBrowserOrigins } from "../../core/public/browser_origins.ts";
import { mintPreviewToken } from "../../core/public/preview_tokens.ts";
import {
  issueSiteToken,
  revokeSiteToken,
} from "../../core/public/site_tokens.ts";
import { putSettings } from "../../core/sites/settings.ts";
import { insertSite } from "../support/sites.ts";
import { sql } from "kysely";
import { fillAlternates } from "../../core/db/migrations/0238_public_item_alternates.ts";
import { codeOf, openPublicWorld, type PublicWorld } from "./helpers.ts";

async function groupState(w: PublicWorld, groupId: string) {
  const g = await w.services.db.selectFrom("entry_groups").select([
    "revision",
    "current_version_id",
  ])
    .where("id", "=", groupId).executeTakeFirstOrThrow();
  const e = await w.services.db.selectFrom("entries").select([
    "locale",
    "published_version_id",
    "current_version_id",
  ])
    .where("group_id", "=", groupId).execute();
  return { revision: g.revision, current: g.current_version_id, entries: e };
}

/** Unpublishes one language of a group as the demo admin, at its current state. */
async function unpublishLanguage(
  w: PublicWorld,
  groupId: string,
  locale: string,
) {
  const s = await groupState(w, groupId);
  return await unpublishEntry(w.ctx(), {
    group_id: groupId,
    locale,
    expected_published_version_id: s.entries.find((e) => e.locale === locale)!
      .published_version_id,
    expected_workflow_revision: s.revision,
  });
}

Deno.test("GET /v1/{model}/{slug} and access rules", async (t) => {
  const w = await openPublicWorld();
  const get = (path: string, headers?: Record<string, string>) =>
    w.get(path, headers);
  try {
    await t.step(
      "a single read carries alternates of every live language, the served one included (PUB-005)",
      async () => {
        const res = await get(
          "/v1/posts/caching-at-the-edge-without-stale-pages",
        );
        equal(res.status, 200);
        const body = await res.json();
        equal(body.data.slug, "caching-at-the-edge-without-stale-pages");
        equal(body.data.locale, "en");
        deepEqual(body.data.alternates, [
          { locale: "de", slug: "caching-am-netzrand-ohne-veraltete-seiten" },
          { locale: "en", slug: "caching-at-the-edge-without-stale-pages" },
        ]);
        // PUB-004: responses carry `contracts`.
        deepEqual(body.contracts, { page: { served: 5 } });
        const de = await (await get(
          "/v1/posts/caching-am-netzrand-ohne-veraltete-seiten?locale=de",
        ))
          .json();
        equal(de.data.id, body.data.id);
        equal(de.data.locale, "de");
      },
    );

    await t.step(
      "the migration's fill gives earlier rows the alternates the projection writes (PUB-005)",
      async () => {
        const db = w.services.db;
        const read = async () =>
          (await sql<{ k: string; a: string }>`
            select group_id || ' ' || requested_locale as k, alternates::text as a
            from public_items order by 1`.execute(db)).rows;
        const written = await read();
        ok(written.some((r) => r.a.includes('"de"') && r.a.includes('"en"')));
        await sql`update public_items set alternates = '[]'::json`.execute(db);
        await fillAlternates(db);
        deepEqual(await read(), written);
      },
    );

    await t.step(
      "a language answers only at its own slug; fallback serves the default language's slug (PUB-032)",
      async () => {
        const res = await get(
          "/v1/posts/caching-at-the-edge-without-stale-pages?locale=de",
        );
        equal(res.status, 404);
        equal(await codeOf(res), "not_found");
        // Post 35 has no German translation: de falls back to en at the en slug.
        const fallback =
          await (await get("/v1/posts/why-we-sort-text-byte-by-byte?locale=de"))
            .json();
        equal(fallback.data.locale, "en");
        deepEqual(fallback.data.alternates, [{
          locale: "en",
          slug: "why-we-sort-text-byte-by-byte",
        }]);
      },
    );

    await t.step(
      "only locale, preview and expand are accepted (PUB-031)",
      async () => {
        for (
          const q of [
            "limit=1",
            "cursor=x",
            "foo=1",
            "locale=",
            "locale=en&locale=de",
            "fields=title",
          ]
        ) {
          const res = await get(
            `/v1/posts/caching-at-the-edge-without-stale-pages?${q}`,
          );
          equal(res.status, 400, q);
          equal(await codeOf(res), "public_filter_invalid", q);
        }
        equal(
          (await get(
            "/v1/posts/caching-at-the-edge-without-stale-pages?locale=en%20US",
          )).status,
          400,
        );
      },
    );

    await t.step(
      "unknown model, private model, unpublished item and bad preview answer the same 404 (PUB-035, AUTH-002)",
      async () => {
        const bodies: string[] = [];
        for (
          const path of [
            "/v1/nope",
            "/v1/notes",
            "/v1/nope/x",
            "/v1/notes/note-1",
            "/v1/posts/no-such-post",
            "/v1/posts/warming-the-cache-after-a-deploy", // a draft
            `/v1/posts/warming-the-cache-after-a-deploy?preview=sv_prev_${
              "A".repeat(43)
            }`,
            "/v1/_related/notes?cursor=x",
          ]
        ) {
          const res = await get(path);
          equal(res.status, 404, path);
          bodies.push(await res.text());
        }
        equal(new Set(bodies).size, 1, bodies.join("\n"));
        deepEqual(JSON.parse(bodies[0]), {
          error: { code: "not_found", message: "Not found" },
        });
      },
    );

    await t.step(
      "a site API token scoped to a private model reads it; other scopes, sites, revoked tokens do not (AUTH-002, AUTH-003)",
      async () => {
        const notes = await w.modelId("notes");
        const posts = await w.modelId("posts");
        const ctx = { db: w.services.db, clock: w.clock };
        const scoped = await issueSiteToken(ctx, {
          siteId: w.siteId,
          name: "build",
          modelIds: [notes],
        });
        ok(scoped.ok);
        ok(/^sv_site_[A-Za-z0-9_-]{43}$/.test(scoped.token));
        const stored = await w.services.db.selectFrom("site_api_tokens")
          .selectAll().execute();
        ok(
          !JSON.stringify(stored).includes(scoped.token),
          "only a digest is stored",
        );
        const auth = { authorization: `Bearer ${scoped.token}` };
        // Notes are drafts in the demo: the token sees the model, its list is empty.
        const list = await get("/v1/notes", auth);
        equal(list.status, 200);
        deepEqual((await list.json()).data, []);
        ok(list.headers.get("cache-control")?.startsWith("private"));
        equal((await get("/v1/posts?limit=1", auth)).status, 200);
        const other = await issueSiteToken(ctx, {
          siteId: w.siteId,
          name: "posts only",
          modelIds: [posts],
        });
        ok(other.ok);
        equal(
          (await get("/v1/notes", { authorization: `Bearer ${other.token}` }))
            .status,
          404,
        );
        const otherSite = await insertSite(w.services.db, {
          domain: "other.example",
        });
        const foreign = await issueSiteToken(ctx, {
          siteId: otherSite,
          name: "x",
          modelIds: [],
        });
        ok(foreign.ok);
        const res = await get("/v1/posts?limit=1", {
          authorization: `Bearer ${foreign.token}`,
        });
        equal(res.status, 404);
        equal(await codeOf(res), "not_found");
        equal(
          (await get("/v1/posts?limit=1", {
            authorization: "Bearer sv_site_nope",
          })).status,
          404,
        );
        ok(await revokeSiteToken(ctx, w.siteId, scoped.id));
        equal((await get("/v1/notes", auth)).status, 404);
        const expiring = await issueSiteToken(ctx, {
          siteId: w.siteId,
          name: "short",
          modelIds: [notes],
          expiresAt: new Date(w.clock.now().getTime() + 1000),
        });
        ok(expiring.ok);
        equal(
          (await get("/v1/notes", {
            authorization: `Bearer ${expiring.token}`,
          })).status,
          200,
        );
        w.clock.advance(1000);
        equal(
          (await get("/v1/notes", {
            authorization: `Bearer ${expiring.token}`,
          })).status,
          404,
        );
      },
    );

    await t.step(
      "public answers carry an ETag, answer 304 on If-None-Match and tag each item (cache headers)",
      async () => {
        const res = await get(
          "/v1/posts/caching-at-the-edge-without-stale-pages",
        );
        const etag = res.headers.get("etag");
        ok(etag);
        equal(
          res.headers.get("cache-control"),
          "public, max-age=30, must-revalidate",
        );
        const id = (await res.json()).data.id;
        ok(res.headers.get("cache-tag")!.split(",").includes(`instance:${id}`));
        const again = await get(
          "/v1/posts/caching-at-the-edge-without-stale-pages",
          {
            "if-none-match": etag,
          },
        );
        equal(again.status, 304);
        equal(await again.text(), "");
        equal(
          (await get("/v1/posts/caching-at-the-edge-without-stale-pages", {
            "if-none-match": '"other"',
          })).status,
          200,
        );
        // Weak comparison, lists and `*` on the single read and the list (RFC 9110).
        await assertIfNoneMatch(
          (headers) =>
            get("/v1/posts/caching-at-the-edge-without-stale-pages", headers),
          etag,
          "single read",
        );
        const list = await get("/v1/posts?limit=2");
        await assertIfNoneMatch(
          (headers) => get("/v1/posts?limit=2", headers),
          list.headers.get("etag")!,
          "list",
        );
        equal(
          list.headers.get("cache-tag")!.split(",").filter((t) =>
            t.startsWith("instance:")
          ).length,
          2,
        );
      },
    );

    await t.step(
      "a preview token serves the current draft for 30 minutes, never cached (PUB-036, AUTH-013)",
      async () => {
        const groupId = await w.groupId(
          "posts",
          "warming-the-cache-after-a-deploy",
        );
        const ctx = { db: w.services.db, clock: w.clock };
        const { token } = await mintPreviewToken(ctx, {
          siteId: w.siteId,
          groupId,
          personId: w.adminId,
        });
        ok(/^sv_prev_[A-Za-z0-9_-]{43}$/.test(token));
        const res = await get(
          `/v1/posts/warming-the-cache-after-a-deploy?preview=${token}`,
        );
        equal(res.status, 200);
        equal(res.headers.get("cache-control"), "no-store, private");
        equal(res.headers.get("etag"), null);
        const body = await res.json();
        equal(body.data.fields.title, "Warming the cache after a deploy");
        equal(body.data.published_at, null);
        // Another item with the same token is not previewed.
        equal(
          (await get(
            `/v1/posts/caching-at-the-edge-without-stale-pages?preview=${token}`,
          )).status,
          404,
        );
        w.clock.advance(29 * 60_000);
        equal(
          (await get(
            `/v1/posts/warming-the-cache-after-a-deploy?preview=${token}`,
          )).status,
          200,
        );
        w.clock.advance(60_000);
        equal(
          (await get(
            `/v1/posts/warming-the-cache-after-a-deploy?preview=${token}`,
          )).status,
          404,
        );
        const note = await w.groupId("notes", "note-1");
        const noteToken = await mintPreviewToken(ctx, {
          siteId: w.siteId,
          groupId: note,
          personId: w.adminId,
        });
        equal(
          (await get(`/v1/notes/note-1?preview=${noteToken.token}`)).status,
          404,
          "a private model stays unreadable",
        );
      },
    );

    await t.step(
      "CORS: default none, listed origins and * get allow-origin on success and error, never credentials (AUTH-004 to AUTH-012)",
      async () => {
        const origin = "https://front.example";
        // AUTH-006: a fresh site allows no cross-origin browser reads.
        let res = await get("/v1/posts?limit=1", { origin });
        equal(res.headers.get("access-control-allow-origin"), null);
        // AUTH-005: one complete origin per line, no trailing slash or path.
        const refused = await setBrowserOrigins(
          { db: w.services.db, clock: w.clock },
          w.siteId,
          "https://a.com/",
        );
        equal(refused.ok, false);
        for (
          const bad of [
            "https://a.com/path",
            "ftp://a.com",
            "a.com",
            "https://a.com?x=1",
            "https://user@a.com",
          ]
        ) {
          equal(
            (await setBrowserOrigins(
              { db: w.services.db, clock: w.clock },
              w.siteId,
              bad,
            )).ok,
            false,
            bad,
          );
        }
        // AUTH-005: nothing was stored by the refusals.
        equal(
          (await get("/v1/posts?limit=1", { origin: "https://a.com" }))
            .headers.get("access-control-allow-origin"),
          null,
        );
        ok(
          (await setBrowserOrigins(
            { db: w.services.db, clock: w.clock },
            w.siteId,
            `${origin}\n\nhttp://localhost:3000\n`,
          )).ok,
        );
        res = await get("/v1/posts?limit=1", { origin });
        equal(res.headers.get("access-control-allow-origin"), origin);
        // AUTH-008: credentialed CORS is never granted.
        equal(res.headers.get("access-control-allow-credentials"), null);
        ok(res.headers.get("vary")!.includes("Origin"));
        // AUTH-009: allowed origins get CORS headers on errors too.
        res = await get("/v1/posts?limit=101", { origin });
        equal(res.status, 400);
        equal(res.headers.get("access-control-allow-origin"), origin);
        res = await get("/v1/notes", { origin });
        equal(res.status, 404);
        equal(res.headers.get("access-control-allow-origin"), origin);
        // AUTH-011: an unlisted origin gets no allow-origin header.
        res = await get("/v1/posts?limit=1", {
          origin: "https://evil.example",
        });
        equal(res.headers.get("access-control-allow-origin"), null);
        res = await get("/v1/posts?limit=1");
        equal(res.status, 200, "server-side calls need no CORS");
        const preflight = (
          method: string,
          headers = "authorization, x-site-token",
          o = origin,
        ) =>
          w.app.request("/v1/posts", {
            method: "OPTIONS",
            headers: {
              host: "localhost",
              origin: o,
              "access-control-request-method": method,
              "access-control-request-headers": headers,
            },
          });
        res = await preflight("GET");
        equal(res.status, 204);
        equal(res.headers.get("access-control-allow-origin"), origin);
        equal(
          res.headers.get("access-control-allow-methods"),
          "GET, HEAD, OPTIONS",
        );
        for (
          const h of [
            "authorization",
            "content-type",
            "x-site-key",
            "x-site-token",
            "x-svc-preview-challenge",
          ]
        ) {
          ok(res.headers.get("access-control-allow-headers")!.includes(h));
        }
        equal(res.headers.get("access-control-allow-credentials"), null);
        // AUTH-010: OPTIONS accepts only GET, HEAD and OPTIONS.
        equal(
          (await preflight("HEAD", "X-Svc-Preview-Challenge, Content-Type"))
            .status,
          204,
        );
        for (const m of ["POST", "PUT", "DELETE", "PATCH"]) {
          res = await preflight(m);
          equal(res.status, 403, m);
          equal(res.headers.get("access-control-allow-methods"), null);
        }
        equal((await preflight("GET", "x-foo")).status, 403);
        res = await preflight("GET", "", "https://evil.example");
        equal(res.status, 403);
        equal(res.headers.get("access-control-allow-origin"), null);
        ok(
          (await setBrowserOrigins(
            { db: w.services.db, clock: w.clock },
            w.siteId,
            "*",
          )).ok,
        );
        // AUTH-007: `*` allows every origin; AUTH-008: still without credentials.
        res = await get("/v1/posts?limit=1", { origin: "https://any.example" });
        equal(
          res.headers.get("access-control-allow-origin"),
          "https://any.example",
        );
        equal(res.headers.get("access-control-allow-credentials"), null);
        res = await get("/v1/nope", { origin: "https://other.example" });
        equal(res.status, 404);
        equal(
          res.headers.get("access-control-allow-origin"),
          "https://other.example",
        );
      },
    );

    await t.step(
      "list, item and 304 answers carry every header once: CORS, validators, cache tags, security (PUB-001, AUTH-004)",
      async () => {
        const names = (res: Response) =>
          [...res.headers.keys()].filter((n) => n !== "content-length").sort();
        const origin = "https://any.example";
        const cors = [
          "access-control-allow-origin",
          "access-control-expose-headers",
        ];
        const always = [
          "cache-control",
          "cache-tag",
          "content-security-policy",
          "content-type",
          "etag",
          "strict-transport-security",
          "vary",
          "x-content-type-options",
        ];
        for (
          const path of [
            "/v1/posts?limit=2",
            "/v1/posts/caching-at-the-edge-without-stale-pages",
          ]
        ) {
          const res = await get(path, { origin });
          equal(res.status, 200);
          deepEqual(names(res), [...cors, ...always].sort(), path);
          // One Vary line per header, not two Origin entries.
          equal(res.headers.get("vary"), "Authorization, Origin");
          equal(
            res.headers.get("access-control-expose-headers"),
            "ETag, Cache-Tag",
          );
          equal(res.headers.get("x-content-type-options"), "nosniff");
          equal(
            res.headers.get("content-security-policy"),
            "default-src 'none'; frame-ancestors 'none'",
          );
          await res.body?.cancel();
          const again = await get(path, {
            origin,
            "if-none-match": res.headers.get("etag")!,
          });
          equal(again.status, 304);
          deepEqual(names(again), [...cors, ...always].sort(), path);
          const plain = await get(path);
          deepEqual(names(plain), always, path);
          equal(plain.headers.get("vary"), "Authorization, Origin");
          await plain.body?.cancel();
        }
      },
    );

    await t.step(
      "writes are not served: POST answers 405 (PUB-002)",
      async () => {
        const res = await w.app.request("/v1/posts", {
          method: "POST",
          headers: { host: "localhost" },
        });
        equal(res.status, 405);
      },
    );
  } finally {
    await w.close();
  }
});

Deno.test("publication changes take effect at the next read (PUB-008, PUB-009, PUB-033, PUB-034)", async (t) => {
  const w = await openPublicWorld();
  const ctx = w.ctx();
  try {
    await t.step(
      "unpublishing one language removes it; the other falls back",
      async () => {
        const groupId = await w.groupId(
          "posts",
          "caching-at-the-edge-without-stale-pages",
        );
        const done = await unpublishLanguage(w, groupId, "de");
        ok(done.ok, JSON.stringify(done));
        equal(
          (await w.get(
            "/v1/posts/caching-am-netzrand-ohne-veraltete-seiten?locale=de",
          )).status,
          404,
        );
        const fallback = await (await w.get(
          "/v1/posts/caching-at-the-edge-without-stale-pages?locale=de",
        )).json();
        equal(fallback.data.locale, "en");
        deepEqual(fallback.data.alternates, [{
          locale: "en",
          slug: "caching-at-the-edge-without-stale-pages",
        }]);
      },
    );

    await t.step(
      "published again at a new slug, the language is back in the other language's alternates (PUB-005)",
      async () => {
        const groupId = await w.groupId(
          "posts",
          "caching-at-the-edge-without-stale-pages",
        );
        const saved = await saveEntry(ctx, {
          group_id: groupId,
          locale: "de",
          slug: "caching-am-rand",
          fields: {
            title: "Caching am Rand",
            category: "news",
            published_on: "2026-05-01",
          },
          expected_current_version_id: (await groupState(w, groupId)).entries
            .find((e) => e.locale === "de")!.current_version_id,
        });
        ok(saved.ok, JSON.stringify(saved));
        const before = await (await w.get(
          "/v1/posts/caching-at-the-edge-without-stale-pages",
        )).json();
        deepEqual(
          before.data.alternates.map((a: { locale: string }) => a.locale),
          [
            "en",
          ],
        );
        const s = await groupState(w, groupId);
        const published = await publishEntry(ctx, {
          group_id: groupId,
          locale: "de",
          expected_current_version_id: s.current,
          expected_workflow_revision: s.revision,
        });
        ok(published.ok, JSON.stringify(published));
        const after = await (await w.get(
          "/v1/posts/caching-at-the-edge-without-stale-pages",
        )).json();
        deepEqual(after.data.alternates, [
          { locale: "de", slug: "caching-am-rand" },
          { locale: "en", slug: "caching-at-the-edge-without-stale-pages" },
        ]);
        // Unpublished again, as the next steps expect.
        ok((await unpublishLanguage(w, groupId, "de")).ok);
      },
    );

    await t.step(
      "strict policy: a language without content is locale_unavailable",
      async () => {
        const current = await w.services.db.selectFrom("site_settings").select(
          "revision",
        )
          .where("site_id", "=", w.siteId).where(
            "key",
            "=",
            "language-fallback",
          ).executeTakeFirstOrThrow();
        const put = await putSettings(
          {
            db: w.services.db,
            clock: w.clock,
            siteId: w.siteId,
            personId: w.adminId,
          },
          "language-fallback",
          {
            document: { policy: "strict", chains: {} },
            expectedRevision: current.revision,
          },
        );
        ok(put.ok);
        const res = await w.get(
          "/v1/posts/caching-at-the-edge-without-stale-pages?locale=de",
        );
        equal(res.status, 404);
        equal(await codeOf(res), "locale_unavailable");
        const list = await (await w.get("/v1/posts?locale=de&limit=100"))
          .json();
        ok(list.data.every((i: { locale: string }) => i.locale === "de"));
      },
    );

    await t.step(
      "an unusable stored policy answers 500 site_locale_policy_invalid (PUB-040)",
      async () => {
        await w.services.db.updateTable("site_settings").set({
          document: JSON.stringify({ policy: "weird" }),
        })
          .where("site_id", "=", w.siteId).where(
            "key",
            "=",
            "language-fallback",
          ).execute();
        const res = await w.get("/v1/posts?limit=1");
        equal(res.status, 500);
        equal(await codeOf(res), "site_locale_policy_invalid");
        await w.services.db.updateTable("site_settings").set({
          document: JSON.stringify({
            policy: "fallback",
            chains: { de: ["en"] },
          }),
        })
          .where("site_id", "=", w.siteId).where(
            "key",
            "=",
            "language-fallback",
          ).execute();
      },
    );

    await t.step(
      "Trash removes the item from lists and single reads",
      async () => {
        const groupId = await w.groupId(
          "posts",
          "what-an-etag-saves-on-a-busy-morning",
        );
        equal(
          (await w.get("/v1/posts/what-an-etag-saves-on-a-busy-morning"))
            .status,
          200,
        );
        ok((await trashEntry(ctx, { group_id: groupId })).ok);
        equal(
          (await w.get("/v1/posts/what-an-etag-saves-on-a-busy-morning"))
            .status,
          404,
        );
        const list = await (await w.get("/v1/posts?limit=100")).json();
        ok(!list.data.some((i: { id: string }) => i.id === groupId));
      },
    );

    await t.step(
      "two published items claiming one slug in a language are ambiguous_slug",
      async () => {
        const posts = await w.modelId("posts");
        // A German post at "why-we-sort-text-byte-by-byte", while the English-only post 39 is served in de at that slug.
        const saved = await saveEntry(ctx, {
          model_id: posts,
          locale: "de",
          slug: "why-we-sort-text-byte-by-byte",
          fields: {
            title: "Doppelt",
            published_on: "2026-05-01",
            category: "news",
          },
          expected_current_version_id: null,
        });
        ok(saved.ok, JSON.stringify(saved));
        // The policy is fallback again after the repair above; rebuild happens on the next write.
        const rev = await w.services.db.selectFrom("site_settings").select(
          "revision",
        )
          .where("site_id", "=", w.siteId).where(
            "key",
            "=",
            "language-fallback",
          ).executeTakeFirstOrThrow();
        ok(
          (await putSettings(
            {
              db: w.services.db,
              clock: w.clock,
              siteId: w.siteId,
              personId: w.adminId,
            },
            "language-fallback",
            {
              document: { policy: "fallback", chains: { de: ["en"] } },
              expectedRevision: rev.revision,
            },
          )).ok,
        );
        ok(
          (await publishEntry(ctx, {
            group_id: saved.group_id,
            expected_current_version_id: saved.current_version_id,
            expected_workflow_revision: saved.revision,
          })).ok,
        );
        const res = await w.get(
          "/v1/posts/why-we-sort-text-byte-by-byte?locale=de",
        );
        equal(res.status, 404);
        equal(await codeOf(res), "ambiguous_slug");
        equal(
          (await w.get("/v1/posts/why-we-sort-text-byte-by-byte?locale=en"))
            .status,
          200,
        );
      },
    );
  } finally {
    await w.close();
  }
});
