// `deno task svc move-to-postgres` (issue 47 item 4, moving up): the demo site's embedded store is
// copied into an empty PostgreSQL database with everything (settings, menus, roles, people,
// credentials, history), every row of every table matches, and the public API answers the same.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { sql } from "kysely";
import { openServices } from "../../core/boot.ts";
import { loadConfig } from "../../core/config.ts";
import type { Db } from "../../core/db/database.ts";
import { openDatabase } from "../../core/db/database.ts";
import { createApp } from "../../core/server.ts";
import { ensureDemoSite } from "../../core/sites/demo_site.ts";
import { createScratchDatabase } from "../support/db.ts";
import { runDeno } from "../support/process.ts";

const BASE_URL = Deno.env.get("DATABASE_URL");
const SKIPPED = new Set([
  "kysely_migration",
  "kysely_migration_lock",
  "schema_migrations",
]);

async function tableDigests(db: Db): Promise<Record<string, string>> {
  return await db.transaction().execute(async (tx) => {
    await sql`set local time zone 'UTC'`.execute(tx);
    const tables = (await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`
      .execute(tx)).rows.map((r) => r.name).filter((n) => !SKIPPED.has(n));
    const digests: Record<string, string> = {};
    for (const table of tables) {
      const row = (await sql<{ digest: string; n: number }>`
        select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest,
          count(*)::int as n from ${sql.table(table)} t`.execute(tx)).rows[0];
      digests[table] = `${row.n}:${row.digest}`;
    }
    return digests;
  });
}

async function postsAnswer(env: Record<string, string>): Promise<unknown> {
  const { services, close } = await openServices(
    loadConfig({ DEMO_SITE: "false", ...env }),
    { buildIslands: false, log: () => {} },
  );
  try {
    const answer = await createApp(services).request("/v1/posts?limit=50", {
      headers: { host: "localhost" },
    });
    equal(answer.status, 200);
    return await answer.json();
  } finally {
    await close();
  }
}

Deno.test({
  name:
    "svc move-to-postgres copies every row of the demo's embedded store into an empty PostgreSQL database, which then answers the same; a database with sites is refused (issue 47 item 4)",
  // Needs a PostgreSQL server for the target: the PostgreSQL run.
  ignore: !BASE_URL,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "stave-move-" });
    const target = await createScratchDatabase(BASE_URL!);
    try {
      const opened = await openServices(
        loadConfig({ DATA_DIR: dataDir, DEMO_SITE: "true" }),
        { buildIslands: false, log: () => {} },
      );
      try {
        await ensureDemoSite(opened.services);
      } finally {
        await opened.close();
      }
      const move = () =>
        runDeno([
          "run",
          "-A",
          "--unstable-kv",
          "cli/svc.ts",
          "move-to-postgres",
          "--to",
          target.url,
        ], { DATA_DIR: dataDir, DEMO_SITE: "false", NO_COLOR: "1" });
      const moved = await move();
      equal(moved.code, 0, moved.stderr);
      match(moved.stderr, /Copied \d+ rows of \d+ tables into PostgreSQL/);

      const source = await openDatabase({ pglitePath: `${dataDir}/pglite` });
      const copied = await openDatabase({ url: target.url });
      try {
        const want = await tableDigests(source);
        for (
          const table of [
            "sites",
            "users",
            "roles",
            "site_members",
            "entries",
            "entry_versions",
            "workflow_events",
            "site_settings",
            "audit_entries",
          ]
        ) ok(!want[table].startsWith("0:"), `${table} has rows`);
        const got = await tableDigests(copied);
        const differing = Object.keys(want).filter((t) => got[t] !== want[t]);
        // Every row of every table.
        ok(
          differing.length === 0,
          differing.map((t) => `${t} ${got[t]} ${want[t]}`).join("\n"),
        );
      } finally {
        await source.destroy();
        await copied.destroy();
      }
      deepEqual(
        await postsAnswer({ DATABASE_URL: target.url, DATA_DIR: dataDir }),
        await postsAnswer({ DATA_DIR: dataDir }),
      );

      // Sites in the target: refused, nothing copied over them.
      const again = await move();
      equal(again.code, 1);
      match(
        again.stderr,
        /already holds sites: move into an empty database; nothing was copied/,
      );
    } finally {
      await target.drop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
