// The entry editor's media fields in Chromium: the library's picker (a select without script,
// thumbnails with it) replaces typed ids; a chosen cover saves; axe-core and screenshots.
import { deepEqual, equal, ok } from "node:assert/strict";
import type { Browser } from "playwright-core";
import { axeProblems, screenshots, scrollsSideways } from "../support/axe.ts";
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

const runsBrowser = browserTestsRun("the media picker browser test");

Deno.test({
  name:
    "the entry editor in Chromium: the cover is chosen in the media picker, a tag found by search, typing is autosaved as a working draft, save stores it and drops the draft",
  ignore: !runsBrowser,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const demo = await setupDemo({
      domain: "127.0.0.1",
      islands: true,
      media: true,
    });
    const { t } = demo;
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    try {
      server = serveLocally((request, info) => t.app.fetch(request, info));
      // Thumbnails load from the test server.
      (t.services.config as { publicUrl: string }).publicUrl = server.baseUrl;
      const { db } = t.services;
      const posts = await db.selectFrom("models").select("id")
        .where("site_id", "=", demo.siteId).where("slug", "=", "posts")
        .executeTakeFirstOrThrow();
      const withCover = await db.selectFrom("entries")
        .innerJoin(
          "entry_versions",
          "entry_versions.id",
          "entries.current_version_id",
        )
        .select(["entries.group_id", "entry_versions.fields"])
        .where("entries.site_id", "=", demo.siteId)
        .where("entries.model_id", "=", posts.id).where(
          "entries.locale",
          "=",
          "en",
        )
        .execute();
      const post = withCover.find((r) =>
        (r.fields as { cover?: string }).cover
      );
      ok(post, "a demo post with a cover");
      const cover = (post.fields as { cover: string }).cover;
      const media = await db.selectFrom("media_files").select([
        "id",
        "file_name",
      ])
        .where("site_id", "=", demo.siteId).execute();
      const other = media.find((m) => m.id !== cover)!;

      browser = await launchChromium();
      const page = await browser.newPage({
        viewport: { width: 1440, height: 900 },
      });
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      await signInInChromium(page, server.baseUrl, demo.email, PASSWORD);
      const editor =
        `${server.baseUrl}/admin/content/posts/${post.group_id}?lang=en`;
      await page.goto(editor);
      // Without script the label names a select holding the current cover.
      const select = page.getByLabel("Cover image", { exact: true });
      equal(await select.inputValue(), cover);
      const grid = page.getByRole("list", { name: "Cover image: thumbnails" });
      await grid.waitFor();
      const button = grid.getByRole("button", { name: other.file_name });
      await button.click();
      equal(await button.getAttribute("aria-pressed"), "true");
      equal(await select.inputValue(), other.id);
      deepEqual(await axeProblems(page, "editor-media-picker"), []);
      await screenshots(page, "editor-media-picker");
      await page.setViewportSize({ width: 390, height: 900 });
      equal(await scrollsSideways(page), null);
      await page.setViewportSize({ width: 1440, height: 900 });
      // The tags picker finds a tag by part of its name.
      await page.getByLabel("Find tags").fill("secu");
      await page.getByRole("status").filter({ hasText: "1 entry found" })
        .waitFor();
      equal(
        await page.locator("#field-tags option", { hasText: "Security" })
          .count(),
        1,
      );
      // Autosave: a pause after typing keeps the form as a working draft, and says so.
      await page.locator("#field-title").fill("Alt text, reviewed");
      await page.getByRole("status").filter({ hasText: "Changes autosaved" })
        .waitFor();
      const draft = await db.selectFrom("entry_drafts").select("fields")
        .where("group_id", "=", post.group_id).executeTakeFirstOrThrow();
      equal((draft.fields as { title: string }).title, "Alt text, reviewed");
      equal((draft.fields as { cover: string }).cover, other.id);
      await Promise.all([
        page.waitForURL(/done=saved/),
        page.getByRole("button", { name: "Save draft" }).click(),
      ]);
      // Saving made a version of it: the working draft is gone.
      equal(
        (await db.selectFrom("entry_drafts").select("group_id")
          .where("group_id", "=", post.group_id).execute()).length,
        0,
      );
      const saved = await db.selectFrom("entries")
        .innerJoin(
          "entry_versions",
          "entry_versions.id",
          "entries.current_version_id",
        )
        .select("entry_versions.fields").where(
          "entries.group_id",
          "=",
          post.group_id,
        )
        .where("entries.locale", "=", "en").executeTakeFirstOrThrow();
      equal((saved.fields as { cover: string }).cover, other.id);
      deepEqual(errors, []);
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});
