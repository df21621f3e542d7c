// The rich-text editor (ProseMirror) in Chromium: every block type of canonical rich text survives
// loading into the editor, an edit elsewhere in the document, and the save, unchanged (MOD-050
// family); the toolbar and typed shortcuts write canonical HTML.
import { equal, ok } from "node:assert/strict";
import type { Browser } from "playwright-core";
import { saveEntry } from "../../core/entries/mod.ts";
import {
  insertActiveInstallation,
  minimalManifest,
} from "../../core/plugins/_testing.ts";
import { modelValidator } from "../../core/entries/model_validator.ts";
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

const runsBrowser = browserTestsRun("the rich-text browser test");

/** One of every block and inline element canonical rich text allows, in the editor's canonical form. */
const everyBlock = (MEDIA: string, OTHER: string) =>
  [
    `<h2>Heading two</h2>`,
    `<p>Plain <strong>bold</strong> <em>italic</em> <u>under</u> <s>struck</s> <code>code</code> H<sub>2</sub>O x<sup>2</sup> <a href="https://example.com/">link</a><br>next line &amp; more&nbsp;text</p>`,
    `<h3>Three</h3><h4>Four</h4><h5>Five</h5><h6>Six</h6>`,
    `<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>`,
    `<ol start="3"><li>third</li><li>fourth</li></ol>`,
    `<blockquote><p>Quoted</p></blockquote>`,
    `<pre data-language="ts"><code>const a = 1 &lt; 2;\nreturn a;</code></pre>`,
    `<hr>`,
    `<table><thead><tr><th scope="col">A</th><th scope="col">B</th></tr></thead><tbody><tr><td>1</td><td colspan="1">2</td></tr></tbody></table>`,
    `<figure data-figure="media" data-media="${MEDIA}" data-kind="image"><figcaption>Caption</figcaption></figure>`,
    `<figure data-figure="gallery"><img data-media="${MEDIA}" alt="first"><img data-media="${OTHER}" alt="second"></figure>`,
    `<figure data-block="acme.quote" data-type="quote" data-version="1" data-values="{&quot;text&quot;:&quot;hi&quot;}"></figure>`,
  ].join("");

Deno.test({
  name:
    "the rich-text editor maps canonical HTML both ways: every block type survives an edit and a save unchanged; the toolbar and typed shortcuts write canonical HTML, each action its own undo step",
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
      const posts = await t.services.db.selectFrom("models").select("id")
        .where("site_id", "=", demo.siteId).where("slug", "=", "posts")
        .executeTakeFirstOrThrow();
      // Media references are checked (MOD-055): use two files of the demo library.
      const media = await t.services.db.selectFrom("media_files").select("id")
        .where("site_id", "=", demo.siteId).orderBy("id").limit(2).execute();
      equal(media.length, 2, "the demo library holds at least two files");
      const EVERY_BLOCK = everyBlock(media[0].id, media[1].id);
      // Plugin blocks are checked too (PEXT-027): an active plugin registers acme.quote.
      await insertActiveInstallation(t.services.db, demo.siteId, {
        ...minimalManifest(),
        id: "acme.quote",
        rich_blocks: [{
          type: "quote",
          label: "Quote",
          version: 1,
          controls: [{ name: "text", label: "Text", type: "text" }],
          render: { el: "blockquote", children: [{ field: "text" }] },
        }],
      });
      const saved = await saveEntry({
        db: t.services.db,
        clock: t.clock,
        siteId: demo.siteId,
        actor: { kind: "person", userId: demo.adminId },
        validate: modelValidator(),
      }, {
        model_id: posts.id,
        locale: "en",
        slug: "every-block",
        fields: { title: "Every block", body: EVERY_BLOCK },
        expected_current_version_id: null,
      });
      ok(saved.ok, JSON.stringify(saved));
      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      browser = await launchChromium();
      const page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await signInInChromium(page, base, demo.email, PASSWORD);
      await page.goto(`${base}/admin/content/posts/${saved.group_id}?lang=en`);
      await page.getByRole("toolbar", { name: "Formatting of Body" }).waitFor();
      const body = page.getByRole("textbox", { name: "Body" });
      // Edit the first heading; everything else must come back exactly as it was.
      await body.locator("h2").click();
      await page.keyboard.press("End");
      await page.keyboard.type("!");
      const expected = EVERY_BLOCK.replace(
        "<h2>Heading two</h2>",
        "<h2>Heading two!</h2>",
      );
      equal(await page.locator("#field-body").inputValue(), expected);
      await Promise.all([
        page.waitForURL(/done=saved/),
        page.getByRole("button", { name: "Save draft" }).click(),
      ]);
      const stored = await t.services.db.selectFrom("entries as e")
        .innerJoin("entry_versions as v", "v.id", "e.current_version_id")
        .select("v.fields").where("e.group_id", "=", saved.group_id)
        .executeTakeFirstOrThrow();
      equal((stored.fields as { body: string }).body, expected);

      // The toolbar and typed shortcuts write canonical HTML into the field the form posts.
      await page.goto(`${base}/admin/content/posts/new`);
      const toolbar = page.getByRole("toolbar", { name: "Formatting of Body" });
      await toolbar.waitFor();
      const editor = page.getByRole("textbox", { name: "Body" });
      // The field is written by the click's handler, which may finish after the click returns.
      const posted = async (html: string) => {
        await page.waitForFunction(
          (want) =>
            (document.querySelector("#field-body") as HTMLTextAreaElement)
              .value === want,
          html,
        ).catch(() => {});
        equal(await page.locator("#field-body").inputValue(), html);
      };
      const tool = (name: string) =>
        toolbar.getByRole("button", { name, exact: true });
      await editor.click();
      await page.keyboard.type("## Title");
      await page.keyboard.press("Enter");
      await page.keyboard.type("* one");
      await posted("<h2>Title</h2><ul><li>one</li></ul>");
      equal(await tool("Bold").getAttribute("aria-pressed"), "false");
      await page.keyboard.press("Shift+Home");
      await tool("Bold").click();
      await posted("<h2>Title</h2><ul><li><strong>one</strong></li></ul>");
      equal(await tool("Bold").getAttribute("aria-pressed"), "true");
      // Numbers turns the bullet list into a numbered one; Quote wraps the list and unwraps it.
      await tool("Numbers").click();
      await posted("<h2>Title</h2><ol><li><strong>one</strong></li></ol>");
      const quoted =
        "<h2>Title</h2><blockquote><ol><li><strong>one</strong></li></ol></blockquote>";
      await tool("Quote").click();
      await posted(quoted);
      // Undo takes back only the quote: each toolbar action is an undo step of its own.
      await tool("Undo").click();
      await posted("<h2>Title</h2><ol><li><strong>one</strong></li></ol>");
      await tool("Redo").click();
      await posted(quoted);
      await tool("Quote").click();
      await posted("<h2>Title</h2><ol><li><strong>one</strong></li></ol>");
      equal(errors.length, 0, errors.join("\n"));
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});
