import { equal } from "node:assert/strict";
import { runDailyMaintenance } from "./maintenance.ts";
import { openTestApp } from "../tests/support/app.ts";
import { insertSite } from "../tests/support/sites.ts";

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
