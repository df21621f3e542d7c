// The Management API runs the admin UI's lifecycle services: a publish through either leaves the same history (MAPI-004).
import assert from "node:assert/strict";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "../admin/helpers.ts";
import { setupDemo } from "../admin/demo_helpers.ts";
import { BASE } from "./helpers.ts";

Deno.test("a publish through the API writes the same history entry and public item as a publish in the admin UI (MAPI-004)", async () => {
  const demo = await setupDemo();
  const { t } = demo;
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: demo.email, password: PASSWORD });
    const list =
      await (await request(t, jar, "/admin/content/posts?status=draft&lang=en"))
        .text();
    const [viaAdmin, viaApi] = [
      ...list.matchAll(/name="select" form="bulk" value="([^"]+)"/g),
    ].map((m) => m[1]);
    const published = await t.app.request(
      "/admin/content/posts?status=draft&lang=en",
      {
        method: "POST",
        headers: {
          host: "admin.example.com",
          accept: "text/html",
          cookie: jar.header()!,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({
          _csrf: csrfField(list),
          action: "publish",
          lang: "en",
          select: viaAdmin,
        }),
      },
    );
    assert.equal(published.status, 200);
    assert.match(await published.text(), /Publish: 1 of 1 done/);

    const { secret } = await insertCredential(t.services.db, t.clock, {
      siteId: demo.siteId,
      creatorId: demo.adminId,
      name: "script",
      scopes: ["content:read", "lifecycle:publish"],
      models: null,
    });
    const headers = {
      authorization: `Bearer ${secret}`,
      "content-type": "application/json",
    };
    const apiId = viaApi.split(":")[0];
    const entry = await (await t.app.request(`${BASE}/entries/${apiId}`, {
      headers,
    })).json();
    const answer = await t.app.request(`${BASE}/entries/${apiId}/publish`, {
      method: "POST",
      headers: { ...headers, "idempotency-key": "pub" },
      body: JSON.stringify({
        locale: "en",
        expected_current_version_id: entry.locales.en.current_version_id,
        expected_workflow_revision: entry.workflow.revision,
      }),
    });
    assert.equal(answer.status, 200, await answer.clone().text());

    // Everything but ids, times and who acted is the same.
    const history = async (groupId: string) => {
      const rows = await t.services.db.selectFrom("workflow_events")
        .selectAll().where("group_id", "=", groupId)
        .where("kind", "=", "publish").execute();
      assert.equal(rows.length, 1, groupId);
      const { kind, locale, from_state, to_state, details, actor } = rows[0];
      return {
        event: { kind, locale, from_state, to_state, details },
        actor: actor as { kind: string },
        versions: {
          version: rows[0].version_id !== null,
          previous: rows[0].previous_version_id !== null,
        },
      };
    };
    const admin = await history(viaAdmin.split(":")[0]);
    const api = await history(apiId);
    // The API's entry names the key it ran under, so a lost answer can be settled from it.
    const { idempotency_key_digest: digest, ...apiDetails } = api.event
      .details as Record<string, unknown>;
    assert.match(String(digest), /^[0-9a-f]{64}$/);
    api.event.details = apiDetails;
    assert.deepEqual(api.event, admin.event);
    assert.deepEqual(api.versions, admin.versions);
    assert.notEqual(api.actor.kind, admin.actor.kind);
    for (const id of [viaAdmin.split(":")[0], apiId]) {
      const item = await t.services.db.selectFrom("public_items")
        .select("group_id").where("group_id", "=", id)
        .where("requested_locale", "=", "en").executeTakeFirst();
      assert.ok(item, `${id} is served publicly`);
    }
  } finally {
    await t.close();
  }
});
