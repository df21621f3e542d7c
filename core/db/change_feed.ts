// What a process knows of the database's commits without asking: a generation number that
// moves whenever a commit that wrote anything is announced (migration 0269 has every table
// announce its changes on the `stave_changes` channel). Work kept in memory under a generation,
// such as public answers, stays right while the generation has not moved.
//
// Every pooled connection listens. PostgreSQL hands a listening connection the notices of its
// own transaction before the commit returns, so a write made by this process has moved the
// generation before the writer resumes; commits of other processes arrive as soon as any of
// the pool's connections is between statements (PGlite has one session, and the same order).
// While no connection listens (before the first one opens, or after all were lost) a notice
// could go unseen, so the generation is unknown, and each listener that comes or goes moves it.
import type pg from "pg";
import type { PGlite } from "@electric-sql/pglite";

/** The channel migration 0269's triggers announce on. */
export const CHANGES_CHANNEL = "stave_changes";

/** The generation of one database's commits, as one process has heard of them. */
export class ChangeFeed {
  #generation = 0;
  #listening = 0;
  #waiting: (() => void)[] = [];
  /** Commits announced since the feed opened (tests and telemetry). */
  announced = 0;

  /**
   * The current generation: the same number twice means no commit that wrote anything was
   * announced between the two reads. Null while no connection listens.
   */
  generation(): number | null {
    return this.#listening > 0 ? this.#generation : null;
  }

  /** Resolves when the generation next moves, or a listener comes or goes. */
  moved(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** A commit was announced. */
  changed(): void {
    this.announced++;
    this.#move();
  }

  /** A connection started listening: notices sent while none listened may be lost. */
  listenerUp(): void {
    this.#listening++;
    this.#move();
  }

  /** A listening connection is gone. */
  listenerDown(): void {
    this.#listening--;
    this.#move();
  }

  #move(): void {
    this.#generation++;
    if (this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/** The part of `pg.Pool` the feed watches. */
interface WatchedPool {
  on(event: "connect", listener: (client: pg.PoolClient) => void): unknown;
}

/** Has every connection `pool` opens listen for announced commits. */
export function watchPool(pool: WatchedPool): ChangeFeed {
  const feed = new ChangeFeed();
  pool.on("connect", (client) => {
    let up = false;
    let gone = false;
    const down = () => {
      if (gone) return;
      gone = true;
      if (up) feed.listenerDown();
    };
    client.on("notification", (notice: pg.Notification) => {
      if (notice.channel === CHANGES_CHANNEL) feed.changed();
    });
    client.once("end", down);
    client.once("error", down);
    // Queued before whatever the pool's caller sends on the new connection.
    client.query(`listen ${CHANGES_CHANNEL}`).then(() => {
      if (gone) return;
      up = true;
      feed.listenerUp();
    }, down);
  });
  return feed;
}

/** Has the embedded engine's one session listen for announced commits. */
export function watchPglite(pglite: PGlite): ChangeFeed {
  const feed = new ChangeFeed();
  pglite.listen(CHANGES_CHANNEL, () => feed.changed()).then(
    () => feed.listenerUp(),
    () => {},
  );
  return feed;
}
