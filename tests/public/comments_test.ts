// Visitor comments on the demo site: `comment.submit`, moderation through the Management API,
// `/v1/_comments` with its orders and cursor, `comment.react`, limits and abuse windows
// (FORM-001, FORM-014, FORM-015; shapes are Stave's, docs/forms.md).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { COMMENT_LIMITS } from "../../core/comments/mod.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { putSettings } from "../../core/sites/settings.ts";
import type { Scope } from "../../core/access/scopes.ts";
import { codeOf, openPublicWorld, type PublicWorld } from "./helpers.ts";

type Json = Record<string, unknown>;

const KEY = (n: number | string) => `comment-key-${String(n).padStart(5, "0")}`;

async function interact(
  w: PublicWorld,
  action: string,
  body: unknown,
  address = "198.51.100.4",
): Promise<Response> {
  return await w.app.request(`/v1/interactions/${action}`, {
    method: "POST",
    headers: { host: "localhost", "content-type": "application/json" },
    body: JSON.stringify(body),
  }, { remoteAddr: { transport: "tcp", hostname: address, port: 1 } });
}

function comment(item: string, n: number | string, extra: Json = {}): Json {
  return {
    action: "comment.submit",
    item,
    locale: "en",
    key: KEY(n),
    author: "Ada",
    body: `Comment ${n}`,
    ...extra,
  };
}

async function stored(w: PublicWorld): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from comments`
    .execute(w.services.db);
  return r.rows[0].n;
}

async function openComments(
  w: PublicWorld,
  document: Json = {},
): Promise<void> {
  const current = await w.services.db.selectFrom("site_settings").select(
    "revision",
  ).where("site_id", "=", w.siteId).where("key", "=", "comments")
    .executeTakeFirst();
  const saved = await putSettings(
    { db: w.services.db, clock: w.clock, siteId: w.siteId, personId: null },
    "comments",
    {
      document: {
        enabled: true,
        models: ["posts"],
        close_after_days: null,
        ...document,
      },
      expectedRevision: current?.revision ?? 0,
    },
  );
  ok(saved.ok, JSON.stringify(saved));
}

async function manager(w: PublicWorld, scopes: Scope[]) {
  const { secret } = await insertCredential(w.services.db, w.clock, {
    siteId: w.siteId,
    creatorId: w.adminId,
    name: `moderator ${scopes.join(" ")}`,
    scopes,
    models: null,
  });
  return (method: string, path: string, body?: unknown, key?: string) => {
    const headers: Record<string, string> = {
      host: "localhost",
      authorization: `Bearer ${secret}`,
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (key) headers["idempotency-key"] = key;
    return w.app.request(`/api/manage/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  };
}

async function served(
  w: PublicWorld,
  query: string,
): Promise<{ data: Json[]; next_cursor: string | null }> {
  const res = await w.get(`/v1/_comments?${query}`);
  equal(res.status, 200, await res.clone().text());
  return await res.json();
}

Deno.test("comment.submit stores a pending comment that /v1/_comments serves only once approved (FORM-001, FORM-014, FORM-015)", async (t) => {
  const w = await openPublicWorld();
  try {
    const post = await w.groupId("posts", await firstPostSlug(w));
    await t.step(
      "comments are closed until the site opens them for a type",
      async () => {
        const res = await interact(w, "comment.submit", comment(post, 1));
        equal(res.status, 403);
        equal(await codeOf(res), "comments_closed");
        equal(await stored(w), 0);
      },
    );
    await openComments(w);
    let first = "";
    await t.step(
      "a valid comment is stored once as pending; a replay answers the first receipt; other values under the key are refused",
      async () => {
        const res = await interact(w, "comment.submit", comment(post, 1));
        equal(res.status, 201);
        const body = await res.json();
        equal(body.data.status, "pending");
        equal(body.replayed, false);
        first = body.data.id;
        const again = await interact(w, "comment.submit", comment(post, 1));
        equal(again.status, 200);
        const replay = await again.json();
        deepEqual([replay.data.id, replay.replayed], [first, true]);
        const reused = await interact(
          w,
          "comment.submit",
          comment(post, 1, { body: "Something else" }),
        );
        equal(reused.status, 409);
        equal(await codeOf(reused), "comment_key_reused");
        equal(await stored(w), 1);
        deepEqual((await served(w, `item=${post}`)).data, []);
      },
    );
    await t.step(
      "the envelope is closed and its limits hold at their edges",
      async () => {
        const extra = await interact(
          w,
          "comment.submit",
          comment(post, 2, { email: "a@b.c" }),
        );
        equal(extra.status, 400);
        const problems = (await extra.json()).error.problems as Json[];
        deepEqual(problems.map((p) => p.path), ["email"]);
        const longAuthor = "A".repeat(COMMENT_LIMITS.authorChars);
        const longBody = "b".repeat(COMMENT_LIMITS.bodyChars);
        equal(
          (await interact(
            w,
            "comment.submit",
            comment(post, 3, { author: longAuthor, body: longBody }),
          )).status,
          201,
        );
        for (
          const [n, extra] of [
            [4, { author: `${longAuthor}A` }],
            [5, { body: `${longBody}b` }],
            [6, { body: "   " }],
            [7, { key: "short" }],
          ] as const
        ) {
          const res = await interact(
            w,
            "comment.submit",
            comment(post, n, extra),
          );
          equal(res.status, 400, JSON.stringify(extra));
          equal(await codeOf(res), "interaction_invalid");
        }
        const wrongType = await w.app.request(
          "/v1/interactions/comment.submit",
          {
            method: "POST",
            headers: { host: "localhost", "content-type": "text/plain" },
            body: JSON.stringify(comment(post, 8)),
          },
        );
        equal(wrongType.status, 415);
        equal(await stored(w), 2);
      },
    );
    await t.step(
      "a filled honeypot answers a receipt and stores nothing",
      async () => {
        const res = await interact(
          w,
          "comment.submit",
          comment(post, 9, { website: "https://spam.example" }),
        );
        equal(res.status, 201);
        equal(await stored(w), 2);
      },
    );
    await t.step(
      "an unknown, unpublished or private item takes no comment",
      async () => {
        const note = await w.services.db.selectFrom("public_items as p")
          .innerJoin(
            "models as m",
            (j) => j.on(sql<boolean>`m.id::text = p.model_id`),
          ).select("p.group_id")
          .where("p.site_id", "=", w.siteId).where("m.slug", "=", "notes")
          .executeTakeFirst();
        for (
          const item of [crypto.randomUUID(), ...(note ? [note.group_id] : [])]
        ) {
          const res = await interact(w, "comment.submit", comment(item, 10));
          equal(res.status, 404);
          equal(await codeOf(res), "comment_target_not_found");
        }
        const page = await w.groupId("pages", "home");
        const closed = await interact(w, "comment.submit", comment(page, 11));
        equal(closed.status, 403);
        equal(await codeOf(closed), "comments_closed");
        equal(await stored(w), 2);
      },
    );

    const call = await manager(w, ["content:read", "content:write"]);
    await t.step(
      "a moderator lists the queue and approves; the same decision again is a conflict",
      async () => {
        const queue = await (await call("GET", "/comments")).json();
        const mine = queue.data.find((c: Json) => c.id === first);
        deepEqual([mine.status, mine.item, mine.body], [
          "pending",
          post,
          "Comment 1",
        ]);
        equal(queue.data.length, 2);
        const approve = await call(
          "POST",
          `/comments/${first}/moderate`,
          { decision: "approve" },
          "moderate-1",
        );
        equal(approve.status, 200, await approve.clone().text());
        equal((await approve.json()).comment.status, "approved");
        const repeated = await call(
          "POST",
          `/comments/${first}/moderate`,
          { decision: "approve" },
          "moderate-2",
        );
        // MAPI-015: moderation runs again on a retry, so a repeated decision answers conflict.
        equal(repeated.status, 409);
        equal((await repeated.json()).error.code, "conflict");
        const reader = await manager(w, ["content:read"]);
        const refused = await reader(
          "POST",
          `/comments/${first}/moderate`,
          { decision: "reject" },
          "moderate-3",
        );
        equal(refused.status, 403);
        const missing = await call(
          "POST",
          `/comments/${crypto.randomUUID()}/moderate`,
          { decision: "approve" },
          "moderate-4",
        );
        equal(missing.status, 404);
        const list = await served(w, `item=${post}`);
        deepEqual(list.data.map((c) => [c.id, c.author, c.body]), [[
          first,
          "Ada",
          "Comment 1",
        ]]);
        deepEqual(
          (await (await call("GET", "/comments")).json()).data.length,
          1,
        );
      },
    );
    await t.step(
      "a reply answers an approved comment, one level deep",
      async () => {
        w.clock.advance(1000);
        const reply = await interact(
          w,
          "comment.submit",
          comment(post, 20, { parent: first }),
        );
        equal(reply.status, 201);
        const replyId = (await reply.json()).data.id;
        await call(
          "POST",
          `/comments/${replyId}/moderate`,
          { decision: "approve" },
          "moderate-5",
        );
        const deeper = await interact(
          w,
          "comment.submit",
          comment(post, 21, { parent: replyId }),
        );
        equal(deeper.status, 400);
        const pendingParent = await interact(
          w,
          "comment.submit",
          comment(post, 22, { parent: crypto.randomUUID() }),
        );
        equal(pendingParent.status, 400);
        const list = await served(w, `item=${post}&order=oldest`);
        deepEqual(list.data.map((c) => c.parent), [null, first]);
      },
    );
  } finally {
    await w.close();
  }
});

Deno.test("comment.react keeps one reaction per visitor; /v1/_comments orders oldest, newest and best with a cursor (FORM-014, FORM-015)", async (t) => {
  const w = await openPublicWorld();
  try {
    await openComments(w);
    const post = await w.groupId("posts", await firstPostSlug(w));
    const call = await manager(w, ["content:read", "content:write"]);
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const res = await interact(
        w,
        "comment.submit",
        comment(post, n),
        `192.0.2.${n}`,
      );
      const id = (await res.json()).data.id;
      ids.push(id);
      await call(
        "POST",
        `/comments/${id}/moderate`,
        { decision: "approve" },
        `approve-${n}`,
      );
      w.clock.advance(60_000);
    }
    const react = (comment: string, visitor: string, reaction: string) =>
      interact(w, "comment.react", {
        action: "comment.react",
        comment,
        visitor: `visitor-${visitor}-000000000`,
        reaction,
      });
    await t.step(
      "reactions count once per visitor and can change or be taken back",
      async () => {
        deepEqual((await (await react(ids[2], "a", "up")).json()).data, {
          id: ids[2],
          up: 1,
          down: 0,
          reaction: "up",
        });
        await react(ids[2], "b", "up");
        await react(ids[2], "a", "up");
        await react(ids[1], "a", "down");
        const changed = await (await react(ids[2], "b", "down")).json();
        deepEqual([changed.data.up, changed.data.down], [1, 1]);
        const back = await (await react(ids[2], "b", "none")).json();
        deepEqual([back.data.up, back.data.down], [1, 0]);
        const bad = await react(ids[2], "c", "love");
        equal(bad.status, 400);
        equal(await codeOf(bad), "interaction_invalid");
      },
    );
    await t.step("a pending or unknown comment takes no reaction", async () => {
      const pending = await interact(w, "comment.submit", comment(post, 50));
      const pendingId = (await pending.json()).data.id;
      for (const id of [pendingId, crypto.randomUUID()]) {
        const res = await react(id, "a", "up");
        equal(res.status, 404);
        equal(await codeOf(res), "comment_not_found");
      }
    });
    await t.step("the three orders and the cursor", async () => {
      const order = async (name: string) =>
        (await served(w, `item=${post}&order=${name}`)).data.map((c) => c.id);
      deepEqual(await order("oldest"), ids);
      deepEqual(await order("newest"), [...ids].reverse());
      deepEqual(await order("best"), [ids[2], ids[0], ids[1]]);
      const pages: unknown[] = [];
      let cursor: string | null = null;
      do {
        const page: { data: Json[]; next_cursor: string | null } = await served(
          w,
          `item=${post}&order=best&limit=1${cursor ? `&cursor=${cursor}` : ""}`,
        );
        pages.push(...page.data.map((c) => c.id));
        cursor = page.next_cursor;
      } while (cursor);
      deepEqual(pages, [ids[2], ids[0], ids[1]]);
      const first = await served(w, `item=${post}&order=best&limit=1`);
      const foreign = await w.get(
        `/v1/_comments?item=${post}&order=newest&cursor=${first.next_cursor}`,
      );
      equal(foreign.status, 400);
      equal(await codeOf(foreign), "public_filter_invalid");
    });
    await t.step(
      "parameters are closed and limit holds at its edges",
      async () => {
        equal(
          (await served(w, `item=${post}&limit=${COMMENT_LIMITS.pageMax}`)).data
            .length,
          3,
        );
        for (
          const query of [
            `item=${post}&limit=${COMMENT_LIMITS.pageMax + 1}`,
            `item=${post}&limit=0`,
            `item=${post}&order=top`,
            `item=${post}&sort=best`,
            `item=${post}&item=${post}`,
            `item=nope`,
            ``,
          ]
        ) {
          const res = await w.get(`/v1/_comments?${query}`);
          equal(res.status, 400, query);
          equal(await codeOf(res), "public_filter_invalid", query);
        }
        const unknown = await w.get(
          `/v1/_comments?item=${crypto.randomUUID()}`,
        );
        equal(unknown.status, 404);
      },
    );
  } finally {
    await w.close();
  }
});

Deno.test("comment.submit is throttled per visitor address and closes after close_after_days (FORM-015)", async () => {
  const w = await openPublicWorld();
  try {
    await openComments(w, { close_after_days: 30 });
    const post = await w.groupId("posts", await firstPostSlug(w));
    for (let n = 0; n < COMMENT_LIMITS.perAddress; n++) {
      equal(
        (await interact(w, "comment.submit", comment(post, n))).status,
        201,
      );
    }
    const limited = await interact(w, "comment.submit", comment(post, 99));
    equal(limited.status, 429);
    equal(await codeOf(limited), "rate_limited");
    ok(Number(limited.headers.get("retry-after")) > 0);
    equal(
      (await interact(w, "comment.submit", comment(post, 98), "192.0.2.99"))
        .status,
      201,
    );
    equal(await stored(w), COMMENT_LIMITS.perAddress + 1);
    w.clock.advance(COMMENT_LIMITS.windowMs);
    equal(
      (await interact(w, "comment.submit", comment(post, 99))).status,
      201,
    );
    const published = await w.services.db.selectFrom("public_items").select(
      "published_at",
    ).where("group_id", "=", post).where("requested_locale", "=", "en")
      .executeTakeFirstOrThrow();
    w.clock.set(
      new Date(new Date(published.published_at).getTime() + 30 * 86_400_000),
    );
    const closed = await interact(w, "comment.submit", comment(post, 100));
    equal(closed.status, 403);
    equal(await codeOf(closed), "comments_closed");
  } finally {
    await w.close();
  }
});

async function firstPostSlug(w: PublicWorld): Promise<string> {
  const row = await w.services.db.selectFrom("public_items as p")
    .innerJoin(
      "models as m",
      (j) => j.on(sql<boolean>`m.id::text = p.model_id`),
    ).select("p.slug")
    .where("p.site_id", "=", w.siteId).where("m.slug", "=", "posts")
    .where("p.requested_locale", "=", "en").orderBy("p.slug").limit(1)
    .executeTakeFirstOrThrow();
  return row.slug;
}
