// Image headers are not believed past the pixel ceiling (issue 39 item 3): a tiny PNG claiming
// more than 100 megapixels is refused 415 unsupported_media_type (reason too_many_pixels) on
// upload, replace and per-language originals, storing nothing. MED-006, MED-007.
import { deepEqual, equal } from "node:assert/strict";
import { MAX_IMAGE_PIXELS } from "../../core/media/pixel_ceiling.ts";
import { pngClaiming } from "../../core/media/png.ts";
import { refusal } from "../manage/helpers.ts";
import { png, withMediaApp } from "./support.ts";

Deno.test("upload-media: an image of exactly the pixel ceiling is stored, one pixel more is 415 unsupported_media_type (too_many_pixels) and stores nothing (MED-006, MED-007)", () =>
  withMediaApp(async (t) => {
    const edge = await t.send("POST", "/media", {
      file: { bytes: pngClaiming(MAX_IMAGE_PIXELS, 1), name: "wide.png" },
    });
    equal(edge.status, 201);
    const stored = await edge.json();
    deepEqual([stored.width, stored.height], [MAX_IMAGE_PIXELS, 1]);
    const keysBefore = await t.keys();
    for (
      const [width, height] of [[MAX_IMAGE_PIXELS + 1, 1], [100_000, 100_000]]
    ) {
      const over = await t.send("POST", "/media", {
        file: { bytes: pngClaiming(width, height), name: "bomb.png" },
      });
      equal(over.status, 415);
      const body = await refusal(over);
      equal(body.code, "unsupported_media_type");
      equal(body.reason, "too_many_pixels");
    }
    deepEqual(await t.keys(), keysBefore);
    const rows = await t.services.db.selectFrom("media_files").select("id")
      .where("site_id", "=", t.siteId).execute();
    deepEqual(rows.map((r) => r.id), [stored.id]);
  }));

Deno.test("replace-media and per-language originals refuse an image over the pixel ceiling and keep the file as it was (MED-006, MED-016, MED-019)", () =>
  withMediaApp(async (t) => {
    const item = await (await t.send("POST", "/media", {
      file: { bytes: await png(1, 20, 10), name: "door.png" },
    })).json();
    const bomb = { bytes: pngClaiming(100_000, 100_000), name: "bomb.png" };
    const replaced = await t.send("POST", `/media/${item.id}/replace`, {
      file: bomb,
    });
    equal(replaced.status, 415);
    equal((await refusal(replaced)).reason, "too_many_pixels");
    const original = await t.send("PUT", `/media/${item.id}/originals/de`, {
      file: bomb,
      fields: { expected_object_id: "" },
    });
    equal(original.status, 415);
    equal((await refusal(original)).reason, "too_many_pixels");
    const after = await (await t.call("GET", `/media/${item.id}`, {
      secret: t.media,
    })).json();
    deepEqual(
      [after.object_id, after.width, after.height],
      [item.object_id, 20, 10],
    );
    const originals = await (await t.call(
      "GET",
      `/media/${item.id}/originals`,
      { secret: t.media },
    )).json();
    deepEqual(
      originals.data.map((o: { override: boolean }) => o.override),
      [false, false],
    );
  }));
