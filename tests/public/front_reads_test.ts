// List and single reads dispatched before routing (core/public/front_reads.ts) answer exactly
// what the routes answer: status, headers and body, 304 and HEAD, CORS per origin, tokens, and
// every refusal with the headers the /v1 middleware gives it (PUB-009, PUB-035, PUB-036).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { frontReadsServed, readPath } from "../../core/public/front_reads.ts";
import { issueSiteToken } from "../../core/public/site_tokens.ts";
import {
  openPublicWorld,
  type PublicWorld,
  seen,
  untilAhead,
} from "./helpers.ts";

/** Every answer computed: kept answers would be served ahead of this step. */
const COMPUTED = { PUBLIC_ANSWER_CACHE_MB: "0" };

/** Reads `path` and says whether it was read before routing. */
async function read(
  w: PublicWorld,
  path: string,
  headers: Record<string, string> = {},
) {
  const before = frontReadsServed(w.services.db);
  const answer = await seen(await w.get(path, headers));
  return { ...answer, front: frontReadsServed(w.services.db) === before + 1 };
}

Deno.test("a list or single read answered before routing is the routes' answer, 304 and HEAD included (PUB-009)", async () => {
  const w = await openPublicWorld(COMPUTED);
  try {
    for (
      const path of [
        "/v1/posts?limit=3&fields=title",
        "/v1/posts/caching-at-the-edge-without-stale-pages",
        "/v1/posts/caching-at-the-edge-without-stale-pages?locale=en",
      ]
    ) {
      const { first, again } = await untilAhead(w, path, frontReadsServed);
      deepEqual(again, first, path);
      const revalidated = await read(w, path, {
        "if-none-match": first.headers["etag"],
      });
      equal(revalidated.status, 304);
      ok(revalidated.front);
      const before = frontReadsServed(w.services.db);
      const head = await w.app.request(path, {
        method: "HEAD",
        headers: { host: "localhost" },
      });
      equal(head.status, 200);
      equal(await head.text(), "");
      equal(head.headers.get("etag"), first.headers["etag"]);
      equal(frontReadsServed(w.services.db), before + 1);
    }
    // Another list of the same model: its site, token and model are known; its page is not.
    const other = await read(w, "/v1/posts?limit=1");
    ok(other.front);
    equal(JSON.parse(other.body).data.length, 1);
  } finally {
    await w.close();
  }
});

Deno.test("after a commit a read goes through the routes once, and the answer shows the change (PUB-035)", async () => {
  const w = await openPublicWorld(COMPUTED);
  try {
    const path = "/v1/posts?limit=2";
    const shop = { origin: "https://shop.example" };
    const { again: before } = await untilAhead(
      w,
      path,
      frontReadsServed,
      shop,
    );
    equal(before.headers["access-control-allow-origin"], undefined);
    await sql`insert into site_browser_origins (site_id, origins, updated_at)
      values (${w.siteId}, '["https://shop.example"]'::jsonb, now())
      on conflict (site_id) do update set origins = excluded.origins`.execute(
      w.services.db,
    );
    const after = await read(w, path, shop);
    equal(after.front, false, "the context is read again after the commit");
    equal(after.headers["access-control-allow-origin"], "https://shop.example");
    const again = await read(w, path, shop);
    ok(again.front);
    deepEqual({ ...again, front: false }, { ...after, front: false });
  } finally {
    await w.close();
  }
});

Deno.test("refusals are answered by the routes, with the /v1 middleware's headers (PUB-036)", async () => {
  const w = await openPublicWorld(COMPUTED);
  try {
    await untilAhead(w, "/v1/posts?limit=1", frontReadsServed);
    for (
      const [path, status, code] of [
        ["/v1/posts?limit=0", 400, "public_filter_invalid"],
        ["/v1/posts/no-such-post", 404, "not_found"],
        ["/v1/posts?cursor=nonsense", 400, "public_filter_invalid"],
      ] as const
    ) {
      const refused = await read(w, path);
      equal(refused.status, status, path);
      equal(JSON.parse(refused.body).error.code, code, path);
      equal(refused.front, false, path);
      equal(
        refused.headers["content-security-policy"],
        "default-src 'none'; frame-ancestors 'none'",
      );
      ok(refused.headers["vary"]?.includes("Origin"), path);
    }
    // A model hidden without a token, and the token that shows it, expired.
    const notes = await w.modelId("notes");
    const issued = await issueSiteToken({ db: w.services.db, clock: w.clock }, {
      siteId: w.siteId,
      name: "short-lived",
      modelIds: [notes],
      expiresAt: new Date(w.clock.now().getTime() + 5_000),
    });
    ok(issued.ok);
    const auth = { authorization: `Bearer ${issued.token}` };
    const { again: withToken } = await untilAhead(
      w,
      "/v1/notes",
      frontReadsServed,
      auth,
    );
    equal(withToken.status, 200);
    ok(withToken.headers["cache-control"]?.startsWith("private"));
    equal((await read(w, "/v1/notes")).status, 404, "not without the token");
    w.clock.advance(5_000);
    const expired = await read(w, "/v1/notes", auth);
    equal(expired.status, 404, "refused the moment the token expires");
    equal(expired.front, false);
  } finally {
    await w.close();
  }
});

Deno.test("other routes under /v1, previews and unusual paths are never read before routing", async () => {
  const w = await openPublicWorld(COMPUTED);
  try {
    await untilAhead(w, "/v1/posts?limit=1", frontReadsServed);
    for (
      const path of [
        "/v1/_search?q=edge",
        "/v1/_sitemap",
        "/v1/posts/",
        "/v1/posts?limit=1&preview=x",
        "/v1/po%73ts?limit=1",
      ]
    ) {
      equal((await read(w, path)).front, false, path);
    }
  } finally {
    await w.close();
  }
});

Deno.test("readPath takes plain model and slug segments and leaves every other path to the router", () => {
  const reserved = new Set(["_search", "interactions"]);
  deepEqual(readPath("/v1/posts", reserved), { model: "posts", slug: null });
  deepEqual(readPath("/v1/posts/a-b.c~d_e", reserved), {
    model: "posts",
    slug: "a-b.c~d_e",
  });
  for (
    const path of [
      "/v1/",
      "/v1//x",
      "/v1/posts/",
      "/v1/posts/a/b",
      "/v1/po%73ts",
      "/v1/posts/%C3%A9",
      "/v1/_search",
      "/v1/interactions/like",
      "/v2/posts",
      "/v1/.hidden",
    ]
  ) equal(readPath(path, reserved), null, path);
});
