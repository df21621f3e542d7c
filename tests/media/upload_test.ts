// POST /media: types from the bytes, settings, duplicates, limits at their edges, and bad input leaving nothing behind.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { BASE, refusal } from "../manage/helpers.ts";
import { png, withMediaApp } from "./support.ts";

const MiB = 1024 * 1024;

Deno.test("upload-media stores a PNG with its header dimensions and reads it back (MED-001, MED-004, MED-005, MED-007)", () =>
  withMediaApp(async (t) => {
    const bytes = await png(1, 4, 3);
    const res = await t.send("POST", "/media", {
      file: { bytes, name: "door.jpg" },
      fields: { alt_texts: '{"en":"A red door"}', width: "1", height: "1" },
    });
    equal(res.status, 201);
    const item = await res.json();
    equal(item.kind, "image");
    equal(item.mime_type, "image/png"); // from the bytes, not the .jpg name
    equal(item.width, 4);
    equal(item.height, 3); // header wins over width=1
    deepEqual(item.alt_texts, { en: "A red door" });
    equal(item.folder_id, null);
    equal(item.default_focal, null);
    equal(item.loading, "lazy");
    equal(item.fetch_priority, "auto");
    // MED-003: a file added other than from a source has no attribution and is not external.
    equal(item.attribution, null);
    equal(item.external, false);
    match(item.url, new RegExp(`^http://localhost:8000/media/${t.siteId}/`));
    const read = await t.call("GET", `/media/${item.id}`, { secret: t.media });
    deepEqual(await read.json(), item);
    const list = await (await t.call("GET", "/media", { secret: t.media }))
      .json();
    deepEqual(list.data.map((i: { id: string }) => i.id), [item.id]);
    deepEqual(await t.keys(), [`sites/${t.siteId}/${item.object_id}.png`]);
  }));

Deno.test("upload-media: same bytes ask -> 409 media_duplicate, use_existing -> 200 reused, copy -> 201; replay answers the first (MED-009, MED-010)", () =>
  withMediaApp(async (t) => {
    const bytes = await png(2);
    const first = await (await t.send("POST", "/media", {
      file: { bytes, name: "a.png" },
    }, "key-1")).json();
    const replay = await t.send("POST", "/media", {
      file: { bytes, name: "a.png" },
    }, "key-1");
    equal(replay.status, 201);
    const replayed = await replay.json();
    equal(replayed.id, first.id);
    equal(replayed.replayed, true);
    const reused = await t.send("POST", "/media", {
      file: { bytes, name: "a.png" },
    }, "key-1");
    equal((await reused.json()).id, first.id);
    const other = await t.send("POST", "/media", {
      file: { bytes, name: "b.png" },
    }, "key-1");
    equal((await refusal(other)).code, "idempotency_key_reused");

    const asked = await t.send("POST", "/media", {
      file: { bytes, name: "a.png" },
    });
    equal(asked.status, 409);
    const dup = await refusal(asked);
    equal(dup.code, "media_duplicate");
    equal((dup.existing as { id: string }).id, first.id);
    equal(dup.copy_count, 1);
    const used = await t.send("POST", "/media", {
      file: { bytes, name: "a.png" },
      fields: { on_duplicate: "use_existing" },
    });
    equal(used.status, 200);
    const usedBody = await used.json();
    equal(usedBody.reused, true);
    equal(usedBody.id, first.id);
    const copy = await t.send("POST", "/media", {
      file: { bytes, name: "a.png" },
      fields: { on_duplicate: "copy" },
    });
    equal(copy.status, 201);
    const again = await refusal(
      await t.send("POST", "/media", { file: { bytes, name: "a.png" } }),
    );
    equal(again.copy_count, 2);
    equal((await t.keys()).length, 2);
  }));

Deno.test("upload-media never matches another site's files as duplicates (MED-011) and the library is site-wide (MED-012)", () =>
  withMediaApp(async (t) => {
    const bytes = await png(3);
    equal(
      (await t.send("POST", "/media", { file: { bytes, name: "a.png" } }))
        .status,
      201,
    );
    const { createInstallation } = await import(
      "../../core/sites/installation.ts"
    );
    const other = await createInstallation(t.services, {
      domain: "other.test",
      slug: "other",
      name: "Other",
      locales: ["en"],
      adminEmail: "admin@other.test",
      credential: { name: "o", scopes: ["content:read", "media:write"] },
    });
    if (!other.ok) throw new Error(other.message);
    const form = new FormData();
    form.append("file", new File([bytes as Uint8Array<ArrayBuffer>], "a.png"));
    const res = await t.app.request(`${BASE}/media`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${other.management_credential!.secret}`,
        "idempotency-key": "k",
      },
      body: form,
    });
    equal(res.status, 201);
    const list = await (await t.call("GET", "/media", { secret: t.media }))
      .json();
    equal(list.data.length, 1);
  }));

Deno.test("upload-media refuses bad files by name and leaves no row and no object (MED-006, MED-013)", () =>
  withMediaApp(async (t) => {
    const elf = new Uint8Array(64);
    elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
    const good = await png(4, 16, 16);
    const cases: [Uint8Array, string, number, string][] = [
      [elf, "holiday.jpg", 422, "executable_file"],
      [
        new TextEncoder().encode("#!/bin/sh\necho hi\n"),
        "notes.txt",
        422,
        "executable_file",
      ],
      [
        new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'),
        "logo.png",
        415,
        "unsupported_media_type",
      ],
      [
        new TextEncoder().encode("<!DOCTYPE html><p>x"),
        "page.pdf",
        415,
        "unsupported_media_type",
      ],
      [
        good.subarray(0, good.length - 12),
        "cut.png",
        415,
        "unsupported_media_type",
      ],
      [new Uint8Array(), "empty.png", 415, "unsupported_media_type"],
    ];
    for (const [bytes, name, status, code] of cases) {
      const res = await t.send("POST", "/media", { file: { bytes, name } });
      equal(res.status, status, name);
      equal((await refusal(res)).code, code, name);
    }
    const missing = await t.send("POST", "/media", {
      fields: { alt_texts: "{}" },
    });
    equal(missing.status, 400);
    equal((await refusal(missing)).code, "invalid_request");
    const doubled = await t.send("POST", "/media", {
      file: [{ bytes: good, name: "a.png" }, { bytes: good, name: "b.png" }],
    });
    equal(doubled.status, 400);
    match((await refusal(doubled)).message, /twice/);
    const unknown = await t.send("POST", "/media", {
      file: { bytes: good, name: "a.png" },
      fields: { colour: "red" },
    });
    equal((await refusal(unknown)).code, "invalid_request");
    const json = await t.call("POST", "/media", {
      secret: t.media,
      key: "j",
      body: {},
    });
    // A JSON body where the route takes multipart is the edge's 415 (issue 10 point 4).
    equal(json.status, 415);
    equal((await refusal(json)).code, "unsupported_content_type");
    const rows = await t.services.db.selectFrom("media_files").select("id")
      .execute();
    deepEqual(rows, []);
    deepEqual(await t.keys(), []);
  }));

Deno.test("upload-media: 32 MiB is the last accepted size, 32 MiB + 1 byte and 33 MiB are media_too_large (MED-013)", () =>
  withMediaApp(async (t) => {
    const edge = new Uint8Array(32 * MiB).fill(7);
    edge[0] = 1; // unknown binary: kind file
    const accepted = await t.send("POST", "/media", {
      file: { bytes: edge, name: "big.bin" },
    });
    equal(accepted.status, 201);
    const over = new Uint8Array(32 * MiB + 1).fill(9);
    const refusedOver = await t.send("POST", "/media", {
      file: { bytes: over, name: "big.bin" },
    });
    equal(refusedOver.status, 413);
    equal((await refusal(refusedOver)).code, "media_too_large");
    const huge = new Uint8Array(33 * MiB).fill(8);
    const refusedHuge = await t.send("POST", "/media", {
      file: { bytes: huge, name: "huge.bin" },
    });
    equal(refusedHuge.status, 413);
    equal((await refusal(refusedHuge)).code, "media_too_large");
    equal((await t.keys()).length, 1);
    const rows = await t.services.db.selectFrom("media_files").select("id")
      .execute();
    equal(rows.length, 1);
  }));

Deno.test("upload-media: a body streamed without a length is cut off at the limit while reading, and a client that disconnects halfway leaves nothing", () =>
  withMediaApp(async (t) => {
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += MiB;
        controller.enqueue(new Uint8Array(MiB).fill(1));
        if (sent > 64 * MiB) controller.close();
      },
    });
    const res = await t.app.request(`${BASE}/media`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${t.media}`,
        "idempotency-key": "stream",
        "content-type": "multipart/form-data; boundary=xyz",
      },
      body: endless,
      // @ts-ignore: Deno's fetch needs duplex for a streamed body
      duplex: "half",
    });
    equal(res.status, 413);
    equal((await refusal(res)).code, "media_too_large");
    ok(sent <= 40 * MiB, `read ${sent / MiB} MiB of an unbounded body`);

    const half = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(
          '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n',
        ));
        controller.enqueue(new Uint8Array(1024).fill(3));
        controller.error(new Error("client went away"));
      },
    });
    const cut = await Promise.resolve(t.app.request(`${BASE}/media`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${t.media}`,
        "idempotency-key": "cut",
        "content-type": "multipart/form-data; boundary=xyz",
      },
      body: half,
      // @ts-ignore: as above
      duplex: "half",
    })).catch(() => null);
    ok(cut === null || cut.status >= 400);
    await cut?.body?.cancel();
    deepEqual(
      await t.services.db.selectFrom("media_files").select("id").execute(),
      [],
    );
    deepEqual(await t.keys(), []);
  }));

Deno.test("upload-media follows the site's media-file settings: media_kind_not_enabled, media_format_not_enabled (MED-014, SET-003)", () =>
  withMediaApp(async (t) => {
    const put = (document: unknown, expected_revision: number) =>
      t.call("PUT", "/settings/media-files", {
        secret: t.media,
        key: crypto.randomUUID(),
        body: { expected_revision, document },
      });
    equal(
      (await put(
        { enabled_kinds: ["image"], max_upload_bytes: 100_000_000 },
        0,
      )).status,
      200,
    );
    const pdf = new TextEncoder().encode("%PDF-1.4\n%\xe2\xe3\n1 0 obj\n");
    const kind = await t.send("POST", "/media", {
      file: { bytes: pdf, name: "a.pdf" },
    });
    equal(kind.status, 422);
    equal((await refusal(kind)).code, "media_kind_not_enabled");
    equal(
      (await put({
        enabled_kinds: ["image"],
        max_upload_bytes: 100_000_000,
        enabled_formats: ["jpg"],
      }, 1)).status,
      200,
    );
    const format = await t.send("POST", "/media", {
      file: { bytes: await png(5), name: "a.png" },
    });
    equal(format.status, 422);
    equal((await refusal(format)).code, "media_format_not_enabled");
    equal(
      (await put({
        enabled_kinds: ["image"],
        max_upload_bytes: 100,
        enabled_formats: ["png"],
      }, 2)).status,
      200,
    );
    const big = await t.send("POST", "/media", {
      file: { bytes: await png(5, 64, 64), name: "a.png" },
    });
    equal((await refusal(big)).code, "media_too_large");
    deepEqual(await t.keys(), []);
  }));

Deno.test("upload-media with edited_from takes the original's alt text, folder and tags unless named; unknown id 404 (MED-008)", () =>
  withMediaApp(async (t) => {
    const folder = await (await t.call("POST", "/media/folders", {
      secret: t.media,
      key: "f",
      body: { name: "Photos" },
    })).json();
    const source = await (await t.send("POST", "/media", {
      file: { bytes: await png(6), name: "a.png" },
      fields: { alt_texts: '{"en":"Sea"}', folder_id: folder.id },
    })).json();
    const edited = await t.send("POST", "/media", {
      file: { bytes: await png(7), name: "a-edit.png" },
      fields: { edited_from: source.id, alt_texts: '{"de":"Meer"}' },
    });
    equal(edited.status, 201);
    const body = await edited.json();
    equal(body.edited_from, source.id);
    equal(body.folder_id, folder.id);
    deepEqual(body.alt_texts, { en: "Sea", de: "Meer" });
    const unknown = await t.send("POST", "/media", {
      file: { bytes: await png(8), name: "x.png" },
      fields: { edited_from: crypto.randomUUID() },
    });
    equal(unknown.status, 404);
    equal((await refusal(unknown)).code, "media_edit_source_not_found");
    equal((await t.keys()).length, 2);
  }));
