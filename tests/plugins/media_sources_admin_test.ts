// Media → Plugin sources in the admin, without script: the plugin's sources and items listed with
// previews sent without a referrer (PEXT-025), imports into the library through the same service
// as the Management API, and refusals (permission, a failing plugin) in words.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import { type PluginWorld, SITE_HOST, withPluginWorld } from "./world.ts";

const CSRF = "c".repeat(43);

function get(w: PluginWorld, path: string, session = w.session) {
  return Promise.resolve(w.app.request(`http://${SITE_HOST}${path}`, {
    headers: {
      host: SITE_HOST,
      cookie: `stave_session=${session}; stave_csrf=${CSRF}`,
      accept: "text/html",
    },
  }));
}

function post(
  w: PluginWorld,
  fields: Record<string, string>,
  session = w.session,
) {
  const body = new URLSearchParams({ _csrf: CSRF, ...fields });
  return Promise.resolve(
    w.app.request(`http://${SITE_HOST}/admin/media/sources`, {
      method: "POST",
      headers: {
        host: SITE_HOST,
        cookie: `stave_session=${session}; stave_csrf=${CSRF}`,
        origin: `http://${SITE_HOST}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "text/html",
      },
      body,
    }),
  );
}

async function withSources(fn: (w: PluginWorld, id: string) => Promise<void>) {
  await withPluginWorld(async (w) => {
    w.plugin.behaviour.mediaSources = true;
    w.plugin.behaviour.capabilities = [
      ...w.plugin.behaviour.capabilities,
      "media:source",
    ];
    await fn(w, await w.install());
  });
}

/** Every `<img …>` tag of a page. */
function images(html: string): string[] {
  return [...html.matchAll(/<img\b[^>]*>/g)].map((m) => m[0]);
}

Deno.test("Media → Plugin sources lists the plugin's sources and items, every preview with referrerpolicy=no-referrer (PEXT-025)", () =>
  withSources(async (w, id) => {
    const library = await (await get(w, "/admin/media")).text();
    match(library, /href="\/admin\/media\/sources"/);

    const res = await get(w, "/admin/media/sources");
    equal(res.status, 200);
    // The admin's policy sends other origins no referrer; same-origin stays so form posts keep their Origin.
    equal(res.headers.get("referrer-policy"), "same-origin");
    match(
      res.headers.get("content-security-policy") ?? "",
      new RegExp(`img-src [^;]*${w.plugin.origin.replaceAll(".", "\\.")}`),
      "the plugin's development origin may show its previews",
    );
    const html = await res.text();
    match(html, /<h1>Plugin media sources<\/h1>/);
    match(html, /aria-label="Breadcrumb"/);
    match(html, /Stock photos \(Example publisher\)/);
    match(html, /Team uploads \(Example publisher\)/);
    match(html, new RegExp(`value="${id}/stock" selected`));
    match(html, /Sunrise/);
    const previews = images(html);
    equal(previews.length, 1, "the plugin answers one item a page");
    for (const img of previews) {
      match(img, /referrerpolicy="no-referrer"/);
      match(img, /loading="lazy"/);
    }
    match(
      previews[0],
      new RegExp(`src="${w.plugin.origin}/files/sunrise.png"`),
    );
    match(previews[0], /alt="The sun over the sea"/);
    match(html, /name="mode" value="copy"/);
    match(html, /name="mode" value="reference"/);
    match(html, /href="\/admin\/media\/sources\?source=[^"]*cursor=1"/);
    deepEqual(w.plugin.fileRequests, [], "the service fetched no preview");

    // The next page, then a search: the alt falls back to the title.
    const next = await (await get(
      w,
      `/admin/media/sources?source=${id}/stock&cursor=1`,
    )).text();
    match(images(next)[0], /alt="Not a picture"/);
    const found = await (await get(
      w,
      `/admin/media/sources?source=${id}/uploads&q=gone`,
    )).text();
    match(found, new RegExp(`value="${id}/uploads" selected`));
    match(images(found)[0], /alt="Gone"/);
    match(images(found)[0], /referrerpolicy="no-referrer"/);
    equal(
      found.includes('value="reference"'),
      false,
      "a copy-only source offers no reference import",
    );
  }));

Deno.test("Media → Plugin sources imports a copy into the library and opens it; a second import is named a duplicate (PEXT-026)", () =>
  withSources(async (w, id) => {
    const res = await post(w, {
      source: `${id}/stock`,
      item_id: "sunrise",
      mode: "copy",
    });
    equal(res.status, 303, await res.clone().text());
    const rows = await w.services.db.selectFrom("media_files")
      .select(["id", "external", "storage_key", "file_name"])
      .where("site_id", "=", w.siteId).execute();
    equal(rows.length, 1);
    equal(rows[0].external, false);
    ok(rows[0].storage_key !== "", "a site-owned copy");
    equal(res.headers.get("location"), `/admin/media?item=${rows[0].id}`);
    deepEqual(w.plugin.fileRequests, ["/files/sunrise.png"]);
    const opened = await (await get(w, res.headers.get("location")!)).text();
    match(opened, /sunrise\.png/);

    const again = await post(w, {
      source: `${id}/stock`,
      item_id: "sunrise",
      mode: "copy",
    });
    equal(again.status, 409);
    const html = await again.text();
    match(html, /class="alert"/);
    match(html, /already in the library/);
    match(html, new RegExp(`href="/admin/media\\?item=${rows[0].id}"`));

    const fetched = w.plugin.fileRequests.length;
    const reference = await post(w, {
      source: `${id}/stock`,
      item_id: "sunrise",
      mode: "reference",
    });
    equal(reference.status, 303);
    const external = await w.services.db.selectFrom("media_files")
      .select(["id", "external"]).where("site_id", "=", w.siteId)
      .where("external", "=", true).execute();
    equal(external.length, 1);
    equal(
      reference.headers.get("location"),
      `/admin/media?item=${external[0].id}`,
    );
    equal(
      w.plugin.fileRequests.length,
      fetched,
      "a reference fetches nothing",
    );

    const copyOnly = await post(w, {
      source: `${id}/uploads`,
      item_id: "sunrise",
      mode: "reference",
    });
    equal(copyOnly.status, 422);
    match(await copyOnly.text(), /does not offer that kind of import/);
  }));

Deno.test("Media → Plugin sources refuses a person without media:upload, and imports nothing for them", () =>
  withSources(async (w, id) => {
    const roleId = await insertRole(w.services.db, w.siteId, {
      models: { "*": ["read"] },
      system: [],
    }, w.clock);
    const userId = await insertMember(w.services.db, w.siteId, {
      roleId,
      clock: w.clock,
    });
    const session = await w.sessionFor(userId);
    const res = await get(w, "/admin/media/sources", session);
    equal(res.status, 403);
    match(await res.text(), /media:upload/);
    const imported = await post(w, {
      source: `${id}/stock`,
      item_id: "sunrise",
      mode: "copy",
    }, session);
    equal(imported.status, 403);
    await imported.body?.cancel();
    const rows = await w.services.db.selectFrom("media_files").select("id")
      .where("site_id", "=", w.siteId).execute();
    equal(rows.length, 0);
    deepEqual(w.plugin.fileRequests, []);
  }));

Deno.test("Media → Plugin sources shows a failing plugin's answer as a message in words, not an error page", () =>
  withSources(async (w, id) => {
    w.plugin.behaviour.mediaSourceFault = "garbage";
    const res = await get(w, `/admin/media/sources?source=${id}/stock`);
    equal(res.status, 502);
    const html = await res.text();
    match(html, /<h1>Plugin media sources<\/h1>/);
    match(html, /<p role="alert" class="alert">The plugin answered something/);
    match(html, /Stock photos/, "the sources stay listed to pick another");
    equal(images(html).length, 0);

    const imported = await post(w, {
      source: `${id}/stock`,
      item_id: "sunrise",
      mode: "copy",
    });
    equal(imported.status, 502);
    match(await imported.text(), /class="alert"/);

    // A source whose plugin was disabled meanwhile.
    w.plugin.behaviour.mediaSourceFault = undefined;
    await w.services.db.updateTable("plugin_installations").set({
      state: "disabled",
    }).where("id", "=", id).execute();
    const gone = await post(w, {
      source: `${id}/stock`,
      item_id: "sunrise",
      mode: "copy",
    });
    equal(gone.status, 404);
    match(await gone.text(), /This source is not available/);
    const empty = await (await get(w, "/admin/media/sources")).text();
    match(empty, /No installed plugin offers media here/);
  }));
