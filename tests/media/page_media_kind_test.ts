// A page's media reference must name an image: a library video, document or other file is
// refused at save with unsupported_media_kind at its path, and nothing is written (ENT-031).
import assert from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
import { exampleHomePage } from "../../core/pages/example.ts";
import { refusal } from "../manage/helpers.ts";
import { png, withMediaApp } from "./support.ts";

Deno.test("ENT-031: saving a page whose media reference names a library document is 422 unsupported_media_kind at that path; an image saves", () =>
  withMediaApp(async (t) => {
    const made = await createModel(
      { db: t.services.db, clock: t.clock, siteId: t.siteId },
      {
        model: { name: "Pages", slug: "pages", enableI18n: true },
        fields: [
          { key: "title", label: "Title", type: "text", localized: true },
          { key: "slides", label: "Slides", type: "json", localized: true },
        ],
      },
    );
    if (!made.ok) throw new Error(JSON.stringify(made));
    const { secret } = await t.credential([
      "content:read",
      "content:write",
      "pages:write",
    ]);
    const created = await t.call("POST", "/entries", {
      body: {
        model_id: made.model.id,
        locale: "en",
        slug: "home",
        fields: { title: "Home", slides: exampleHomePage("en") },
      },
      key: "create-home",
      secret,
    });
    assert.equal(created.status, 201, await created.clone().text());
    const entry = await created.json();
    const upload = async (bytes: Uint8Array, name: string) =>
      await (await t.send("POST", "/media", { file: { bytes, name } })).json();
    const document = await upload(
      new TextEncoder().encode("Terms and conditions\n"),
      "terms.txt",
    );
    assert.equal(document.kind, "document");
    const image = await upload(await png(4), "hero.png");
    const withHero = (mediaId: string) => {
      const doc = exampleHomePage("en");
      const hero = doc.props.hero as { media: { media_id: string } };
      hero.media.media_id = mediaId;
      return doc;
    };
    const save = (mediaId: string, key: string) =>
      t.call("POST", `/pages/${entry.id}/save`, {
        body: {
          locale: "en",
          expected_current_version_id: entry.current_version_id,
          document: withHero(mediaId),
        },
        key,
        secret,
      });
    const refused = await save(document.id, "save-doc");
    assert.equal(refused.status, 422);
    const body = await refusal(refused);
    assert.equal(body.code, "field_validation_failed");
    const errors = body.errors as { path: string; code: string }[];
    assert.deepEqual(errors.map((e) => [e.path, e.code]), [[
      "slides.props.hero.media",
      "unsupported_media_kind",
    ]]);
    // Nothing was written: the page still has its first version.
    const page = await (await t.call("GET", `/pages/${entry.id}`, { secret }))
      .json();
    assert.equal(
      page.locales.en.current_version_id,
      entry.current_version_id,
    );
    const saved = await save(image.id, "save-image");
    assert.equal(saved.status, 200, await saved.clone().text());
  }));
