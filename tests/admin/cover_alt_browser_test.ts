// An image as a post's cover, with its alt text, in Chromium (issue 43, task "image as cover with
// alt text"): the picker's thumbnails choose the image, the alt text field beside them shows the
// chosen image's text and takes a new one, Save keeps both (the text on the library image, in
// the entry's language), and the published post's cover on /v1 carries it. A choice changed
// without script never gives the new image the text shown for the old one. axe-core and
// screenshots at 390 and 1440 px.
import { equal, notEqual } from "node:assert/strict";
import type { Browser } from "playwright-core";
import { assertPageAtBothWidths } from "../support/axe.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
  type LocalServer,
  serveLocally,
  signInInChromium,
} from "../support/browser.ts";
import { setupDemo } from "./demo_helpers.ts";
import { PASSWORD } from "./helpers.ts";

Deno.test({
  name:
    "a post's cover is chosen from the thumbnails with its alt text, saved on the library image and served on /v1 (issue 43 item 9, MED-015)",
  ignore: !browserTestsRun("the cover alt text browser test"),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const demo = await setupDemo({
      domain: "127.0.0.1",
      islands: true,
      media: true,
    });
    const { t } = demo;
    const db = t.services.db;
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    try {
      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      (t.services.config as { publicUrl: string }).publicUrl = base;
      const posts = await db.selectFrom("models").select("id")
        .where("site_id", "=", demo.siteId).where("slug", "=", "posts")
        .executeTakeFirstOrThrow();
      const post = await db.selectFrom("entries as e")
        .innerJoin("entry_versions as v", "v.id", "e.current_version_id")
        .select(["e.group_id", "e.slug", "v.fields"])
        .where("e.site_id", "=", demo.siteId).where("e.locale", "=", "en")
        .where("e.model_id", "=", posts.id)
        .where("e.published_version_id", "is not", null)
        .orderBy("e.slug").executeTakeFirstOrThrow();
      const fields = post.fields as Record<string, unknown>;
      const images = await db.selectFrom("media_files")
        .select(["id", "file_name", "alt_texts"])
        .where("site_id", "=", demo.siteId).where("kind", "=", "image")
        .orderBy("file_name").execute();
      const other = images.find((i) => i.id !== fields.cover)!;
      const previousCover = images.find((i) => i.id === fields.cover);

      browser = await launchChromium();
      const page = await browser.newPage({
        viewport: { width: 1440, height: 900 },
      });
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      await signInInChromium(page, base, demo.email, PASSWORD);
      await page.goto(`${base}/admin/content/posts/${post.group_id}`);
      const altField = page.getByLabel("Alt text of the chosen image (en)");
      await altField.waitFor();
      if (previousCover) {
        const text = (previousCover.alt_texts as Record<string, string>).en ??
          "";
        equal(await altField.inputValue(), text);
      }
      await page.locator(".media-picker-grid button", {
        hasText: other.file_name,
      }).first().click();
      // The field now shows the newly chosen image's text.
      equal(
        await altField.inputValue(),
        (other.alt_texts as Record<string, string>).en ?? "",
      );
      await altField.fill("A lighthouse on a cliff at dusk");
      await assertPageAtBothWidths(page, "cover-alt", { axeAt390: true });
      await Promise.all([
        page.waitForURL(/saved|\/admin\/content\/posts\//),
        page.getByRole("button", { name: "Save draft" }).first().click(),
      ]);
      await page.waitForLoadState("load");

      const saved = await db.selectFrom("media_files").select("alt_texts")
        .where("id", "=", other.id).executeTakeFirstOrThrow();
      equal(
        (saved.alt_texts as Record<string, string>).en,
        "A lighthouse on a cliff at dusk",
      );
      const current = await db.selectFrom("entries as e")
        .innerJoin("entry_versions as v", "v.id", "e.current_version_id")
        .select(["v.fields", "e.current_version_id"])
        .where("e.group_id", "=", post.group_id)
        .where("e.locale", "=", "en").executeTakeFirstOrThrow();
      equal((current.fields as Record<string, unknown>).cover, other.id);

      // Published, the cover on /v1 carries the text.
      await Promise.all([
        page.waitForLoadState("load"),
        page.getByRole("button", { name: "Publish" }).first().click(),
      ]);
      await page.waitForFunction(() => document.readyState === "complete");
      const published = await db.selectFrom("entries")
        .select("published_version_id").where("group_id", "=", post.group_id)
        .where("locale", "=", "en").executeTakeFirstOrThrow();
      equal(published.published_version_id, current.current_version_id);
      const read = await fetch(`${base}/v1/posts/${post.slug}?locale=en`);
      equal(read.status, 200);
      const cover = (await read.json()).data.media.cover as {
        id: string;
        alt: string;
      };
      equal(cover.id, other.id);
      equal(cover.alt, "A lighthouse on a cliff at dusk");
      await assertPageAtBothWidths(page, "cover-alt-published");

      // Without script, a choice changed in the select posts the text shown for the previous
      // image with that image's id: the new image keeps its own text.
      const third = images.find((i) => i.id !== other.id)!;
      const form = await page.content();
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form)![1];
      const version = /name="expected_current_version_id" value="([^"]*)"/
        .exec(form)![1];
      const before = await db.selectFrom("media_files").select("alt_texts")
        .where("id", "=", third.id).executeTakeFirstOrThrow();
      const posted = await page.request.post(
        `${base}/admin/content/posts/${post.group_id}?locale=en`,
        {
          form: {
            _csrf: csrf,
            action: "save",
            expected_current_version_id: version,
            slug: post.slug,
            "f.title": String(fields.title ?? "A post"),
            "f.cover": third.id,
            "alt.cover": "Text shown for the previous image",
            "alt_for.cover": other.id,
          },
          headers: { origin: base },
          maxRedirects: 0,
        },
      );
      notEqual(posted.status(), 500);
      const after = await db.selectFrom("media_files").select("alt_texts")
        .where("id", "=", third.id).executeTakeFirstOrThrow();
      equal(
        JSON.stringify(after.alt_texts),
        JSON.stringify(before.alt_texts),
      );
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});
