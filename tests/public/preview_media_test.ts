// A preview of a page whose media cannot be presented answers 422 with the reason (spec 3 part
// 4.3, PUB-037): the demo's home page, whose hero is a library image, with its reference broken
// one way at a time in a draft version.
import { deepEqual, equal } from "node:assert/strict";
import type { Actor } from "../../core/access/actor.ts";
import { saveEntry } from "../../core/entries/mod.ts";
import { modelValidator } from "../../core/entries/model_validator.ts";
import { mintPreviewToken } from "../../core/public/preview_tokens.ts";
import { HOST } from "../admin/helpers.ts";
import { setupDemo } from "../admin/demo_helpers.ts";

type Json = Record<string, unknown>;

Deno.test("a preview names why a page's media cannot be presented: page_media_unavailable, media_presentation_*, media_size_missing (PUB-037)", async (t) => {
  const demo = await setupDemo({ media: true });
  const { db } = demo.t.services;
  const urlOf = (i: { object_id: string; format: string }) =>
    `http://${HOST}/media/${demo.siteId}/${i.object_id}.${i.format}`;
  try {
    const get = (path: string) =>
      demo.t.app.request(path, { headers: { host: HOST } });
    const home = await db.selectFrom("entries").selectAll()
      .where("site_id", "=", demo.siteId).where("slug", "=", "home")
      .where("locale", "=", "en").executeTakeFirstOrThrow();
    const version = await db.selectFrom("entry_versions").select("fields")
      .where("id", "=", home.current_version_id!).executeTakeFirstOrThrow();
    const fields = version.fields as Json;
    const slides = fields.slides as { props: { hero: { media: Json } } };
    const hero = slides.props.hero.media;
    const library = await db.selectFrom("media_files").select([
      "id",
      "object_id",
      "format",
    ]).where("site_id", "=", demo.siteId).execute();
    // The hero's image first, then another one.
    const images = [
      library.find((i) => i.id === hero.media_id)!,
      library.find((i) => i.id !== hero.media_id)!,
    ];
    equal(hero.url, urlOf(images[0]));
    const { token } = await mintPreviewToken(
      { db, clock: demo.t.clock },
      { siteId: demo.siteId, groupId: home.group_id, personId: demo.adminId },
    );
    const preview = () => get(`/v1/pages/home?preview=${token}`);
    await t.step(
      "the demo's home page previews with its library hero",
      async () => {
        equal((await preview()).status, 200);
      },
    );

    let current = home.current_version_id;
    const withHero = async (media: Json) => {
      const saved = await saveEntry({
        db,
        clock: demo.t.clock,
        siteId: demo.siteId,
        actor: { kind: "person", userId: demo.adminId } as Actor,
        validate: modelValidator(),
      }, {
        group_id: home.group_id,
        locale: "en",
        fields: {
          ...fields,
          slides: {
            ...slides,
            props: { ...slides.props, hero: { ...slides.props.hero, media } },
          },
        },
        expected_current_version_id: current,
      });
      if (!saved.ok) throw new Error(JSON.stringify(saved));
      current = saved.instances.find((i) => i.locale === "en")!
        .current_version_id;
    };
    const refused = async (reason: string) => {
      const res = await preview();
      equal(res.status, 422, reason);
      const body = await res.json();
      equal(body.error.code, reason);
      equal(body.error.reason, reason);
      equal(body.error.detail.path, "$.props.hero.media");
      equal(typeof body.error.message, "string");
      // The published page is served as ever.
      equal((await get("/v1/pages/home")).status, 200);
    };
    await t.step(
      "a media id the library does not hold: page_media_unavailable",
      async () => {
        await withHero({ ...hero, media_id: crypto.randomUUID() });
        await refused("page_media_unavailable");
        await withHero({ ...hero, media_id: "demo-hero" });
        await refused("page_media_unavailable");
      },
    );
    await t.step(
      "a url that is another item's file or no library file: media_presentation_mismatch",
      async () => {
        await withHero({ ...hero, url: urlOf(images[1]) });
        await refused("media_presentation_mismatch");
        await withHero({ ...hero, url: "https://elsewhere.example/hero.png" });
        await refused("media_presentation_mismatch");
      },
    );
    await t.step(
      "a file the item no longer has: media_presentation_revision_unavailable",
      async () => {
        await withHero({
          ...hero,
          url: urlOf({ object_id: crypto.randomUUID(), format: "png" }),
        });
        await refused("media_presentation_revision_unavailable");
      },
    );
    await t.step(
      "an item that is not an image, or an image without a size",
      async () => {
        await withHero(hero);
        equal((await preview()).status, 200);
        await db.updateTable("media_files").set({ width: null, height: null })
          .where("id", "=", images[0].id).execute();
        await refused("media_size_missing");
        await db.updateTable("media_files").set({ kind: "document" })
          .where("id", "=", images[0].id).execute();
        await refused("media_presentation_unreadable");
      },
    );
    deepEqual((await get("/v1/pages/home")).status, 200);
  } finally {
    await demo.t.close();
  }
});
