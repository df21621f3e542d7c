// A public read answered as kept is answered again ahead of routing (core/public/front_answers.ts)
// with exactly what the full path answers that request: status, headers, body, 304 and HEAD,
// CORS per origin, and a site API token refused from the moment it expires (PUB-009, PUB-035,
// PUB-036).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { frontServed } from "../../core/public/front_answers.ts";
import { issueSiteToken } from "../../core/public/site_tokens.ts";
import { statementsOf } from "../support/statements.ts";
import { openPublicWorld, untilAhead } from "./helpers.ts";

Deno.test("a read answered ahead of routing is the full path's answer, 304 and HEAD included, and asks the database nothing (PUB-009)", async () => {
  const w = await openPublicWorld();
  try {
    for (
      const path of [
        "/v1/posts?limit=3",
        "/v1/posts/caching-at-the-edge-without-stale-pages",
      ]
    ) {
      const { first, again } = await untilAhead(w, path, frontServed);
      deepEqual(again, first, path);
      const { result, statements } = await statementsOf(
        w.services.db,
        () => w.get(path),
      );
      equal(result.status, 200);
      await result.body?.cancel();
      if (statements) deepEqual(statements, [], "no statement");
      const before = frontServed(w.services.db);
      const revalidated = await w.get(path, {
        "if-none-match": first.headers["etag"],
      });
      equal(revalidated.status, 304);
      equal(revalidated.headers.get("etag"), first.headers["etag"]);
      const head = await w.app.request(path, {
        method: "HEAD",
        headers: { host: "localhost" },
      });
      equal(head.status, 200);
      equal(await head.text(), "");
      equal(head.headers.get("etag"), first.headers["etag"]);
      equal(frontServed(w.services.db), before + 2);
    }
  } finally {
    await w.close();
  }
});

Deno.test("answers ahead of routing are per origin and per token, and a token is refused from the moment it expires (PUB-035, PUB-036)", async () => {
  const w = await openPublicWorld();
  try {
    const { db } = w.services;
    await sql`insert into site_browser_origins (site_id, origins, updated_at)
      values (${w.siteId}, '["https://shop.example"]'::jsonb, now())
      on conflict (site_id) do update set origins = excluded.origins`.execute(
      db,
    );
    const path = "/v1/posts?limit=2";
    const shop = { origin: "https://shop.example" };
    const other = { origin: "https://other.example" };
    const fromShop = await untilAhead(w, path, frontServed, shop);
    equal(
      fromShop.again.headers["access-control-allow-origin"],
      "https://shop.example",
    );
    const fromOther = await untilAhead(w, path, frontServed, other);
    equal(fromOther.again.headers["access-control-allow-origin"], undefined);
    deepEqual(fromOther.again, fromOther.first);

    const notes = await w.modelId("notes");
    const issued = await issueSiteToken({ db, clock: w.clock }, {
      siteId: w.siteId,
      name: "short-lived",
      modelIds: [notes],
      expiresAt: new Date(w.clock.now().getTime() + 5_000),
    });
    ok(issued.ok);
    const auth = { authorization: `Bearer ${issued.token}` };
    const withToken = await untilAhead(w, "/v1/notes", frontServed, auth);
    equal(withToken.again.status, 200);
    ok(withToken.again.headers["cache-control"]?.startsWith("private"));
    equal((await w.get("/v1/notes")).status, 404, "not without the token");
    // Within the kept answer's reuse window: the token's last valid moment, then the next.
    // The test clock stands still unless told: the token was issued 5 s before it expires.
    w.clock.advance(4_999);
    const before = frontServed(db);
    const res = await w.get("/v1/notes", auth);
    equal(res.status, 200);
    await res.body?.cancel();
    equal(frontServed(db), before + 1);
    w.clock.advance(1);
    const expired = await w.get("/v1/notes", auth);
    equal(expired.status, 404, "refused the moment the token expires");
    await expired.body?.cancel();
  } finally {
    await w.close();
  }
});
