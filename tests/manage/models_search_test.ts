// A model change keeps search documents current in its own transaction (SRCH exclusions follow the model).
import assert from "node:assert/strict";
import {
  modelValidator,
  publishEntry,
  saveEntry,
} from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/store.ts";
import { withManageApp } from "./helpers.ts";

Deno.test("making a private model public through PUT /models/{id} makes its published items searchable at once", () =>
  withManageApp(async (t) => {
    const made = await createModel({
      db: t.services.db,
      clock: t.clock,
      siteId: t.siteId,
    }, {
      model: { name: "Posts", slug: "posts", isPublic: false },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    if (!made.ok) throw new Error(JSON.stringify(made));
    const ctx = {
      db: t.services.db,
      clock: t.clock,
      siteId: t.siteId,
      actor: { kind: "person" as const, userId: t.adminId },
      validate: modelValidator(),
    };
    const saved = await saveEntry(ctx, {
      model_id: made.model.id,
      locale: "en",
      slug: "zebra-crossing",
      fields: { title: "Zebra crossing" },
      expected_current_version_id: null,
    });
    if (!saved.ok) throw new Error(saved.code);
    const published = await publishEntry(ctx, {
      group_id: saved.group_id,
      expected_current_version_id: saved.current_version_id,
      expected_workflow_revision: saved.revision,
    });
    assert.equal(published.ok, true);
    const search = async () => {
      const res = await t.app.request("/v1/_search?q=zebra&locale=en", {
        headers: { host: "manage.test" },
      });
      assert.equal(res.status, 200);
      return (await res.json()).data.map((d: { slug: string }) => d.slug);
    };
    assert.deepEqual(await search(), []);
    const schema = await t.credential(["schema:write"]);
    const changed = await t.call("PUT", `/models/${made.model.id}`, {
      secret: schema.secret,
      body: {
        expected_revision: made.model.revision,
        model: { name: "Posts", slug: "posts", isPublic: true },
      },
      key: "public-1",
    });
    assert.equal(changed.status, 200, await changed.clone().text());
    assert.deepEqual(await search(), ["zebra-crossing"]);
  }));
