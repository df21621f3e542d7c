// The prepared demo: an empty embedded DATA_DIR starts from a copy of a seeded demo, with the same rows and media as seeding gives and an admin password of its own (issue 17, first start).
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { sql } from "kysely";
import { openServices } from "../../core/boot.ts";
import { loadConfig } from "../../core/config.ts";
import type { Db } from "../../core/db/database.ts";
import { verifyPassword } from "../../core/auth/password.ts";
import {
  DEMO_ADMIN_EMAIL,
  ensureDemoSite,
} from "../../core/sites/demo_site.ts";
import {
  copyPreparedDemo,
  hasPreparedDemo,
  PREPARED_PASSWORD_HASH,
  preparedDemoFingerprint,
  savePreparedDemo,
} from "../../core/sites/demo_prepared.ts";
import { ON_POSTGRES } from "../support/db.ts";

const demoConfig = (dataDir: string, extra: Record<string, string> = {}) =>
  loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: "",
    DEMO_SITE: "true",
    PORT: "8000",
    ...extra,
  });

/** Every row of every table, keyed by table, with the admin's password hash left out. */
async function everyRow(db: Db): Promise<Record<string, unknown[]>> {
  const { rows: tables } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`
    .execute(db);
  const all: Record<string, unknown[]> = {};
  for (const { name } of tables) {
    const { rows } = await sql<Record<string, unknown>>`
      select * from ${sql.table(name)}`.execute(db);
    all[name] = rows
      .map((row) => ({ ...row, password_hash: undefined }))
      .map((row) => JSON.stringify(row))
      .sort();
  }
  return all;
}

async function filesOf(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) {
      found.push(...await filesOf(`${dir}/${entry.name}`, `${path}/`));
    } else {
      const bytes = await Deno.readFile(`${dir}/${entry.name}`);
      found.push(`${path}:${bytes.length}`);
    }
  }
  return found.sort();
}

Deno.test({
  name:
    "a prepared demo copied into an empty DATA_DIR holds every row and media file seeding gives; its admin gets a new password, the copy none",
  // The prepared demo is the embedded store's; PostgreSQL never uses it.
  ignore: ON_POSTGRES,
  async fn() {
    const cache = new URL(`file://${await Deno.makeTempDir()}/`);
    const seededDir = await Deno.makeTempDir();
    const copiedDir = await Deno.makeTempDir();
    const seededConfig = demoConfig(seededDir);
    const fingerprint = (await preparedDemoFingerprint(seededConfig))!;
    const seeded = await openServices(seededConfig, {
      buildIslands: false,
      preparedDir: cache,
      demoAdminPassword: true,
    });
    let copied: Awaited<ReturnType<typeof openServices>> | undefined;
    try {
      const created = await ensureDemoSite(seeded.services);
      equal(created.origin, "created");
      equal(seeded.demoAdminPassword, undefined, "nothing was copied");
      ok(
        await savePreparedDemo(
          seeded.services.db,
          seededConfig,
          fingerprint,
          cache,
        ),
      );
      ok(await hasPreparedDemo(fingerprint, cache));

      copied = await openServices(demoConfig(copiedDir), {
        buildIslands: false,
        preparedDir: cache,
        demoAdminPassword: true,
      });
      const admin = await copied.services.db.selectFrom("users")
        .select("password_hash").where("email", "=", DEMO_ADMIN_EMAIL)
        .executeTakeFirstOrThrow();
      equal(
        admin.password_hash,
        PREPARED_PASSWORD_HASH,
        "the copy holds no password",
      );
      equal(await verifyPassword("", admin.password_hash), false);

      // The start that copied the demo hashed the admin's new password while the database opened.
      ok(copied.demoAdminPassword, "a password is made for the copy's admin");
      const claimed = await ensureDemoSite(copied.services, {
        copiedAdminPassword: copied.demoAdminPassword,
      });
      equal(claimed.origin, "copied");
      const password = claimed.createdAdmin!.password;
      equal(password, (await copied.demoAdminPassword).password);
      notEqual(password, created.createdAdmin!.password);
      const hash = (await copied.services.db.selectFrom("users")
        .select("password_hash").where("email", "=", DEMO_ADMIN_EMAIL)
        .executeTakeFirstOrThrow()).password_hash;
      ok(await verifyPassword(password, hash));
      equal(await verifyPassword(created.createdAdmin!.password, hash), false);
      ok(
        (await Deno.readTextFile(`${copiedDir}/demo-admin.txt`))
          .includes(`password: ${password}\n`),
      );
      // Claimed once: the next start finds an admin with a password.
      const again = await ensureDemoSite(copied.services);
      equal(again.origin, "existing");
      equal(again.createdAdmin, undefined);

      const [want, got] = await Promise.all([
        everyRow(seeded.services.db),
        everyRow(copied.services.db),
      ]);
      deepEqual(got, want);
      ok(want.entries.length > 50, "the demo was seeded");
      deepEqual(
        await filesOf(`${copiedDir}/media`),
        await filesOf(`${seededDir}/media`),
      );
      ok((await filesOf(`${seededDir}/media`)).length > 0, "covers are there");
    } finally {
      await copied?.close();
      await seeded.close();
      for (const dir of [seededDir, copiedDir, cache.pathname]) {
        await Deno.remove(dir, { recursive: true });
      }
    }
  },
});

Deno.test("a prepared demo is named by the settings written into it and used only by the embedded store with local media", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const fingerprintWith = (env: Record<string, string> = {}) =>
      preparedDemoFingerprint(demoConfig(dataDir, env));
    const base = await fingerprintWith();
    ok(base && /^[0-9a-f]{24}$/.test(base));
    equal(await fingerprintWith(), base);
    notEqual(
      await fingerprintWith({ PUBLIC_URL: "https://cms.example.com" }),
      base,
    );
    notEqual(await fingerprintWith({ DEMO_DOMAIN: "demo.test" }), base);
    equal(await fingerprintWith({ DEMO_SITE: "false" }), null);
    equal(
      await fingerprintWith({ DATABASE_URL: "postgres://127.0.0.1/x" }),
      null,
    );
    // Nothing prepared under that name: nothing is copied and the folder stays empty.
    const cache = new URL(`file://${await Deno.makeTempDir()}/`);
    equal(await copyPreparedDemo(demoConfig(dataDir), base, cache), false);
    deepEqual(await Array.fromAsync(Deno.readDir(dataDir)), []);
    await Deno.remove(cache, { recursive: true });
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
