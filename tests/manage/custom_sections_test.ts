// A page's custom sections are read with the definitions the site's accepted templates promoted
// (spec 3 parts 2.2 and 4.8 rule 6; PAGE-045, TPL-014): before a definition is promoted a save
// naming it is refused at the section's path, afterwards it saves, and the page reads back
// through GET /pages/{id} with its document.
import assert from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";

const DIGEST = "d".repeat(64);

const BANNER = {
  key: "banner",
  label: "Banner",
  description: "",
  variants: ["default"],
  props: { title: { kind: "text" }, dark: { kind: "toggle" } },
};

function bannerPage(title: string) {
  return {
    format: 2,
    sections: [{
      id: "b1",
      type: "custom",
      variant: "default",
      layout: "default",
      component: null,
      definition: { key: "banner", version: 1, digest: DIGEST },
    }],
    props: { b1: { heading: null, fields: { title, dark: true } } },
  };
}

/** Promotes `banner` version 1 as accepting a template does (candidate row, then the version). */
async function promoteBanner(t: ManageFixture): Promise<void> {
  const candidateId = crypto.randomUUID();
  const now = t.clock.now();
  await t.services.db.insertInto("template_candidates").values({
    id: candidateId,
    site_id: t.siteId,
    digest: "a".repeat(64),
    name: "Test template",
    manifest: JSON.stringify({}),
    sections: JSON.stringify([]),
    contract: 3,
    origin: "https://renderer.test",
    build_id: "build",
    sandbox_image: "image",
    source_digest: "b".repeat(64),
    compiled_digest: "c".repeat(64),
    report_digest: "e".repeat(64),
    created_by: null,
    created_at: now,
  }).execute();
  await t.services.db.insertInto("registered_section_versions").values({
    site_id: t.siteId,
    key: "banner",
    version: 1,
    identity: "f".repeat(64),
    digest: DIGEST,
    definition: JSON.stringify(BANNER),
    candidate_id: candidateId,
    promoted_at: now,
  }).execute();
}

Deno.test("a page's custom section saves once its definition is promoted, and is refused unknown_section_definition before (PAGE-045, TPL-014)", () =>
  withManageApp(async (t) => {
    const made = await createModel(
      { db: t.services.db, clock: t.clock, siteId: t.siteId },
      {
        model: { name: "Pages", slug: "pages" },
        fields: [
          { key: "title", label: "Title", type: "text", required: true },
          { key: "slides", label: "Slides", type: "json" },
        ],
      },
    );
    if (!made.ok) throw new Error(JSON.stringify(made));
    const { secret } = await t.credential([
      "content:read",
      "content:write",
      "pages:write",
    ]);
    const create = (key: string) =>
      t.call("POST", "/entries", {
        body: {
          model_id: made.model.id,
          locale: "en",
          slug: "landing",
          fields: { title: "Landing", slides: bannerPage("Hello") },
        },
        key,
        secret,
      });
    const before = await create("create-1");
    assert.equal(before.status, 422);
    const error = await refusal(before);
    const problems = error.errors as { path: string; code: string }[];
    assert.deepEqual(problems.map((p) => [p.path, p.code]), [[
      "slides.sections[0].definition",
      "unknown_section_definition",
    ]]);

    await promoteBanner(t);
    const after = await create("create-2");
    assert.equal(after.status, 201, await after.clone().text());
    const entry = await after.json();
    const read = await t.call("GET", `/pages/${entry.id}`, { secret });
    assert.equal(read.status, 200);
    const page = await read.json();
    assert.equal(page.locales.en.document_error, null);
    assert.deepEqual(page.locales.en.document.props.b1.fields, {
      title: "Hello",
      dark: true,
    });
  }));
