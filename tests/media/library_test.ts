// PUT /media/{id}, replace, originals, usage, remove and move: every rule and named refusal of spec 2 parts 2.4 and 4.3.
import { deepEqual, equal, notEqual } from "node:assert/strict";
import { finishPendingCleanup } from "../../core/media/cleanup.ts";
import { FileStorage } from "../../core/media/file_storage.ts";
import { StorageUnavailable } from "../../core/media/storage.ts";
import { refusal } from "../manage/helpers.ts";
import { insertEntry } from "../manage/model_fixtures.ts";
import { type MediaFixture, png, withMediaApp } from "./support.ts";

async function upload(t: MediaFixture, seed: number, name = "a.png") {
  const res = await t.send("POST", "/media", {
    file: { bytes: await png(seed), name },
  });
  equal(res.status, 201);
  return await res.json();
}

async function pdf(t: MediaFixture) {
  const res = await t.send("POST", "/media", {
    file: {
      bytes: new TextEncoder().encode("%PDF-1.4\n%\xe2\xe3\n1 0 obj\n"),
      name: "doc.pdf",
    },
  });
  equal(res.status, 201);
  return await res.json();
}

function put(t: MediaFixture, id: string, body: unknown) {
  return t.call("PUT", `/media/${id}`, {
    secret: t.media,
    key: crypto.randomUUID(),
    body,
  });
}

async function postsModel(t: MediaFixture): Promise<string> {
  const res = await t.call("POST", "/models", {
    secret: t.media,
    key: "model",
    body: {
      definition: {
        model: { name: "Posts", slug: "posts", enableI18n: true },
        fields: [
          { key: "title", label: "Title", type: "text" },
          {
            key: "cover",
            label: "Cover",
            type: "media",
            config: JSON.stringify({ kinds: ["image"] }),
          },
        ],
      },
    },
  });
  equal(res.status, 201, await res.clone().text());
  return (await res.json()).model_id;
}

Deno.test("update-media changes alt texts, focal point, loading and fetch priority; {} and bad values are refused (MED-002, MED-015, MED-016)", () =>
  withMediaApp(async (t) => {
    const item = await upload(t, 1);
    const empty = await put(t, item.id, {});
    equal(empty.status, 400);
    equal((await refusal(empty)).code, "invalid_request");
    equal(
      (await refusal(await put(t, item.id, { loading: "soon" }))).code,
      "invalid_request",
    );
    equal(
      (await refusal(
        await put(t, item.id, { default_focal: { x: 1.5, y: 0 } }),
      )).code,
      "invalid_request",
    );
    const first = await (await put(t, item.id, {
      alt_texts: { en: "Sea", de: "Meer" },
      default_focal: { x: 0.25, y: 0.75 },
      loading: "eager",
      fetch_priority: "high",
    })).json();
    deepEqual(first.alt_texts, { en: "Sea", de: "Meer" });
    deepEqual(first.default_focal, { x: 0.25, y: 0.75 });
    equal(first.loading, "eager");
    equal(first.fetch_priority, "high");
    equal(first.url, item.url); // address never changes
    equal(first.width, item.width);
    const cleared = await (await put(t, item.id, { alt_texts: { de: "" } }))
      .json();
    deepEqual(cleared.alt_texts, { en: "Sea" }); // omitted en kept, empty de cleared
    deepEqual(cleared.default_focal, { x: 0.25, y: 0.75 });
    const unset = await (await put(t, item.id, { default_focal: null })).json();
    equal(unset.default_focal, null);
    equal(
      (await refusal(await put(t, item.id, { alt_texts: { fr: "Mer" } }))).code,
      "unknown_locale",
    );
    const doc = await pdf(t);
    const framing = await put(t, doc.id, { default_focal: { x: 0.5, y: 0.5 } });
    equal(framing.status, 400);
    equal((await refusal(framing)).code, "media_framing_not_image");
    equal((await put(t, doc.id, { default_focal: null })).status, 200);
    const missing = await put(t, crypto.randomUUID(), { loading: "lazy" });
    equal(missing.status, 404);
  }));

Deno.test("linked external media cannot be replaced or edited: 409 media_external_bytes_unavailable (MED-018)", () =>
  withMediaApp(async (t) => {
    const item = await upload(t, 2);
    // Reference imports come from plugin media sources (not built yet); mark one by hand.
    await t.services.db.updateTable("media_files").set({ external: true })
      .where("id", "=", item.id).execute();
    const edit = await put(t, item.id, { loading: "eager" });
    equal(edit.status, 409);
    equal((await refusal(edit)).code, "media_external_bytes_unavailable");
    const replace = await t.send("POST", `/media/${item.id}/replace`, {
      file: { bytes: await png(3), name: "b.png" },
    });
    equal((await refusal(replace)).code, "media_external_bytes_unavailable");
  }));

Deno.test("replace-media keeps id, folder, framing and alt texts, changes the bytes and URL, and deletes the old object (MED-017)", () =>
  withMediaApp(async (t) => {
    const folder = await (await t.call("POST", "/media/folders", {
      secret: t.media,
      key: "f",
      body: { name: "Covers" },
    })).json();
    const item = await (await t.send("POST", "/media", {
      file: { bytes: await png(4), name: "a.png" },
      fields: { folder_id: folder.id, alt_texts: '{"en":"Old"}' },
    })).json();
    await put(t, item.id, { default_focal: { x: 0.1, y: 0.2 } });
    const res = await t.send("POST", `/media/${item.id}/replace`, {
      file: { bytes: await png(5, 8, 6), name: "b.png" },
    });
    equal(res.status, 200);
    const next = await res.json();
    equal(next.id, item.id);
    equal(next.folder_id, folder.id);
    deepEqual(next.default_focal, { x: 0.1, y: 0.2 });
    deepEqual(next.alt_texts, { en: "Old" });
    equal(next.width, 8);
    notEqual(next.url, item.url);
    notEqual(next.digest, item.digest);
    deepEqual(await t.keys(), [`sites/${t.siteId}/${next.object_id}.png`]);
    const kind = await t.send("POST", `/media/${item.id}/replace`, {
      file: {
        bytes: new TextEncoder().encode("%PDF-1.4\n%\xe2\xe3\n"),
        name: "x.pdf",
      },
    });
    equal((await refusal(kind)).code, "unsupported_media_type");
    const bad = await t.send("POST", `/media/${item.id}/replace`, {
      file: { bytes: new TextEncoder().encode("<svg/>"), name: "x.png" },
    });
    equal(bad.status, 415);
    equal((await t.keys()).length, 1);
  }));

Deno.test('originals per language: "" creates the first, a stale pointer is media_changed, DELETE needs a nonempty pointer, delivery falls back (MED-019 to MED-023)', () =>
  withMediaApp(async (t) => {
    const item = await upload(t, 6);
    const before = await (await t.call("GET", `/media/${item.id}/originals`, {
      secret: t.media,
    })).json();
    deepEqual(
      before.data.map((
        o: { lang: string; override: boolean; object_id: string },
      ) => [o.lang, o.override, o.object_id]),
      [
        ["en", false, item.object_id],
        ["de", false, item.object_id],
      ],
    );
    const first = await t.send("PUT", `/media/${item.id}/originals/de`, {
      file: { bytes: await png(7), name: "de.png" },
      fields: { expected_object_id: "" },
    });
    equal(first.status, 200);
    const de = (await first.json()).data.find((o: { lang: string }) =>
      o.lang === "de"
    );
    equal(de.override, true);
    equal(de.served_from, "de");
    notEqual(de.object_id, item.object_id);
    equal(de.mime_type, "image/png");
    const stale = await t.send("PUT", `/media/${item.id}/originals/de`, {
      file: { bytes: await png(8), name: "de2.png" },
      fields: { expected_object_id: "" },
    });
    equal(stale.status, 409);
    const staleBody = await refusal(stale);
    equal(staleBody.code, "media_changed");
    equal(staleBody.current_object_id, de.object_id);
    const unknownLang = await t.send("PUT", `/media/${item.id}/originals/fr`, {
      file: { bytes: await png(8), name: "fr.png" },
      fields: { expected_object_id: "" },
    });
    equal((await refusal(unknownLang)).code, "unknown_locale");
    const emptyDelete = await t.call(
      "DELETE",
      `/media/${item.id}/originals/de`,
      {
        secret: t.media,
        key: "d0",
        body: { expected_object_id: "" },
      },
    );
    equal(emptyDelete.status, 400);
    const wrongDelete = await t.call(
      "DELETE",
      `/media/${item.id}/originals/de`,
      {
        secret: t.media,
        key: "d1",
        body: { expected_object_id: crypto.randomUUID() },
      },
    );
    equal((await refusal(wrongDelete)).code, "media_changed");
    const removed = await t.call("DELETE", `/media/${item.id}/originals/de`, {
      secret: t.media,
      key: "d2",
      body: { expected_object_id: de.object_id },
    });
    equal(removed.status, 200);
    const after = (await removed.json()).data.find((o: { lang: string }) =>
      o.lang === "de"
    );
    equal(after.override, false);
    equal(after.served_from, null);
    equal(after.object_id, item.object_id);
    deepEqual(await t.keys(), [`sites/${t.siteId}/${item.object_id}.png`]);
  }));

Deno.test("usage lists at most 50 readable entries with more, at_least and total; remove refuses media_in_use and then deletes (MED-024 to MED-026)", () =>
  withMediaApp(async (t) => {
    const modelId = await postsModel(t);
    const used = await upload(t, 9);
    const unused = await upload(t, 10);
    for (let i = 0; i < 60; i++) {
      await insertEntry(t, modelId, {
        en: { title: `Post ${i}`, cover: used.id },
      });
    }
    const usage = await (await t.call("GET", `/media/${used.id}/usage`, {
      secret: t.media,
    })).json();
    equal(usage.used_by.length, 50);
    equal(usage.more, true);
    equal(usage.at_least, 60);
    equal(usage.total, 60);
    equal(usage.hidden, 0);
    equal(usage.unreadable, false);
    const none = await (await t.call("GET", `/media/${unused.id}/usage`, {
      secret: t.media,
    })).json();
    deepEqual(none, {
      used_by: [],
      hidden: 0,
      at_least: 0,
      total: 0,
      more: false,
      unreadable: false,
    });
    const inUse = await t.call("POST", `/media/${used.id}/remove`, {
      secret: t.media,
      key: "r1",
    });
    equal(inUse.status, 409);
    const body = await refusal(inUse);
    equal(body.code, "media_in_use");
    equal((body.usage as { at_least: number }).at_least, 60);
    const gone = await t.call("POST", `/media/${unused.id}/remove`, {
      secret: t.media,
      key: "r2",
    });
    equal(gone.status, 200);
    deepEqual(await gone.json(), {
      id: unused.id,
      storage_cleanup: "complete",
    });
    const replay = await t.call("POST", `/media/${unused.id}/remove`, {
      secret: t.media,
      key: "r2",
    });
    deepEqual(await replay.json(), {
      id: unused.id,
      storage_cleanup: "complete",
      replayed: true,
    });
    equal(
      (await t.call("GET", `/media/${unused.id}`, { secret: t.media })).status,
      404,
    );
    deepEqual(await t.keys(), [`sites/${t.siteId}/${used.object_id}.png`]);
  }));

Deno.test("remove-media answers storage_cleanup pending when storage cannot delete, and maintenance finishes it (MED-025)", async () => {
  const dir = await Deno.makeTempDir();
  const files = new FileStorage(dir);
  let down = false;
  const flaky = {
    kind: files.kind,
    put: files.put.bind(files),
    putStream: files.putStream.bind(files),
    read: files.read.bind(files),
    stat: files.stat.bind(files),
    list: files.list.bind(files),
    delete(key: string) {
      if (down) throw new StorageUnavailable("storage is down");
      return files.delete(key);
    },
  };
  try {
    await withMediaApp(async (t) => {
      const item = await upload(t, 11);
      down = true;
      const res = await t.call("POST", `/media/${item.id}/remove`, {
        secret: t.media,
        key: "r",
      });
      deepEqual(await res.json(), { id: item.id, storage_cleanup: "pending" });
      equal((await t.keys()).length, 1);
      equal(
        (await finishPendingCleanup({ ...t.services, storage: flaky })).pending,
        1,
      );
      down = false;
      deepEqual(await finishPendingCleanup({ ...t.services, storage: flaky }), {
        deleted: 1,
        pending: 0,
      });
      deepEqual(await t.keys(), []);
    }, flaky);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("move-media moves 1 to 200 files to a folder or Unfiled; 0 and 201 are refused (MED-034)", () =>
  withMediaApp(async (t) => {
    const folder = await (await t.call("POST", "/media/folders", {
      secret: t.media,
      key: "f",
      body: { name: "A" },
    })).json();
    const a = await upload(t, 12);
    const move = (media_ids: string[], folder_id: string | null) =>
      t.call("POST", "/media/move", {
        secret: t.media,
        key: crypto.randomUUID(),
        body: { media_ids, folder_id },
      });
    const moved = await move([a.id], folder.id);
    deepEqual(await moved.json(), { moved: 1, folder_id: folder.id });
    equal(
      (await (await t.call("GET", `/media/${a.id}`, { secret: t.media }))
        .json()).folder_id,
      folder.id,
    );
    const inFolder =
      await (await t.call("GET", `/media?folder_id=${folder.id}`, {
        secret: t.media,
      })).json();
    equal(inFolder.data.length, 1);
    equal((await refusal(await move([], null))).code, "invalid_request");
    const ids200 = [
      a.id,
      ...Array.from({ length: 199 }, () => crypto.randomUUID()),
    ];
    const edge = await move(ids200, null);
    equal(edge.status, 404); // 200 is accepted as a request; the unknown ids are named
    equal(((await refusal(edge)).missing as string[]).length, 199);
    const over = await move([...ids200, crypto.randomUUID()], null);
    equal(over.status, 400);
    equal(
      (await refusal(await move([a.id], crypto.randomUUID()))).code,
      "media_folder_not_found",
    );
    deepEqual(await (await move([a.id], null)).json(), {
      moved: 1,
      folder_id: null,
    });
  }));
