// Public answers kept between reads (core/public/kept_answers.ts) are served only while the
// database is exactly as it was: every change shows at the next read (spec 3 part 4.2; inventory
// PUB-009, PUB-035, PUB-036), with the same status, body and headers as a computed answer.
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { trashEntry } from "../../core/entries/mod.ts";
import { KEPT_REUSE_MS, keptAnswersOf } from "../../core/public/kept_shelf.ts";
import { mintPreviewToken } from "../../core/public/preview_tokens.ts";
import { issueSiteToken } from "../../core/public/site_tokens.ts";
import { openPublicWorld, type PublicWorld } from "./helpers.ts";

/** The world's kept answers, after a first cursor created the cursor key (a commit). */
async function shelfOf(w: PublicWorld) {
  const res = await w.get("/v1/posts?limit=1");
  ok((await res.json()).page.next_cursor);
  return keptAnswersOf(w.services.db, w.services.config.publicAnswerCacheBytes);
}

/**
 * PostgreSQL's snapshot spans the whole server: on PostgreSQL, tests running in parallel on other
 * databases end reuse whenever they commit. Runs `attempt` until it saw a read served from kept
 * answers (it answers whether one was), at most 20 times.
 */
async function untilKept(attempt: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 20; i++) if (await attempt()) return;
  throw new Error("no read was served from kept answers in 20 attempts");
}

/** Status, body and every header a client or shared cache sees. */
async function seen(res: Response) {
  return {
    status: res.status,
    body: await res.text(),
    headers: Object.fromEntries(res.headers),
  };
}

Deno.test("a kept answer is the computed one, and any commit is shown at the next read (PUB-009)", async () => {
  const w = await openPublicWorld();
  try {
    const shelf = await shelfOf(w);
    let first = await seen(await w.get("/v1/posts?limit=3"));
    await untilKept(async () => {
      const hits = shelf.hits;
      const again = await seen(await w.get("/v1/posts?limit=3"));
      deepEqual(again, first, "kept or computed, the same answer");
      first = again;
      return shelf.hits === hits + 1;
    });
    ok(first.headers["etag"] && first.headers["cache-tag"]);

    const revalidated = await w.get("/v1/posts?limit=3", {
      "if-none-match": first.headers["etag"],
    });
    equal(revalidated.status, 304);
    const head = await w.app.request("/v1/posts?limit=3", {
      method: "HEAD",
      headers: { host: "localhost" },
    });
    equal(head.status, 200);
    equal(await head.text(), "");
    equal(head.headers.get("etag"), first.headers["etag"]);

    const firstItem = JSON.parse(first.body).data[0];
    for (let i = 0; i < 2; i++) {
      const single = await w.get(`/v1/posts/${firstItem.slug}`);
      equal(single.status, 200);
      await single.body?.cancel();
    }
    const groupId = firstItem.id;
    ok((await trashEntry(w.ctx(), { group_id: groupId })).ok);
    const after = JSON.parse(
      (await seen(await w.get("/v1/posts?limit=3"))).body,
    );
    ok(!after.data.some((i: { id: string }) => i.id === groupId));
    equal(
      (await w.get(`/v1/posts/${firstItem.slug}`)).status,
      404,
    );
  } finally {
    await w.close();
  }
});

Deno.test("kept answers are per token, and previews are never kept (PUB-035, PUB-036)", async () => {
  const w = await openPublicWorld();
  try {
    const shelf = await shelfOf(w);
    const notes = await w.modelId("notes");
    const scoped = await issueSiteToken(
      { db: w.services.db, clock: w.clock },
      { siteId: w.siteId, name: "build", modelIds: [notes] },
    );
    ok(scoped.ok);
    const auth = { authorization: `Bearer ${scoped.token}` };
    for (let i = 0; i < 2; i++) {
      const res = await w.get("/v1/notes", auth);
      equal(res.status, 200);
      ok(res.headers.get("cache-control")?.startsWith("private"));
      await res.body?.cancel();
    }
    const hits = shelf.hits;
    const anonymous = await w.get("/v1/notes");
    equal(
      anonymous.status,
      404,
      "a private model stays hidden without the token",
    );
    await anonymous.body?.cancel();
    equal(shelf.hits, hits);

    const groupId = await w.groupId(
      "posts",
      "warming-the-cache-after-a-deploy",
    );
    const { token } = await mintPreviewToken(
      { db: w.services.db, clock: w.clock },
      { siteId: w.siteId, groupId, personId: w.adminId },
    );
    const before = { hits: shelf.hits, misses: shelf.misses };
    for (let i = 0; i < 2; i++) {
      const res = await w.get(
        `/v1/posts/warming-the-cache-after-a-deploy?preview=${token}`,
      );
      equal(res.status, 200);
      equal(res.headers.get("cache-control"), "no-store, private");
      equal((await res.json()).data.published_at, null, "the draft");
    }
    deepEqual({ hits: shelf.hits, misses: shelf.misses }, before);
    // Item 41 has only a draft: without the preview it answers like a missing item.
    const plain = await w.get("/v1/posts/warming-the-cache-after-a-deploy");
    equal(plain.status, 404, "the preview was not kept");
    await plain.body?.cancel();
  } finally {
    await w.close();
  }
});

Deno.test(`a kept answer is reused for ${KEPT_REUSE_MS} ms by the clock, then computed again with a fresh cursor`, async () => {
  const w = await openPublicWorld();
  try {
    const shelf = await shelfOf(w);
    const cursorOf = async () =>
      (await (await w.get("/v1/posts?limit=2")).json()).page.next_cursor;
    let first = "";
    await untilKept(async () => {
      first = await cursorOf();
      ok(first);
      w.clock.advance(KEPT_REUSE_MS);
      const hits = shelf.hits;
      const again = await cursorOf();
      if (shelf.hits === hits) return false;
      equal(again, first, "the kept answer, cursor included");
      return true;
    });
    w.clock.advance(1);
    const hits = shelf.hits;
    const fresh = await cursorOf();
    equal(shelf.hits, hits, "too old to reuse");
    notEqual(fresh, first, "the cursor is stamped with the new time");
    const next = await w.get(`/v1/posts?limit=2&cursor=${fresh}`);
    equal(next.status, 200);
    await next.body?.cancel();
  } finally {
    await w.close();
  }
});

Deno.test("PUBLIC_ANSWER_CACHE_MB=0 keeps no answer", async () => {
  const w = await openPublicWorld({ PUBLIC_ANSWER_CACHE_MB: "0" });
  try {
    for (let i = 0; i < 3; i++) {
      const res = await w.get("/v1/posts?limit=1");
      equal(res.status, 200);
      await res.body?.cancel();
    }
    const shelf = keptAnswersOf(w.services.db, 0);
    deepEqual([shelf.hits, shelf.misses], [0, 0]);
  } finally {
    await w.close();
  }
});

Deno.test("a write not yet committed elsewhere is not served, and is served once committed (PUB-009)", async (t) => {
  const w = await openPublicWorld();
  // PGlite has one connection: a transaction held open would block the reads themselves.
  if (w.engine === "pglite") {
    await w.close();
    return;
  }
  try {
    const groupId = await w.groupId(
      "posts",
      "caching-at-the-edge-without-stale-pages",
    );
    const read = async () =>
      (await w.get("/v1/posts/caching-at-the-edge-without-stale-pages")).status;
    equal(await read(), 200);
    equal(await read(), 200);
    let release!: () => void;
    const held = new Promise<void>((r) => release = r);
    let written!: () => void;
    const wrote = new Promise<void>((r) => written = r);
    const writer = w.services.db.transaction().execute(async (tx) => {
      await tx.deleteFrom("public_items").where("group_id", "=", groupId)
        .execute();
      written();
      await held;
    });
    await wrote;
    await t.step(
      "while the writer is open, readers see the committed state",
      async () => {
        equal(await read(), 200);
        equal(await read(), 200);
      },
    );
    release();
    await writer;
    equal(await read(), 404, "the commit shows at the next read");
  } finally {
    await w.close();
  }
});
