// SYNC-003: /v1/_sync carries media as public fields, and a public media change appears as ordered changes.
import { equal } from "node:assert/strict";
import { type MediaFixture, png, withMediaApp } from "./support.ts";

async function sync(t: MediaFixture, cursor?: string) {
  const url = `http://manage.test/v1/_sync${
    cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""
  }`;
  const res = await t.app.request(url, { headers: { host: "manage.test" } });
  equal(res.status, 200, await res.clone().text());
  return await res.json();
}

Deno.test("/v1/_sync: the snapshot shows expanded media; a change to a published item's media appears in the changes phase (SYNC-003)", () =>
  withMediaApp(async (t) => {
    const model = await (await t.call("POST", "/models", {
      secret: t.media,
      key: "model",
      body: {
        definition: {
          model: { name: "Posts", slug: "posts" },
          fields: [
            { key: "title", label: "Title", type: "text" },
            { key: "cover", label: "Cover", type: "media" },
          ],
        },
      },
    })).json();
    const image = await (await t.send("POST", "/media", {
      file: { bytes: await png(1), name: "a.png" },
      fields: { alt_texts: '{"en":"Before"}' },
    })).json();
    const unused = await (await t.send("POST", "/media", {
      file: { bytes: await png(2), name: "b.png" },
    })).json();
    const entry = await (await t.call("POST", "/entries", {
      secret: t.media,
      key: "e",
      body: {
        model_id: model.model_id,
        locale: "en",
        slug: "one",
        fields: { title: "One", cover: image.id },
      },
    })).json();
    const pub = await t.call("POST", `/entries/${entry.id}/publish`, {
      secret: t.media,
      key: "p",
      body: {
        expected_current_version_id: entry.current_version_id,
        expected_workflow_revision: entry.revision,
      },
    });
    equal(pub.status, 200, await pub.clone().text());
    let page = await sync(t);
    equal(page.phase, "snapshot");
    equal(page.data[0].media.cover.alt, "Before");
    while (page.next_cursor) page = await sync(t, page.next_cursor);
    const checkpoint = page.checkpoint;
    // A media item nothing published shows is not public: no change.
    await t.call("PUT", `/media/${unused.id}`, {
      secret: t.media,
      key: "u1",
      body: { loading: "eager" },
    });
    equal((await sync(t, checkpoint)).changes.length, 0);
    await t.call("PUT", `/media/${image.id}`, {
      secret: t.media,
      key: "u2",
      body: { alt_texts: { en: "After" } },
    });
    const changed = await sync(t, checkpoint);
    equal(changed.phase, "changes");
    equal(changed.changes.length, 1);
    equal(changed.changes[0].kind, "upsert");
    equal(changed.changes[0].id, entry.id);
    equal(changed.data[0].media.cover.alt, "After");
    const replaced = await (await t.send("POST", `/media/${image.id}/replace`, {
      file: { bytes: await png(3, 9, 9), name: "c.png" },
    })).json();
    const later = await sync(t, changed.checkpoint);
    equal(later.changes.length, 1);
    equal(later.data[0].media.cover.url, replaced.url);
    equal(later.data[0].media.cover.width, 9);
  }));
