// Component fields in the entry editor: each item a group of its own controls (not JSON), a blank
// item to add one and a box to remove one, all without script; refusals inside an item are kept
// with what was typed (issue 13, the editor's controls for every field type).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
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
import { setupDemo, type SetupDemoOptions } from "./demo_helpers.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";

async function withFaqModel(options: SetupDemoOptions = {}) {
  const demo = await setupDemo(options);
  const tags = await demo.t.services.db.selectFrom("models").select("id")
    .where("site_id", "=", demo.siteId).where("slug", "=", "tags")
    .executeTakeFirstOrThrow();
  const made = await createModel(
    { db: demo.t.services.db, clock: demo.t.clock, siteId: demo.siteId },
    {
      model: { name: "Guides", slug: "guides" },
      fields: [
        { key: "title", label: "Title", type: "text" },
        {
          key: "faq",
          label: "Questions",
          type: "component",
          validation: { maxItems: 3 },
          config: {
            repeatable: true,
            fields: [
              {
                key: "question",
                label: "Question",
                type: "text",
                validation: { maxLength: 40 },
              },
              { key: "answer", label: "Answer", type: "rich_text" },
              { key: "place", label: "Place", type: "point" },
              {
                key: "topic",
                label: "Topic",
                type: "relation",
                config: { targets: [tags.id], cardinality: "many-to-one" },
              },
              { key: "picture", label: "Picture", type: "media" },
            ],
          },
        },
        {
          key: "seo",
          label: "Search engines",
          type: "component",
          config: {
            fields: [
              { key: "meta_title", label: "Meta title", type: "text" },
              { key: "noindex", label: "Hide from search", type: "boolean" },
            ],
          },
        },
      ],
    },
  );
  ok(made.ok, JSON.stringify(made));
  const jar = new CookieJar();
  await signInAs(demo.t, jar, {
    email: demo.email,
    password: PASSWORD,
    host: options.domain,
  });
  return { ...demo, jar, tagsModelId: tags.id };
}

async function storedValues(
  demo: Awaited<ReturnType<typeof withFaqModel>>,
  slug: string,
): Promise<Record<string, unknown>> {
  const row = await demo.t.services.db.selectFrom("entries as e")
    .innerJoin("entry_versions as v", "v.id", "e.current_version_id")
    .select("v.fields").where("e.site_id", "=", demo.siteId)
    .where("e.slug", "=", slug).executeTakeFirstOrThrow();
  return row.fields as Record<string, unknown>;
}

Deno.test("component fields are edited item by item: a blank item adds one, a ticked box removes one, a single component is a group of its fields", async () => {
  const demo = await withFaqModel();
  const { t, jar } = demo;
  try {
    const blank = await (await request(t, jar, "/admin/content/guides/new"))
      .text();
    // Each item field has its own labelled control; nothing asks for JSON but the point.
    match(blank, /<legend>New item of Questions<\/legend>/);
    match(blank, /<label for="field-faq.0.question">Question/);
    match(blank, /name="f.faq.rows" value="1"/);
    match(blank, /<span class="label" id="label-seo"><strong>Search engines/);
    match(blank, /name="f.seo.0.noindex"/);
    equal(/name="f.faq.0.remove"/.test(blank), false);
    const csrf = csrfField(blank);

    const created = await request(t, jar, "/admin/content/guides/new", {
      form: {
        _csrf: csrf,
        action: "save",
        lang: "en",
        slug: "first-guide",
        "f.title": "First guide",
        "f.faq.rows": "1",
        "f.faq.0.question": "What is Stave?",
        "f.faq.0.answer": "<p>A CMS.</p>",
        "f.faq.0.place": '{"latitude": 52.5, "longitude": 13.4}',
        "f.seo.rows": "1",
        "f.seo.0.meta_title": "Stave guide",
        "present.seo.0.noindex": "1",
        expected_current_version_id: "",
      },
    });
    equal(created.status, 303);
    deepEqual(await storedValues(demo, "first-guide"), {
      title: "First guide",
      faq: [{
        question: "What is Stave?",
        answer: "<p>A CMS.</p>",
        place: { latitude: 52.5, longitude: 13.4 },
      }],
      seo: { meta_title: "Stave guide", noindex: false },
    });

    const location = created.headers.get("location")!;
    const editor = await (await request(t, jar, location)).text();
    match(editor, /<legend>Questions, item 1<\/legend>/);
    match(editor, /value="What is Stave\?"/);
    match(editor, /<legend>New item of Questions<\/legend>/);
    match(editor, /name="f.faq.rows" value="2"/);
    match(editor, /name="f.faq.0.remove" value="1"/);
    const version = /name="expected_current_version_id" value="([^"]+)"/
      .exec(editor)![1];

    // Add a second item through the blank one and remove the first in the same save.
    const saved = await request(t, jar, location.replace(/&done=.*$/, ""), {
      form: {
        _csrf: csrfField(editor),
        action: "save",
        lang: "en",
        slug: "first-guide",
        "f.title": "First guide",
        "f.faq.rows": "2",
        "f.faq.0.question": "What is Stave?",
        "f.faq.0.remove": "1",
        "f.faq.1.question": "Is it fast?",
        "f.faq.1.answer": "",
        "f.faq.1.place": "",
        "f.seo.rows": "1",
        "f.seo.0.meta_title": "",
        "present.seo.0.noindex": "1",
        expected_current_version_id: version,
      },
    });
    equal(saved.status, 303);
    const after = await storedValues(demo, "first-guide");
    deepEqual(after.faq, [{ question: "Is it fast?" }]);
    // A single component left empty is left out.
    equal("seo" in after, false);
  } finally {
    await t.close();
  }
});

Deno.test("a refusal inside a component item names the item and keeps every typed value", async () => {
  const demo = await withFaqModel();
  const { t, jar } = demo;
  try {
    const form = await (await request(t, jar, "/admin/content/guides/new"))
      .text();
    const refused = await request(t, jar, "/admin/content/guides/new", {
      form: {
        _csrf: csrfField(form),
        action: "save",
        lang: "en",
        slug: "long-guide",
        "f.title": "Long guide",
        "f.faq.rows": "3",
        "f.faq.0.question": "Short",
        "f.faq.1.question": "x".repeat(41),
        "f.faq.2.question": "",
        "f.faq.2.place": "not json",
        "f.seo.rows": "1",
        expected_current_version_id: "",
      },
    });
    equal(refused.status, 422);
    const html = await refused.text();
    // The form's own check (the point's JSON) answers first, on its item.
    match(html, /faq\[2\]\.place: This is not valid JSON/);
    match(html, new RegExp(`value="${"x".repeat(41)}"`));
    match(html, /name="f.faq.rows" value="4"/);

    const service = await request(t, jar, "/admin/content/guides/new", {
      form: {
        _csrf: csrfField(form),
        action: "save",
        lang: "en",
        slug: "long-guide",
        "f.title": "Long guide",
        "f.faq.rows": "2",
        "f.faq.0.question": "Short",
        "f.faq.1.question": "x".repeat(41),
        "f.seo.rows": "1",
        expected_current_version_id: "",
      },
    });
    equal(service.status, 422);
    const message = await service.text();
    match(message, /faq\[1\]\.question/);
    match(message, new RegExp(`value="${"x".repeat(41)}"`));
  } finally {
    await t.close();
  }
});

Deno.test({
  name:
    "component fields in Chromium: items are filled in their own labelled controls, saved, shown again with a blank item; axe and screenshots at 390 and 1440 px",
  ignore: !browserTestsRun("the component fields browser test"),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const demo = await withFaqModel({ domain: "127.0.0.1", islands: true });
    const { t } = demo;
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    try {
      server = serveLocally((req, info) => t.app.fetch(req, info));
      const base = server.baseUrl;
      browser = await launchChromium();
      const page = await (await browser.newContext({
        viewport: { width: 1440, height: 900 },
      })).newPage();
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await signInInChromium(page, base, demo.email, PASSWORD);
      await page.goto(`${base}/admin/content/guides/new`);
      await page.locator("#field-title").fill("Guide in a browser");
      await page.getByLabel("Slug", { exact: true }).fill("browser-guide");
      const item = page.getByRole("group", { name: "New item of Questions" });
      await item.getByLabel("Question").fill("Does it work without JSON?");
      await page.getByRole("group", { name: "Search engines" })
        .getByLabel("Meta title").fill("Guide");
      await Promise.all([
        page.waitForURL(/done=created/),
        page.getByRole("button", { name: "Create draft" }).click(),
      ]);
      const first = page.getByRole("group", { name: "Questions, item 1" });
      equal(
        await first.getByLabel("Question").inputValue(),
        "Does it work without JSON?",
      );
      await page.getByRole("group", { name: "New item of Questions" })
        .waitFor();
      const a11y = await axeProblems(page, "component-editor");
      deepEqual(a11y, []);
      await screenshots(page, "component-editor");
      await page.setViewportSize({ width: 390, height: 900 });
      equal(await scrollsSideways(page), null);
      deepEqual((await storedValues(demo, "browser-guide")).faq, [{
        question: "Does it work without JSON?",
      }]);
      equal(errors.length, 0, errors.join("\n"));
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});

Deno.test("relation and media fields inside component items get the pickers: choices listed, searched by their full key, saved in the item", async () => {
  const demo = await withFaqModel();
  const { t, jar } = demo;
  try {
    const blank = await (await request(t, jar, "/admin/content/guides/new"))
      .text();
    match(blank, /data-island="RelationPicker"/);
    match(blank, /<select id="field-faq.0.topic" name="f.faq.0.topic"/);
    match(blank, />Security<\/option>/);
    match(blank, /name="f.faq.0.picture"/);
    const security = await t.services.db.selectFrom("entries as e")
      .innerJoin("entry_groups as g", "g.id", "e.group_id")
      .select("g.id").where("e.site_id", "=", demo.siteId)
      .where("g.model_id", "=", demo.tagsModelId)
      .where("e.slug", "=", "security").executeTakeFirstOrThrow();
    const found = await (await request(
      t,
      jar,
      "/admin/content/guides/choices?field=faq.0.topic&q=SECU",
    )).json();
    deepEqual(found.choices, [{ value: security.id, label: "Security" }]);
    equal(
      (await request(
        t,
        jar,
        "/admin/content/guides/choices?field=faq.0.answer&q=x",
      ))
        .status,
      404,
    );
    equal(
      (await request(
        t,
        jar,
        "/admin/content/guides/choices?field=faq.x.topic&q=x",
      ))
        .status,
      404,
    );

    const created = await request(t, jar, "/admin/content/guides/new", {
      form: {
        _csrf: csrfField(blank),
        action: "save",
        lang: "en",
        slug: "picked-guide",
        "f.title": "Picked guide",
        "f.faq.rows": "1",
        "f.faq.0.question": "Which topic?",
        "f.faq.0.topic": security.id,
        "f.seo.rows": "1",
        expected_current_version_id: "",
      },
    });
    equal(created.status, 303);
    deepEqual((await storedValues(demo, "picked-guide")).faq, [{
      question: "Which topic?",
      topic: security.id,
    }]);
    // The saved choice is offered again in its item, selected.
    const editor = await (await request(
      t,
      jar,
      created.headers.get("location")!,
    )).text();
    match(
      editor,
      new RegExp(`<option value="${security.id}" selected>Security`),
    );
  } finally {
    await t.close();
  }
});
