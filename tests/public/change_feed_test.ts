// Kept public answers on a primary are keyed by the generation of announced commits
// (core/db/change_feed.ts, migration 0269): a kept read asks the database nothing, and every
// commit, made by this process or another, shows at the next read once announced (PUB-009).
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { sql } from "kysely";
import pg from "pg";
import { changeFeedOf, type Db, openDatabase } from "../../core/db/database.ts";
import {
  type ChangeFeed,
  CHANGES_CHANNEL,
  ListeningFeed,
} from "../../core/db/change_feed.ts";
import { keptAnswersOf } from "../../core/public/kept_shelf.ts";
import { statementsOf } from "../support/statements.ts";
import { ON_POSTGRES } from "../support/db.ts";
import { openPublicWorld, type PublicWorld } from "./helpers.ts";

const SLUG = "caching-at-the-edge-without-stale-pages";

/**
 * Reads `path` until an answer is served from kept answers (at most 5 reads), once the process
 * listens for commits (nothing is kept before).
 */
async function untilKept(w: PublicWorld, path: string): Promise<string> {
  const feed = changeFeedOf(w.services.db);
  if (feed instanceof ListeningFeed) await feed.settled();
  const shelf = keptAnswersOf(
    w.services.db,
    w.services.config.publicAnswerCacheBytes,
  );
  for (let i = 0; i < 5; i++) {
    const hits = shelf.hits;
    const res = await w.get(path);
    equal(res.status, 200);
    const body = await res.text();
    if (shelf.hits === hits + 1) return body;
  }
  throw new Error(`${path} was never served from kept answers`);
}

/** The URL of `db`'s database: each test runs on a copy of its own. */
async function urlOf(db: Db): Promise<string> {
  const { rows: [{ name }] } = await sql<{ name: string }>`
    select current_database() as name`.execute(db);
  const url = new URL(Deno.env.get("DATABASE_URL")!);
  url.pathname = `/${name}`;
  return url.href;
}

/** A handle of its own on `db`'s database, as another process would hold. */
async function openAnotherProcess(db: Db): Promise<Db> {
  return await openDatabase({ url: await urlOf(db) });
}

/** Waits until `feed` has heard `count` announcements in all. */
async function announced(feed: ChangeFeed, count: number): Promise<void> {
  while (feed.announced < count) await feed.moved();
}

Deno.test("every table announces its committed changes (PUB-009)", async () => {
  const w = await openPublicWorld();
  try {
    const { rows } = await sql<{ table: string }>`
      select c.relname as table from pg_class c
      where c.relkind in ('r', 'p') and c.relnamespace = current_schema()::regnamespace
        and c.relname not like 'kysely\\_%' and not c.relispartition
        and not exists (select 1 from pg_trigger t
          where t.tgrelid = c.oid and t.tgname = 'stave_announce_change')
      order by 1
    `.execute(w.services.db);
    deepEqual(
      rows.map((r) => r.table),
      [],
      "give each new table `select stave_announce_changes_of('<table>')` in its migration",
    );
  } finally {
    await w.close();
  }
});

Deno.test("a kept read asks the database nothing, and a commit of this process shows at the next read (PUB-009)", async () => {
  const w = await openPublicWorld();
  try {
    const { db } = w.services;
    const feed = changeFeedOf(db);
    ok(feed, "a primary handle has a change feed");
    const path = `/v1/posts/${SLUG}`;
    const kept = await untilKept(w, path);
    const { result, statements } = await statementsOf(db, () => w.get(path));
    equal(result.status, 200);
    equal(await result.text(), kept);
    if (statements) deepEqual(statements, [], "no statement for a kept read");

    const generation = feed.generation();
    await sql`select count(*) from public_items`.execute(db);
    equal(feed.generation(), generation, "a read moves nothing");
    // Written below every service, as an operator's SQL would: the pool tells the feed.
    await sql`update public_items set fields = jsonb_set(fields, '{title}', '"Edited by hand"')
      where slug = ${SLUG}`.execute(db);
    notEqual(
      feed.generation(),
      generation,
      "announced before the commit returned",
    );
    const after = await w.get(path);
    equal((await after.json()).data.fields.title, "Edited by hand");
  } finally {
    await w.close();
  }
});

Deno.test("a commit of another process shows at the next read once announced (PUB-009)", async () => {
  if (!ON_POSTGRES) return; // The embedded engine has one process.
  const w = await openPublicWorld();
  let other: Db | null = null;
  try {
    const { db } = w.services;
    const feed = changeFeedOf(db)!;
    const path = `/v1/posts/${SLUG}`;
    await untilKept(w, path);
    other = await openAnotherProcess(db);
    const before = feed.announced;
    await sql`delete from public_items where slug = ${SLUG}`.execute(other);
    await announced(feed, before + 1);
    const gone = await w.get(path);
    equal(gone.status, 404);
    await gone.body?.cancel();
  } finally {
    await other?.destroy();
    await w.close();
  }
});

Deno.test("while no connection listens nothing kept is served, and a new connection listens again", async () => {
  if (!ON_POSTGRES) return; // The embedded engine's one session cannot be cut off.
  const w = await openPublicWorld();
  let other: Db | null = null;
  try {
    const { db } = w.services;
    const feed = changeFeedOf(db)!;
    const shelf = keptAnswersOf(db, w.services.config.publicAnswerCacheBytes);
    const path = `/v1/posts/${SLUG}`;
    const kept = await untilKept(w, path);
    other = await openAnotherProcess(db);
    // Every connection of the service is idle now, its listener's too: all of them go.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()`
      .execute(other);
    while (feed.generation() !== null) await feed.moved();
    const hits = shelf.hits;
    const res = await w.get(path);
    equal(res.status, 200);
    equal(await res.text(), kept, "computed again, the same answer");
    equal(shelf.hits, hits, "not served from what was kept before");
    // The read asked for the generation, which opens a listening connection again.
    while (feed.generation() === null) await feed.moved();
    await untilKept(w, path);
  } finally {
    await other?.destroy();
    await w.close();
  }
});

Deno.test("a commit of this process moves the generation once: the listener skips the notice of the pool's own backends", async () => {
  if (!ON_POSTGRES) return; // The embedded engine hears its own notice only.
  const w = await openPublicWorld();
  let other: Db | null = null;
  try {
    const { db } = w.services;
    const feed = changeFeedOf(db);
    ok(feed instanceof ListeningFeed);
    await feed.settled();
    other = await openAnotherProcess(db);
    const before = feed.announced;
    await sql`update public_items set fields = fields where slug = ${SLUG}`
      .execute(db);
    equal(
      feed.announced,
      before + 1,
      "moved by the pool as the write returned",
    );
    await sql`update public_items set fields = fields where slug = ${SLUG}`
      .execute(other);
    // Notices arrive in commit order: by the time the other process's is heard, this process's
    // own one has arrived and been skipped.
    await announced(feed, before + 2);
    equal(feed.announced, before + 2);
  } finally {
    await other?.destroy();
    await w.close();
  }
});

Deno.test("a commit is announced once however many statements it ran, a rollback never, and any writer's commit alike (PUB-009)", async () => {
  if (!ON_POSTGRES) return; // The embedded engine has one session and no other writer.
  const w = await openPublicWorld();
  const url = await urlOf(w.services.db);
  // Outside Stave: plain connections, as an operator's psql or another tool would hold.
  const listener = new pg.Client({ connectionString: url });
  const outsider = new pg.Client({ connectionString: url });
  try {
    const { db } = w.services;
    await listener.connect();
    await outsider.connect();
    const heard: string[] = [];
    let sentinelHeard: (() => void) | null = null;
    listener.on("notification", (notice: pg.Notification) => {
      if (notice.payload === "sentinel") sentinelHeard?.();
      else heard.push(notice.payload ?? "");
    });
    await listener.query(`listen ${CHANGES_CHANNEL}`);
    /** Every notice committed so far: notices arrive in commit order, the sentinel's last. */
    const noticesSoFar = async (): Promise<number> => {
      const arrived = new Promise<void>((resolve) => sentinelHeard = resolve);
      await outsider.query(
        `select pg_notify('${CHANGES_CHANNEL}', 'sentinel')`,
      );
      await arrived;
      return heard.splice(0).length;
    };

    await db.transaction().execute(async (trx) => {
      await sql`update public_items set fields = fields where slug = ${SLUG}`
        .execute(trx);
      await sql`update public_items set fields = fields where slug = ${SLUG}`
        .execute(trx);
    });
    equal(
      await noticesSoFar(),
      1,
      "one notice for a transaction of two writes",
    );
    await sql`update public_items set fields = fields where slug = ${SLUG}`
      .execute(db);
    equal(await noticesSoFar(), 1, "one for a statement outside a transaction");
    await db.transaction().execute(async (trx) => {
      await sql`update public_items set fields = fields where slug = ${SLUG}`
        .execute(trx);
      throw new Error("changed my mind");
    }).catch(() => {});
    equal(await noticesSoFar(), 0, "none for a transaction rolled back");

    await outsider.query(
      "update public_items set fields = fields where slug = $1",
      [SLUG],
    );
    equal(await noticesSoFar(), 1, "an outside writer's trigger announces");
  } finally {
    await listener.end();
    await outsider.end();
    await w.close();
  }
});
