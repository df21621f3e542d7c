// A site renderer forwards visitors' form posts from its own address; with the shared
// forwarding key it names each visitor, so visitors keep windows of their own, and without the
// right key nobody can choose whose window a post counts against.
import { equal } from "node:assert/strict";
import { sql } from "kysely";
import { COMMENT_LIMITS } from "../../core/comments/mod.ts";
import { putSettings } from "../../core/sites/settings.ts";
import { openPublicWorld, type PublicWorld } from "./helpers.ts";

const KEY = "k".repeat(40);
const RENDERER = "127.0.0.1";

async function post(
  w: PublicWorld,
  n: number,
  headers: Record<string, string>,
): Promise<number> {
  const first = await w.services.db.selectFrom("public_items as p")
    .innerJoin(
      "models as m",
      (j) => j.on(sql<boolean>`m.id::text = p.model_id`),
    )
    .select("p.slug").where("p.site_id", "=", w.siteId)
    .where("m.slug", "=", "posts").where("p.requested_locale", "=", "en")
    .orderBy("p.slug").limit(1).executeTakeFirstOrThrow();
  const item = await w.groupId("posts", first.slug);
  const res = await w.app.request("/v1/interactions/comment.submit", {
    method: "POST",
    headers: {
      host: "localhost",
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify({
      action: "comment.submit",
      item,
      locale: "en",
      key: `forwarded-key-${String(n).padStart(5, "0")}`,
      author: "Ada",
      body: `Comment ${n}`,
    }),
  }, { remoteAddr: { transport: "tcp", hostname: RENDERER, port: 1 } });
  await res.body?.cancel();
  return res.status;
}

Deno.test("a post forwarded with the renderer's key counts against the visitor it names; a wrong key or a malformed address counts against the connection", async () => {
  const w = await openPublicWorld({ RENDERER_FORWARDING_KEY: KEY });
  try {
    const saved = await putSettings(
      { db: w.services.db, clock: w.clock, siteId: w.siteId, personId: null },
      "comments",
      {
        document: { enabled: true, models: ["posts"], close_after_days: null },
        expectedRevision: 0,
      },
    );
    equal(saved.ok, true);
    const visitor = (address: string, key = KEY) => ({
      "x-stave-forwarding-key": key,
      "x-stave-visitor-address": address,
    });
    let n = 0;
    for (let i = 0; i < COMMENT_LIMITS.perAddress; i++) {
      equal(await post(w, n++, visitor("198.51.100.7")), 201);
    }
    equal(await post(w, n++, visitor("198.51.100.7")), 429);
    // Another visitor behind the same renderer has a window of their own.
    equal(await post(w, n++, visitor("2001:db8::8")), 201);
    // A wrong key cannot name the exhausted visitor (nor spare it): the post counts against
    // the connection, whose window is still open.
    equal(await post(w, n++, visitor("198.51.100.7", "x".repeat(40))), 201);
    equal(await post(w, n++, visitor("not an address")), 201);
  } finally {
    await w.close();
  }
});
