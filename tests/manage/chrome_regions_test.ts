// Site Chrome region content through the Management API: only regions the active template declares
// take content (template rule 7).
import assert from "node:assert/strict";
import { refusal, withManageApp } from "./helpers.ts";

const base = {
  placements: { header: null, footer: null },
  footer_note: {},
};

Deno.test("TPL-033: saving Site Chrome content into a region the active template does not declare answers 400 unknown_region and changes nothing", () =>
  withManageApp(async (t) => {
    const key = () => crypto.randomUUID();
    const put = (revision: number, regions: unknown) =>
      t.call("PUT", "/settings/chrome", {
        key: key(),
        body: {
          expected_revision: revision,
          document: { ...base, regions },
        },
      });
    // The built-in template declares `footer`.
    const saved = await put(0, { footer: [{ kind: "search" }] });
    assert.equal(saved.status, 200, await saved.clone().text());
    assert.equal((await saved.json()).revision, 1);

    const refused = await put(1, {
      footer: [{ kind: "search" }],
      sidebar2: [{ kind: "search" }],
    });
    assert.equal(refused.status, 400);
    const error = await refusal(refused);
    assert.equal(error.code, "unknown_region");
    assert.equal(error.region, "sidebar2");
    const after = await (await t.call("GET", "/settings/chrome")).json();
    assert.equal(after.revision, 1);
    assert.deepEqual(after.document.regions, { footer: [{ kind: "search" }] });
    // The region is not on the public chrome either.
    const chrome = await t.app.request("http://manage.test/v1/_chrome", {
      headers: { host: "manage.test" },
    });
    assert.deepEqual(
      (await chrome.json()).data.regions.map((r: { key: string }) => r.key),
      ["footer"],
    );

    // A template accepted later declares `sidebar` only: `footer` content stays as it was and
    // may be kept, but no longer changed; `sidebar` takes content.
    const { db } = t.services;
    const candidate = crypto.randomUUID();
    await db.insertInto("template_candidates").values({
      id: candidate,
      site_id: t.siteId,
      digest: "d".repeat(64),
      name: "Sidebar template",
      manifest: JSON.stringify({
        name: "Sidebar template",
        entry: "main.tsx",
        regions: [{ key: "sidebar", label: "Sidebar" }],
      }),
      sections: "[]",
      contract: 3,
      origin: "upload",
      build_id: "b",
      sandbox_image: "i",
      source_digest: "s".repeat(64),
      compiled_digest: "c".repeat(64),
      report_digest: "r".repeat(64),
      created_by: null,
      created_at: t.clock.now(),
    }).execute();
    await db.insertInto("template_acceptances").values({
      site_id: t.siteId,
      sequence: 1,
      candidate_id: candidate,
      accepted_by: null,
      accepted_at: t.clock.now(),
    }).execute();
    const changedFooter = await put(1, {
      footer: [{ kind: "posts_by_month" }],
    });
    assert.equal(changedFooter.status, 400);
    assert.equal((await refusal(changedFooter)).region, "footer");
    const sidebar = await put(1, {
      footer: [{ kind: "search" }],
      sidebar: [{ kind: "search" }],
    });
    assert.equal(sidebar.status, 200, await sidebar.clone().text());
    const served = await t.app.request("http://manage.test/v1/_chrome", {
      headers: { host: "manage.test" },
    });
    assert.deepEqual(
      (await served.json()).data.regions.map((r: { key: string }) => r.key),
      ["sidebar"],
    );
  }));

Deno.test("Site Chrome regions: 8 blocks per region are taken, a 9th is refused input_invalid; recent posts take 1 to 10", () =>
  withManageApp(async (t) => {
    const put = (regions: unknown) =>
      t.call("PUT", "/settings/chrome", {
        key: crypto.randomUUID(),
        body: { expected_revision: 0, document: { ...base, regions } },
      });
    const search = { kind: "search" };
    const nine = await put({ footer: Array(9).fill(search) });
    assert.equal(nine.status, 400);
    assert.equal((await refusal(nine)).code, "input_invalid");
    for (const limit of [0, 11]) {
      const bad = await put({ footer: [{ kind: "recent_posts", limit }] });
      assert.equal(bad.status, 400);
    }
    const eight = await put({
      footer: [
        ...Array(6).fill(search),
        { kind: "recent_posts", limit: 1 },
        { kind: "recent_posts", limit: 10 },
      ],
    });
    assert.equal(eight.status, 200, await eight.clone().text());
  }));
