// The admin opens the rendered site (issue 41): Settings says where the site is served, the
// editor's "View on site" opens the published page, previews open the rendered draft.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { getSettings, putSettings } from "../../core/sites/settings.ts";
import { setupDemo } from "../admin/demo_helpers.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "../admin/helpers.ts";

Deno.test("admin: Settings names the site's address, the editor views the page on site, previews open the rendered draft", async () => {
  const demo = await setupDemo();
  try {
    const jar = new CookieJar();
    await signInAs(demo.t, jar, { email: demo.email, password: PASSWORD });
    const open = async (path: string) => {
      const response = await request(demo.t, jar, path);
      equal(response.status, 200, path);
      return await response.text();
    };
    match(
      await open("/admin/settings"),
      /No site renderer is set up for this site/,
    );
    demo.t.services.config.siteRenderers = {
      "admin.example.com": "https://www.example.test",
    };
    match(
      await open("/admin/settings"),
      /Visitors see this site at <a href="https:\/\/www\.example\.test"/,
    );
    const about = await demo.t.services.db.selectFrom("entries")
      .select("group_id").where("site_id", "=", demo.siteId)
      .where("slug", "=", "about").executeTakeFirstOrThrow();
    const editor = await open(`/admin/content/pages/${about.group_id}?lang=en`);
    match(
      editor,
      /<a href="https:\/\/www\.example\.test\/about" target="_blank" rel="noopener">View on site<\/a>/,
    );
    const pages = await open("/admin/pages");
    const previewed = await request(demo.t, jar, "/admin/pages", {
      form: { _csrf: csrfField(pages), id: about.group_id },
    });
    equal(previewed.status, 201);
    const html = await previewed.text();
    match(
      html,
      /href="https:\/\/www\.example\.test\/about\?preview=sv_prev_[^"]+"[^>]*>Open the rendered en page/,
    );
    ok(html.includes("Open the en preview"));
    // SRCH-033: what the renderer draws follows the search setting.
    const capability = await request(
      demo.t,
      jar,
      "/api/pages/renderer-capability",
    );
    equal(capability.status, 200);
    deepEqual(await capability.json(), { site_search: { active: true } });
    const { db, clock } = demo.t.services;
    const search = await getSettings({ db, siteId: demo.siteId }, "search");
    const put = await putSettings(
      { db, clock, siteId: demo.siteId, personId: demo.adminId },
      "search",
      {
        document: { ...search.document, enabled: false },
        expectedRevision: search.revision,
      },
    );
    ok(put.ok);
    const off = await request(demo.t, jar, "/api/pages/renderer-capability");
    deepEqual(await off.json(), { site_search: { active: false } });
    const anonymous = await request(
      demo.t,
      new CookieJar(),
      "/api/pages/renderer-capability",
    );
    equal(anonymous.status, 401);
    await anonymous.body?.cancel();
  } finally {
    await demo.t.close();
  }
});
