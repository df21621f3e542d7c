// GET /admin/plugins/return: the way back from a plugin's page lands on the entry it was launched
// on when the person reads it, else on Settings → Plugins or the dashboard; nothing is revealed
// about an entry the person cannot read.
import { equal } from "node:assert/strict";
import { setupDemo } from "./demo_helpers.ts";
import { CookieJar, PASSWORD, request, signInAs } from "./helpers.ts";

Deno.test("GET /admin/plugins/return lands on the launched entry's editor, or on Settings → Plugins (LAU-001)", async () => {
  const demo = await setupDemo();
  const { t } = demo;
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: demo.email, password: PASSWORD });
    const entry = await t.services.db.selectFrom("entries")
      .select(["id", "group_id", "locale", "model_id"])
      .where("site_id", "=", demo.siteId).limit(1)
      .executeTakeFirstOrThrow();
    const { slug } = await t.services.db.selectFrom("models").select("slug")
      .where("id", "=", entry.model_id).executeTakeFirstOrThrow();
    const back = await request(
      t,
      jar,
      `/admin/plugins/return?instance=${entry.id}`,
    );
    equal(back.status, 303);
    equal(
      back.headers.get("location"),
      `/admin/content/${slug}/${entry.group_id}?lang=${entry.locale}`,
    );
    const manage = await request(t, jar, "/admin/plugins/return");
    equal(manage.headers.get("location"), "/admin/settings/plugins");
    const unknown = await request(
      t,
      jar,
      `/admin/plugins/return?instance=${crypto.randomUUID()}`,
    );
    equal(unknown.headers.get("location"), "/admin");
    const junk = await request(t, jar, "/admin/plugins/return?instance=x'--");
    equal(junk.headers.get("location"), "/admin/settings/plugins");
  } finally {
    await t.close();
  }
});
