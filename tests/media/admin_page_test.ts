// /admin/media without script: upload, duplicate prompt in words, alt texts, focal point, move, replace, usage and remove explained.
import { equal, match, ok } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { FileStorage } from "../../core/media/file_storage.ts";
import { pngClaiming } from "../../core/media/png.ts";
import { createModel } from "../../core/models/store.ts";
import {
  CookieJar,
  csrfField,
  HOST,
  PASSWORD,
  request,
  setMemberPermissions,
  setupAdmin,
  signInAs,
} from "../admin/helpers.ts";
import { png } from "./support.ts";

Deno.test("/admin/media works without script: upload, duplicate prompt, alt texts, focal point, move, replace, remove refused while in use", async () => {
  const { t, siteId, userId, email } = await setupAdmin();
  const dir = await Deno.makeTempDir();
  try {
    t.services.media = new FileStorage(dir);
    await setMemberPermissions(
      t.services.db,
      userId,
      administratorPermissions(),
    );
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    const first = await request(t, jar, "/admin/media");
    equal(first.status, 200);
    const html = await first.text();
    match(html, /<h1>Media library<\/h1>/);
    match(html, /No files here yet/);
    const csrf = csrfField(html);
    const post = async (
      parts: Record<string, string | File>,
      path = "/admin/media",
    ) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(parts)) form.append(k, v);
      const res = await t.app.request(path, {
        method: "POST",
        headers: {
          host: HOST,
          cookie: jar.header() ?? "",
          accept: "text/html",
        },
        body: form,
      });
      jar.store(res);
      return res;
    };
    const file = (bytes: Uint8Array, name: string) =>
      new File([bytes as Uint8Array<ArrayBuffer>], name);
    const uploaded = await post({
      _csrf: csrf,
      action: "upload",
      file: file(await png(1, 20, 10), "door.png"),
    });
    equal(uploaded.status, 303);
    const location = uploaded.headers.get("location")!;
    const id = /item=([0-9a-f-]{36})/.exec(location)![1];
    const detail = await (await request(t, jar, location)).text();
    match(detail, /door\.png/);
    match(detail, /20 × 10 px/);
    match(detail, /Nothing uses this file/);

    // An image header claiming more than the pixel ceiling is refused here too (issue 39 item 3).
    const bomb = await post({
      _csrf: csrf,
      action: "upload",
      file: file(pngClaiming(100_000, 100_000), "bomb.png"),
    });
    equal(bomb.status, 422);
    match(await bomb.text(), /more than 100 megapixels/);

    const dup = await post({
      _csrf: csrf,
      action: "upload",
      file: file(await png(1, 20, 10), "again.png"),
    });
    equal(dup.status, 409);
    const dupHtml = await dup.text();
    match(dupHtml, /This file is already in the library/);
    match(
      dupHtml,
      /“again\.png” has exactly the same content as “door\.png” \(1 copy\)/,
    );
    match(dupHtml, /Use the existing file/);

    const svg = await post({
      _csrf: csrf,
      action: "upload",
      file: file(new TextEncoder().encode("<svg/>"), "x.png"),
    });
    equal(svg.status, 422);
    match(await svg.text(), /SVG, HTML and XML files cannot be uploaded/);

    // The uploader island posts with Accept: application/json and reads the refusal in words.
    const jsonForm = new FormData();
    jsonForm.append("_csrf", csrf);
    jsonForm.append("action", "upload");
    jsonForm.append("file", file(await png(1, 20, 10), "same.png"));
    const json = await t.app.request("/admin/media", {
      method: "POST",
      headers: {
        host: HOST,
        cookie: jar.header() ?? "",
        accept: "application/json",
      },
      body: jsonForm,
    });
    equal(json.status, 409);
    const jsonBody = await json.json();
    equal(jsonBody.error.code, "media_duplicate");
    equal(jsonBody.error.existing.file_name, "door.png");
    equal(jsonBody.error.copy_count, 1);

    const alt = await post({
      _csrf: csrf,
      action: "alt",
      id,
      alt_en: "A red door",
      alt_de: "Eine rote Tür",
    });
    equal(alt.status, 303);
    const framing = await post({
      _csrf: csrf,
      action: "framing",
      id,
      kind: "image",
      focal_x: "0.25",
      focal_y: "0.5",
      loading: "eager",
      fetch_priority: "high",
    });
    equal(framing.status, 303);
    const badFocal = await post({
      _csrf: csrf,
      action: "framing",
      id,
      kind: "image",
      focal_x: "2",
      focal_y: "0.5",
    });
    equal(badFocal.status, 400);
    const row = await t.services.db.selectFrom("media_files").selectAll().where(
      "id",
      "=",
      id,
    ).executeTakeFirstOrThrow();
    equal((row.alt_texts as Record<string, string>).de, "Eine rote Tür");
    equal((row.default_focal as { x: number }).x, 0.25);
    equal(row.loading, "eager");

    const folder = await post({
      _csrf: csrf,
      action: "folder",
      name: "Covers",
    });
    equal(folder.status, 303);
    const folderId =
      /folder=([0-9a-f-]{36})/.exec(folder.headers.get("location")!)![1];
    equal(
      (await post({ _csrf: csrf, action: "move", id, folder_id: folderId }))
        .status,
      303,
    );
    const listed =
      await (await request(t, jar, `/admin/media?folder=${folderId}`)).text();
    match(listed, /door\.png/);
    const searched =
      await (await request(t, jar, "/admin/media?q=nothing-like-this")).text();
    match(searched, /No file matches/);

    const replaced = await post({
      _csrf: csrf,
      action: "replace",
      id,
      file: file(await png(2, 30, 15), "door2.png"),
    });
    equal(replaced.status, 303);
    match(
      await (await request(t, jar, `/admin/media?item=${id}`)).text(),
      /30 × 15 px/,
    );

    const model = await createModel({
      db: t.services.db,
      clock: t.clock,
      siteId,
    }, {
      model: { name: "Posts", slug: "posts" },
      fields: [{ key: "title", label: "Title", type: "text" }, {
        key: "cover",
        label: "Cover",
        type: "media",
      }],
    });
    ok(model.ok);
    const now = t.clock.now();
    const groupId = crypto.randomUUID();
    const entryId = crypto.randomUUID();
    const versionId = crypto.randomUUID();
    await t.services.db.insertInto("entry_groups").values({
      id: groupId,
      site_id: siteId,
      model_id: model.model_id!,
      primary_entry_id: null,
      created_by: null,
      revision: 0,
      current_version_id: null,
      trashed_at: null,
      created_at: now,
      updated_at: now,
    }).execute();
    await t.services.db.insertInto("entries").values({
      id: entryId,
      site_id: siteId,
      group_id: groupId,
      model_id: model.model_id!,
      locale: "en",
      slug: "first-post",
      current_version_id: null,
      published_version_id: null,
      published_at: null,
      created_at: now,
      updated_at: now,
    }).execute();
    await t.services.db.insertInto("entry_versions").values({
      id: versionId,
      site_id: siteId,
      group_id: groupId,
      entry_id: entryId,
      locale: "en",
      number: 1,
      fields: JSON.stringify({ title: "First", cover: id }),
      created_by: JSON.stringify({ kind: "person" }),
      created_at: now,
    }).execute();
    await t.services.db.updateTable("entries").set({
      current_version_id: versionId,
    }).where("id", "=", entryId).execute();
    const inUse = await post({ _csrf: csrf, action: "remove", id });
    equal(inUse.status, 409);
    const inUseHtml = await inUse.text();
    match(
      inUseHtml,
      /This file cannot be removed: 1 entry uses it\. Remove it from them first/,
    );
    match(inUseHtml, /first-post/);
    await t.services.db.deleteFrom("entry_versions").where("id", "=", versionId)
      .execute();
    const removed = await post({ _csrf: csrf, action: "remove", id });
    equal(removed.status, 303);
    equal(
      (await t.services.db.selectFrom("media_files").select("id").execute())
        .length,
      0,
    );
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true });
  }
});
