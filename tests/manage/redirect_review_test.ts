// SET-007: POST /settings/seo/redirect-review takes no Idempotency-Key, stores nothing, and names
// duplicates, shadowed patterns, loops and chains of the list sent or the stored one.
import assert from "node:assert/strict";
import { SETTINGS_DEFAULTS } from "../../core/sites/settings_documents.ts";
import { refusal, withManageApp } from "./helpers.ts";

Deno.test("POST /settings/seo/redirect-review answers findings without a key and changes nothing (SET-007, MAPI-006)", () =>
  withManageApp(async (t) => {
    const redirects = [
      { from: "/a", match: "exact", status: 301, to: "/b" },
      { from: "/b", match: "exact", status: 301, to: "/c" },
      { from: "/loop-1", match: "exact", status: 302, to: "/loop-2" },
      { from: "/loop-2", match: "exact", status: 302, to: "/loop-1" },
      { from: "/a", match: "exact", status: 301, to: "/d" },
      {
        from: "/blog/{slug}",
        match: "pattern",
        status: 301,
        to: "/posts/{slug}",
      },
      { from: "/blog/{rest*}", match: "pattern", status: 301, to: "/news" },
      { from: "/gone", match: "exact", status: 410, to: null },
    ];
    const answer = await t.call("POST", "/settings/seo/redirect-review", {
      body: { redirects },
    });
    assert.equal(answer.status, 200);
    const body = await answer.json();
    assert.equal(body.reviewed, 8);
    assert.deepEqual(
      body.findings.map((
        f: { index: number; kind: string },
      ) => [f.index, f.kind]),
      [[0, "chain"], [2, "loop"], [3, "loop"], [4, "duplicate"], [
        6,
        "shadowed",
      ]],
    );
    assert.equal(body.findings[0].final, "/c");

    // Without a list it reviews the stored document; nothing was stored by the review.
    const stored = await t.call("GET", "/settings/seo");
    const current = await stored.json();
    assert.equal(current.revision, 0);
    assert.deepEqual(current.document, SETTINGS_DEFAULTS.seo);
    const empty = await t.call("POST", "/settings/seo/redirect-review", {
      body: {},
    });
    assert.deepEqual(await empty.json(), { reviewed: 0, findings: [] });

    const extra = await t.call("POST", "/settings/seo/redirect-review", {
      body: { redirects: [], apply: true },
    });
    assert.equal(extra.status, 400);
    assert.equal((await refusal(extra)).code, "invalid_request");
  }));
