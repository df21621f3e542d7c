// The plan limit MEDIA_REQUEST_BODY_LIMIT_BYTES below the API's 32 MiB: upload, replace and
// per-language originals refuse a file one byte over it with 413 media_too_large and change
// nothing (MED-013).
import { deepEqual, equal } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { FileStorage } from "../../core/media/file_storage.ts";
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
import { refusal } from "../manage/helpers.ts";
import { withMediaApp } from "./support.ts";

const LIMIT = 1000;
const text = (bytes: number, fill = "a") =>
  new TextEncoder().encode(fill.repeat(bytes));

Deno.test("MED-013: with MEDIA_REQUEST_BODY_LIMIT_BYTES=1000 a 1000-byte file uploads, replaces and becomes an original; 1001 bytes is 413 media_too_large on each", () =>
  withMediaApp(async (t) => {
    t.services.config.mediaRequestBodyLimitBytes = LIMIT;
    const edge = await t.send("POST", "/media", {
      file: { bytes: text(LIMIT), name: "notes.txt" },
    });
    equal(edge.status, 201);
    const item = await edge.json();
    equal(item.byte_length, LIMIT);
    const keys = await t.keys();
    const over = { bytes: text(LIMIT + 1, "b"), name: "more.txt" };
    const refusals = [
      await t.send("POST", "/media", { file: over }),
      await t.send("POST", `/media/${item.id}/replace`, { file: over }),
      await t.send("PUT", `/media/${item.id}/originals/de`, {
        file: over,
        fields: { expected_object_id: "" },
      }),
    ];
    for (const res of refusals) {
      equal(res.status, 413);
      const body = await refusal(res);
      equal(body.code, "media_too_large");
      equal(body.limit_bytes, LIMIT);
      equal(body.byte_length, LIMIT + 1);
    }
    deepEqual(await t.keys(), keys);
    const after = await (await t.call("GET", `/media/${item.id}`, {
      secret: t.media,
    })).json();
    equal(after.object_id, item.object_id);
    const replaced = await t.send("POST", `/media/${item.id}/replace`, {
      file: { bytes: text(LIMIT, "c"), name: "edge.txt" },
    });
    equal(replaced.status, 200);
    const original = await t.send("PUT", `/media/${item.id}/originals/de`, {
      file: { bytes: text(LIMIT, "d"), name: "de.txt" },
      fields: { expected_object_id: "" },
    });
    equal(original.status, 200);
  }));

Deno.test("MED-013: the admin takes files up to MEDIA_REQUEST_BODY_LIMIT_BYTES (beyond the 1 MiB of other forms) and refuses a body over it", async () => {
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
    const csrf = csrfField(
      await (await request(t, jar, "/admin/media")).text(),
    );
    const upload = async (bytes: Uint8Array) => {
      const form = new FormData();
      form.append("_csrf", csrf);
      form.append("action", "upload");
      form.append(
        "file",
        new File([bytes as Uint8Array<ArrayBuffer>], "notes.txt"),
      );
      const res = await t.app.request("/admin/media", {
        method: "POST",
        headers: {
          host: HOST,
          cookie: jar.header() ?? "",
          accept: "text/html",
        },
        body: form,
      });
      await res.body?.cancel();
      return res.status;
    };
    // 2 MiB: more than a form's default 1 MiB, well under the default plan limit of 100 MB.
    equal(await upload(text(2 * 1024 * 1024)), 303);
    t.services.config.mediaRequestBodyLimitBytes = LIMIT;
    equal(await upload(text(LIMIT, "e")), 303);
    // 413 media_too_large, as the API answers it.
    equal(await upload(text(LIMIT + 1, "f")), 413, "the file over the limit");
    equal(await upload(text(LIMIT + 64 * 1024, "g")), 413, "the body");
    const rows = await t.services.db.selectFrom("media_files")
      .select("byte_length").where("site_id", "=", siteId)
      .orderBy("byte_length").execute();
    deepEqual(rows.map((r) => r.byte_length), [LIMIT, 2 * 1024 * 1024]);
  } finally {
    await t.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
