// /v1/_sync over HTTP: snapshot, changes, tombstones, checkpoints, resets (SYNC-001 to SYNC-009).
// deno-lint-ignore-file no-explicit-any -- answers are parsed JSON checked field by field
import assert from "node:assert/strict";
import { pruneSyncChanges } from "../../core/sync/change_log.ts";
import { articleModels, type AuxWorld, openAuxWorld } from "./helpers.ts";

type Item = {
  id: string;
  slug: string;
  version: number;
  fields: Record<string, unknown>;
};

/** A sync client: applies pages in order, following next_cursor until it gets a checkpoint. */
async function follow(
  w: AuxWorld,
  start: string,
  client: Map<string, Item>,
  between: (page: number) => Promise<void> = async () => {},
): Promise<{ checkpoint: string; pages: any[] }> {
  let url: string | null = start;
  const pages: any[] = [];
  while (url) {
    const { status, body } = await w.json(url);
    assert.equal(status, 200, JSON.stringify(body));
    pages.push(body);
    for (const item of body.data) client.set(item.id, item);
    for (const gone of body.deleted) client.delete(gone.id);
    if (body.next_cursor) {
      assert.equal(body.checkpoint, null);
      await between(pages.length);
      url = `/v1/_sync?limit=2&cursor=${encodeURIComponent(body.next_cursor)}`;
    } else {
      assert.equal(typeof body.checkpoint, "string");
      return { checkpoint: body.checkpoint, pages };
    }
  }
  throw new Error("unreachable");
}

/** What is published now in `locale` for `modelId`, read straight from the entry tables. */
async function publishedNow(w: AuxWorld, modelId: string, locale: string) {
  const rows = await w.services.db.selectFrom("entries as e")
    .innerJoin("entry_groups as g", "g.id", "e.group_id")
    .innerJoin("entry_versions as v", "v.id", "e.published_version_id")
    .select(["e.group_id", "e.slug", "v.number"])
    .where("e.site_id", "=", w.siteId).where("e.locale", "=", locale)
    .where("g.model_id", "=", modelId).where("g.trashed_at", "is", null)
    .where("e.published_version_id", "is not", null).execute();
  return new Map(rows.map((r) => [r.group_id, `${r.slug}@${r.number}`]));
}

function summary(client: Map<string, Item>) {
  return new Map(
    [...client.values()].map((i) => [i.id, `${i.slug}@${i.version}`]),
  );
}

Deno.test("/v1/_sync: a client following next_cursor then checkpoints ends with exactly the published state while content changes between pages (SYNC-003, SYNC-005)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles, memos } = await articleModels(w);
    const groups: string[] = [];
    for (let i = 0; i < 7; i++) {
      const en = await w.save({
        model: articles,
        locale: "en",
        slug: `a${i}`,
        fields: { title: `Article ${i}`, secret: "hidden" },
      });
      await w.save({
        group: en.group_id,
        locale: "de",
        slug: `a${i}-de`,
        fields: { title: `Artikel ${i}` },
      });
      await w.publish(en.group_id);
      groups.push(en.group_id);
    }
    const memo = await w.save({
      model: memos,
      locale: "en",
      slug: "m",
      fields: { title: "Memo" },
    });
    await w.publish(memo.group_id);
    const client = new Map<string, Item>();
    const sorted = [...groups].sort();
    const { checkpoint, pages } = await follow(
      w,
      "/v1/_sync?limit=2&locale=en",
      client,
      async (page) => {
        if (page === 1) {
          // A new item, an edited and republished one already delivered, a language taken out.
          const fresh = await w.save({
            model: articles,
            locale: "en",
            slug: "fresh",
            fields: { title: "Fresh" },
          });
          await w.publish(fresh.group_id);
          groups.push(fresh.group_id);
          await w.save({
            group: sorted[0],
            locale: "en",
            slug: "a-renamed",
            fields: { title: "Renamed" },
          });
          await w.publish(sorted[0], "en");
          await w.unpublish(sorted[1], "en");
        }
        if (page === 2) {
          await w.trash(sorted[5]);
          await w.trash(sorted[6]);
          await w.purge(sorted[6]);
        }
      },
    );
    assert.equal(pages[0].phase, "snapshot");
    assert.equal(pages.at(-1).phase, "changes");
    assert.deepEqual(summary(client), await publishedNow(w, articles, "en"));
    for (const item of client.values()) {
      assert.equal(item.fields.secret, undefined, "private field leaked");
      assert.equal((item as any).model, "articles", "private model leaked");
    }
    // After the checkpoint: more changes, then the checkpoint brings the client up to date.
    await w.restore(sorted[5]);
    await w.save({
      group: sorted[2],
      locale: "en",
      slug: "edited-2",
      fields: { title: "Edited again" },
    });
    await w.publish(sorted[2], "en");
    await w.unpublish(sorted[3]);
    const later = await follow(
      w,
      `/v1/_sync?limit=2&cursor=${encodeURIComponent(checkpoint)}`,
      client,
    );
    const last = later.pages.flatMap((p) => p.deleted.map((d: any) => d.id));
    assert.ok(
      last.includes(sorted[3]),
      "unpublished entry came as a tombstone",
    );
    assert.deepEqual(summary(client), await publishedNow(w, articles, "en"));
    assert.equal(client.get(sorted[2])!.fields.title, "Edited again");
    // A checkpoint with nothing new answers no changes and a fresh checkpoint.
    const idle = await w.json(
      `/v1/_sync?cursor=${encodeURIComponent(later.checkpoint)}`,
    );
    assert.equal(idle.status, 200);
    assert.deepEqual([idle.body.data, idle.body.deleted, idle.body.changes], [
      [],
      [],
      [],
    ]);
    assert.equal(idle.body.next_cursor, null);
    // The de walk converges on what de serves (fallback to en where no de is live).
    const de = new Map<string, Item>();
    await follow(w, "/v1/_sync?limit=3&locale=de&model=articles", de);
    const fresh = await w.json("/v1/_sync?limit=100&locale=de&model=articles");
    assert.deepEqual(
      summary(de),
      summary(new Map(fresh.body.data.map((i: Item) => [i.id, i]))),
    );
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_sync answers every key; limit 1 and 100 answer, 0 and 101 are sync_query_invalid (SYNC-001, SYNC-002, SYNC-006)", async () => {
  const w = await openAuxWorld();
  try {
    await articleModels(w);
    const { status, body } = await w.json("/v1/_sync");
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body).sort(), [
      "changes",
      "checkpoint",
      "data",
      "deleted",
      "next_cursor",
      "phase",
      "reset_reason",
    ]);
    assert.equal(body.reset_reason, null);
    for (
      const ok of ["limit=1", "limit=100", "limit=50&model=articles&locale=de"]
    ) {
      assert.equal((await w.json(`/v1/_sync?${ok}`)).status, 200, ok);
    }
    for (
      const bad of [
        "limit=0",
        "limit=101",
        "limit=01",
        "limit=1.5",
        "limit=",
        "limit=2&limit=2",
        "locale=xx",
        "model=memos",
        "model=nope",
        "unknown=1",
        "cursor=abc",
      ]
    ) {
      const r = await w.json(`/v1/_sync?${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error.code, "sync_query_invalid", bad);
    }
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_sync checkpoints are signed and bound to site, model and language (SYNC-004, SYNC-007)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles } = await articleModels(w);
    const a = await w.save({
      model: articles,
      locale: "en",
      slug: "x",
      fields: { title: "X" },
    });
    await w.publish(a.group_id);
    const first = await w.json("/v1/_sync?model=articles&locale=en");
    const cursor: string = first.body.next_cursor;
    const [body, mac] = cursor.split(".");
    const flipped = body.slice(0, -2) + (body.at(-2) === "A" ? "B" : "A") +
      body.at(-1);
    for (
      const bad of [
        `cursor=${flipped}.${mac}`,
        `cursor=${cursor}&model=people`,
        `cursor=${cursor}&locale=de`,
      ]
    ) {
      const r = await w.json(`/v1/_sync?${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error.code, "sync_query_invalid");
    }
    // Same model and language repeated next to the cursor is fine.
    assert.equal(
      (await w.json(`/v1/_sync?cursor=${cursor}&model=articles&locale=en`))
        .status,
      200,
    );
    // Another site's host does not accept this site's cursor.
    const { insertSite } = await import("../support/sites.ts");
    await insertSite(w.services.db, { domain: "other.test" });
    const other = await w.app.request(`/v1/_sync?cursor=${cursor}`, {
      headers: { host: "other.test" },
    });
    assert.equal(other.status, 400);
    // Unknown host and an unverifiable token are 404.
    assert.equal(
      (await w.app.request("/v1/_sync", { headers: { host: "nope.test" } }))
        .status,
      404,
    );
    const badToken = await w.json("/v1/_sync", {
      authorization: "Bearer sv_site_not-a-real-token-at-all",
    });
    assert.equal(badToken.status, 404);
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_sync answers 409 reset_required for expired, pruned or rescoped checkpoints (SYNC-008)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles } = await articleModels(w);
    const a = await w.save({
      model: articles,
      locale: "en",
      slug: "x",
      fields: { title: "X" },
    });
    await w.publish(a.group_id);
    const walk = await follow(w, "/v1/_sync?limit=5", new Map());
    const checkpoint = walk.checkpoint;
    // Just inside the retention window the checkpoint still answers; one day later it is expired.
    w.clock.advance(29 * 86_400_000);
    assert.equal((await w.json(`/v1/_sync?cursor=${checkpoint}`)).status, 200);
    w.clock.advance(2 * 86_400_000);
    const expired = await w.json(`/v1/_sync?cursor=${checkpoint}`);
    assert.equal(expired.status, 409);
    assert.equal(expired.body.error.code, "reset_required");
    assert.equal(expired.body.error.reset_reason, "checkpoint_expired");
    // A fresh checkpoint, then the changes it needs are pruned.
    const again = await follow(w, "/v1/_sync?limit=5", new Map());
    await w.save({
      group: a.group_id,
      locale: "en",
      slug: "x",
      fields: { title: "X2" },
    });
    await w.publish(a.group_id);
    const pruned = await pruneSyncChanges(
      w.services.db,
      w.siteId,
      new Date(Date.now() + 31 * 86_400_000),
    );
    assert.ok(pruned > 0);
    const gone = await w.json(`/v1/_sync?cursor=${again.checkpoint}`);
    assert.equal(gone.status, 409);
    assert.equal(gone.body.error.reset_reason, "changes_pruned");
    // A field added to a model in scope changes what items look like: reset.
    const fresh = await follow(w, "/v1/_sync?limit=5", new Map());
    await w.services.db.updateTable("models").set({ is_public: false })
      .where("slug", "=", "people").execute();
    const rescoped = await w.json(`/v1/_sync?cursor=${fresh.checkpoint}`);
    assert.equal(rescoped.status, 409);
    assert.equal(rescoped.body.error.reset_reason, "scope_changed");
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_sync answers 503 sync_dependency_unavailable when the change log cannot be read; the same checkpoint works later (SYNC-009)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles } = await articleModels(w);
    const a = await w.save({
      model: articles,
      locale: "en",
      slug: "x",
      fields: { title: "X" },
    });
    await w.publish(a.group_id);
    const walk = await follow(w, "/v1/_sync?limit=5", new Map());
    await w.save({
      group: a.group_id,
      locale: "en",
      slug: "x",
      fields: { title: "X2" },
    });
    await w.publish(a.group_id);
    const { sql } = await import("kysely");
    await sql`alter table sync_changes rename to sync_changes_away`.execute(
      w.services.db,
    );
    const down = await w.json(`/v1/_sync?cursor=${walk.checkpoint}`);
    assert.equal(down.status, 503);
    assert.equal(down.body.error.code, "sync_dependency_unavailable");
    await sql`alter table sync_changes_away rename to sync_changes`.execute(
      w.services.db,
    );
    const up = await w.json(`/v1/_sync?cursor=${walk.checkpoint}`);
    assert.equal(up.status, 200);
    assert.equal(up.body.data[0].fields.title, "X2");
  } finally {
    await w.close();
  }
});
