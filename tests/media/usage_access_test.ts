// Usage within what the credential may read (MED-024), and keyed folder writes answered from what was written.
import { deepEqual, equal } from "node:assert/strict";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { insertEntry } from "../manage/model_fixtures.ts";
import { type MediaFixture, png, withMediaApp } from "./support.ts";

async function model(t: MediaFixture, slug: string) {
  const res = await t.call("POST", "/models", {
    secret: t.media,
    key: `model-${slug}`,
    body: {
      definition: {
        model: { name: slug, slug },
        fields: [{ key: "cover", label: "Cover", type: "media" }],
      },
    },
  });
  equal(res.status, 201);
  return (await res.json()).model_id as string;
}

Deno.test("usage hides entries of models the credential may not read: hidden counted, total null, unreadable true (MED-024)", () =>
  withMediaApp(async (t) => {
    const posts = await model(t, "posts");
    const notes = await model(t, "notes");
    const item = await (await t.send("POST", "/media", {
      file: { bytes: await png(1), name: "a.png" },
    })).json();
    await insertEntry(t, posts, { en: { cover: item.id } });
    await insertEntry(t, notes, { en: { cover: item.id } });
    const { secret } = await insertCredential(t.services.db, t.clock, {
      siteId: t.siteId,
      creatorId: t.adminId,
      name: "posts only",
      scopes: ["content:read"],
      models: [posts],
    });
    const limited =
      await (await t.call("GET", `/media/${item.id}/usage`, { secret })).json();
    equal(limited.used_by.length, 1);
    equal(limited.used_by[0].model_id, posts);
    equal(limited.hidden, 1);
    equal(limited.at_least, 2);
    equal(limited.total, null);
    equal(limited.unreadable, true);
    equal(limited.more, false);
    // The library itself is site-wide for that credential (MED-012).
    const list = await (await t.call("GET", "/media", { secret })).json();
    deepEqual(list.data.map((i: { id: string }) => i.id), [item.id]);
    const full = await (await t.call("GET", `/media/${item.id}/usage`, {
      secret: t.media,
    })).json();
    equal(full.total, 2);
    equal(full.hidden, 0);
  }));

Deno.test("keyed folder and media writes replay their first answer; a key reused for another body is refused", () =>
  withMediaApp(async (t) => {
    const create = (name: string) =>
      t.call("POST", "/media/folders", {
        secret: t.media,
        key: "same-key",
        body: { name },
      });
    const first = await (await create("Photos")).json();
    const again = await create("Photos");
    equal(again.status, 201);
    const replay = await again.json();
    equal(replay.id, first.id);
    equal(replay.replayed, true);
    equal(
      (await (await create("Other")).json()).error.code,
      "idempotency_key_reused",
    );
    const item = await (await t.send("POST", "/media", {
      file: { bytes: await png(2), name: "a.png" },
    })).json();
    const put = () =>
      t.call("PUT", `/media/${item.id}`, {
        secret: t.media,
        key: "edit-1",
        body: { loading: "eager" },
      });
    const edited = await (await put()).json();
    const replayed = await (await put()).json();
    equal(replayed.revision, edited.revision);
    equal(replayed.replayed, true);
    const tree =
      await (await t.call("GET", "/media/folders", { secret: t.media })).json();
    equal(tree.total, 1);
  }));
