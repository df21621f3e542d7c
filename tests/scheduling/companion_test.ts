// `deno task start` runs the scheduling plugin beside the embedded demo and installs it on the
// demo site, so a newcomer's first post already shows a Schedule card; a second start finds it
// installed and keeps the plugin's secrets.
import { equal, match } from "node:assert/strict";
import { createSession } from "../../core/auth/session_store.ts";
import { startSchedulerCompanion } from "../../core/plugins/companion.ts";
import {
  DEMO_ADMIN_EMAIL,
  ensureDemoSite,
} from "../../core/sites/demo_site.ts";
import { openTestApp } from "../support/app.ts";

Deno.test("the demo site gets the scheduling plugin installed and a Schedule card on a post", async () => {
  const dir = await Deno.makeTempDir({ prefix: "stave-companion-" });
  const t = await openTestApp({ env: { DEMO_SITE: "true", DATA_DIR: dir } });
  try {
    equal(t.services.config.environment, "development");
    await ensureDemoSite(t.services);
    const first = await startSchedulerCompanion(t.services, 0);
    equal(first.installed, "installed");
    // The plugin runs on a worker thread; the service's cron asks it for each tick.
    equal((await first.tick()).claimed, 0);
    equal(t.services.config.pluginDevOrigins.includes(first.origin), true);
    const secrets = await Deno.readTextFile(`${dir}/scheduling/secrets.json`);
    equal(
      (await Deno.stat(`${dir}/scheduling/secrets.json`)).mode! & 0o777,
      0o600,
    );
    await first.close();

    const again = await startSchedulerCompanion(t.services, 0);
    equal(again.installed, "already");
    equal(await Deno.readTextFile(`${dir}/scheduling/secrets.json`), secrets);
    await again.close();

    const installation = await t.services.db.selectFrom("plugin_installations")
      .select(["state"]).executeTakeFirstOrThrow();
    equal(installation.state, "active");
    const admin = await t.services.db.selectFrom("users").select("id")
      .where("email", "=", DEMO_ADMIN_EMAIL).executeTakeFirstOrThrow();
    const post = await t.services.db.selectFrom("entries")
      .innerJoin("entry_groups", "entry_groups.id", "entries.group_id")
      .innerJoin(
        "models",
        (j) =>
          j.on((e) =>
            e(e.cast("models.id", "text"), "=", e.ref("entry_groups.model_id"))
          ),
      )
      .select(["entries.group_id"])
      .where("models.slug", "=", "posts").where("entries.locale", "=", "en")
      .executeTakeFirstOrThrow();
    const { token } = await createSession(
      { db: t.services.db, clock: t.clock },
      admin.id,
    );
    const page = await t.app.request(
      `http://localhost/admin/content/posts/${post.group_id}?lang=en`,
      {
        headers: {
          host: "localhost",
          cookie: `stave_session=${token}`,
          accept: "text/html",
        },
      },
    );
    equal(page.status, 200);
    const html = await page.text();
    match(html, /class="card plugin-card"/);
    match(html, /Publish or unpublish this entry at a time you choose\./);
  } finally {
    await t.close();
  }
});
