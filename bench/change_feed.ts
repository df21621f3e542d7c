// What announcing commits costs per commit (docs/benchmarks.md, "Writes and the change feed"):
// a pool of 10 connections commits one-row inserts into a table with migration 0269's
// announcing trigger, from 8 workers, once with every pooled connection listening on the
// changes channel (how the change feed listened before 2026-11-30) and once with one connection
// of its own listening (how it listens now), alternating. Prints commits a second and the whole
// machine's CPU per commit (`/proc/stat`: the service's side and PostgreSQL's together).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres deno run -A bench/change_feed.ts
import pg from "pg";
import { sql } from "kysely";
import { CHANGES_CHANNEL } from "../core/db/change_feed.ts";
import { openScratchDatabase } from "./scratch_db.ts";

const POOL = 10;
const WORKERS = 8;
const COMMITS = Number(Deno.env.get("BENCH_FEED_COMMITS") ?? 4000);
const PAIRS = Number(Deno.env.get("BENCH_FEED_PAIRS") ?? 3);

/** Jiffies the machine spent busy (user, nice, system, irq, softirq) since boot. */
function machineBusy(): number {
  const fields = Deno.readTextFileSync("/proc/stat").split("\n")[0].trim()
    .split(/\s+/).slice(1).map(Number);
  return fields[0] + fields[1] + fields[2] + fields[5] + fields[6];
}

async function run(url: string, listening: "every" | "one") {
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  const own = listening === "one"
    ? new pg.Client({ connectionString: url })
    : null;
  let heard = 0;
  const opened: pg.PoolClient[] = [];
  for (let i = 0; i < POOL; i++) opened.push(await pool.connect());
  const listeners: (pg.PoolClient | pg.Client)[] = own ? [own] : opened;
  if (own) await own.connect();
  for (const client of listeners) {
    client.on("notification", () => heard++);
    await client.query(`listen ${CHANGES_CHANNEL}`);
  }
  for (const client of opened) client.release();
  const busyBefore = machineBusy();
  const started = performance.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (sent < COMMITS) {
        sent++;
        await pool.query({
          name: "feed_probe_insert",
          text: "insert into feed_probe (v) values ($1)",
          values: [sent],
        });
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const jiffies = machineBusy() - busyBefore;
  await pool.end();
  await own?.end();
  console.log(
    `${listening === "one" ? "one listener " : "every pooled"}: ${
      Math.round(COMMITS / seconds)
    } commits/s, ${
      Math.round(jiffies * 10_000 / COMMITS)
    } us of machine CPU per commit, ${heard} notices heard`,
  );
}

const scratch = await openScratchDatabase(
  "stave_bench_feed",
  "the change feed probe",
);
try {
  await sql`create table feed_probe (id serial primary key, v int)`.execute(
    scratch.db,
  );
  await sql`select stave_announce_changes_of('feed_probe')`.execute(
    scratch.db,
  );
  for (let pair = 0; pair < PAIRS; pair++) {
    await run(scratch.url, "every");
    await run(scratch.url, "one");
  }
} finally {
  await scratch.drop();
}
