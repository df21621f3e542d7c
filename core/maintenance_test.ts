import { equal } from "node:assert/strict";
import { runDailyMaintenance } from "./maintenance.ts";
import { openTestApp } from "../tests/support/app.ts";
import { insertSite } from "../tests/support/sites.ts";
import {
  insertActiveInstallation,
  minimalManifest,
} from "./plugins/_testing.ts";

Deno.test("runDailyMaintenance() deletes sessions past their expiry and keeps live ones", async () => {
  const t = await openTestApp();
  try {
    await insertSite(t.services.db, { domain: "m.test" });
    const userId = crypto.randomUUID();
    await t.services.db.insertInto("users").values({
      id: userId,
      email: "m@example.com",
      display_name: "m",
      password_hash: "x",
      status: "active",
      created_at: t.clock.now(),
    }).execute();
    const session = (id: string, expiresInMs: number) => ({
      id: crypto.randomUUID(),
      token_digest: id.repeat(64),
      user_id: userId,
      created_at: t.clock.now(),
      expires_at: new Date(t.clock.now().getTime() + expiresInMs),
    });
    await t.services.db.insertInto("sessions").values([
      session("a", -1),
      session("b", 1),
    ]).execute();
    const done = await runDailyMaintenance(t.services);
    equal(done.sessions, 1);
    equal(
      (await t.services.db.selectFrom("sessions").selectAll().execute()).length,
      1,
    );
  } finally {
    await t.close();
  }
});

Deno.test("runDailyMaintenance() deletes import and export jobs that have not moved for 30 days, with their files", async () => {
  const t = await openTestApp();
  try {
    const siteId = await insertSite(t.services.db, { domain: "jobs.test" });
    const job = (id: string, daysAgo: number) => ({
      id,
      site_id: siteId,
      kind: "export" as const,
      state: "ready",
      position: 4,
      cursor: "{}",
      options: "{}",
      counts: "{}",
      problems: "[]",
      created_by: "{}",
      created_at: t.clock.now(),
      updated_at: new Date(t.clock.now().getTime() - daysAgo * 86_400_000),
    });
    const old = crypto.randomUUID();
    const kept = crypto.randomUUID();
    await t.services.db.insertInto("data_jobs").values([
      job(old, 31),
      job(kept, 29),
    ]).execute();
    await t.services.db.insertInto("data_job_parts").values({
      job_id: old,
      file: "export",
      part: 1,
      bytes: new Uint8Array([1, 2, 3]),
      sha256: "x",
    }).execute();
    const done = await runDailyMaintenance(t.services);
    equal(done.dataJobs, 1);
    const left = await t.services.db.selectFrom("data_jobs").select("id")
      .execute();
    equal(left.map((j) => j.id).join(), kept);
    const parts = await t.services.db.selectFrom("data_job_parts").selectAll()
      .execute();
    equal(parts.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("runDailyMaintenance() deletes plugin notifications finished more than a week ago", async () => {
  const t = await openTestApp();
  try {
    const siteId = await insertSite(t.services.db, { domain: "notify.test" });
    const installationId = await insertActiveInstallation(
      t.services.db,
      siteId,
      minimalManifest(),
    );
    const day = 86_400_000;
    const row = (
      status: "pending" | "delivered" | "failed",
      daysAgo: number,
    ) => {
      const at = new Date(t.clock.now().getTime() - daysAgo * day);
      return {
        id: crypto.randomUUID(),
        site_id: siteId,
        installation_id: installationId,
        event: "content.changed",
        payload: "{}",
        status,
        attempts: 1,
        next_attempt_at: at,
        last_code: null,
        created_at: at,
        updated_at: at,
      };
    };
    await t.services.db.insertInto("plugin_notifications").values([
      row("delivered", 8),
      row("failed", 8),
      row("delivered", 6),
      row("pending", 8),
    ]).execute();
    const done = await runDailyMaintenance(t.services);
    equal(done.notifications, 2);
    const left = await t.services.db.selectFrom("plugin_notifications")
      .select("status").orderBy("status").execute();
    equal(left.map((r) => r.status).join(), "delivered,pending");
  } finally {
    await t.close();
  }
});
