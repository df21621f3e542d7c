// Previews of a candidate through the preview service process: fixtures, a saved page, the
// display policy, the payload limits and the outdated contract (TPL-006 to TPL-011).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { personActor } from "../../core/access/actor.ts";
import { modelValidator, saveEntry } from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/store.ts";
import {
  checkPreviewLists,
  listPathsOf,
  PREVIEW_LIMITS,
  viewLists,
} from "../../core/templates/preview_lists.ts";
import { parsePageDocument } from "../../core/pages/mod.ts";
import { setMemberPermissions, setupAdmin } from "../admin/helpers.ts";
import { exampleUpload } from "./example.ts";
import { jsonCaller, startBuildService, templateEnv } from "./support.ts";

Deno.test("TPL-006 TPL-009 TPL-010 TPL-011 TPL-019: a candidate previews each fixture and a saved page under the display policy", async () => {
  const service = await startBuildService();
  const artifacts = await Deno.makeTempDir({ prefix: "stave-artifacts-" });
  const { t, siteId, userId } = await setupAdmin({
    env: templateEnv(service.origin, artifacts),
  });
  try {
    const { db } = t.services;
    await setMemberPermissions(db, userId, administratorPermissions());
    const call = await jsonCaller(t, userId);
    const made = await call("/api/managed-templates/candidates", {
      body: await exampleUpload(),
    });
    equal(made.status, 201);
    const id = (await made.json()).data.id;
    const path = `/api/managed-templates/candidates/${id}/preview`;
    for (
      const fixture of ["ordinary", "long", "sparse", "no_images", "error"]
    ) {
      const res = await call(path, { body: { fixture } });
      equal(res.status, 200, fixture);
      const html = await res.text();
      match(html, /^<!doctype html>/i);
      // TPL-010: scripts, frames, forms and base links are forbidden; pictures only from here.
      const csp = res.headers.get("content-security-policy") ?? "";
      for (
        const rule of [
          "script-src 'none'",
          "frame-src 'none'",
          "form-action 'none'",
          "base-uri 'none'",
          "img-src 'self' data:",
          "sandbox",
        ]
      ) {
        ok(csp.includes(rule), `${rule} in ${csp}`);
      }
      equal(res.headers.get("cache-control"), "no-store");
      // The candidate's stylesheet travels inside the preview (it is sandboxed away from cookies).
      match(html, /<style>:root \{\s+--ink: #1d2433;/);
      ok(!html.includes('href="/_site/'));
      ok(
        !html.includes("fixtures.invalid"),
        "the fixture picture travels inline",
      );
    }
    const css = await call(
      `/api/managed-templates/candidates/${id}/site/style.css`,
    );
    equal(css.status, 200);
    equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    equal(
      (await call(`/api/managed-templates/candidates/${id}/site/nope.css`))
        .status,
      404,
    );
    const bad = await call(path, { body: { fixture: "huge" } });
    equal(bad.status, 400);

    // A saved page (not published) in one language.
    const pages = await createModel({ db, clock: t.clock, siteId }, {
      model: { name: "Pages", slug: "pages", enableI18n: true },
      fields: [
        { key: "title", label: "Title", type: "text", localized: true },
        { key: "slides", label: "Slides", type: "json", localized: true },
      ],
    });
    if (!pages.ok) throw new Error(JSON.stringify(pages));
    const saved = await saveEntry({
      db,
      clock: t.clock,
      siteId,
      actor: personActor(userId),
      validate: modelValidator(),
    }, {
      model_id: pages.model_id,
      locale: "en",
      slug: "about",
      fields: {
        title: "About the bakery",
        slides: {
          format: 2,
          sections: [
            {
              id: "a",
              type: "rich_text",
              variant: "default",
              layout: "default",
              component: null,
            },
            {
              id: "b",
              type: "latest_entries",
              variant: "default",
              layout: "default",
              component: null,
            },
          ],
          props: {
            a: {
              heading: "Saved draft words",
              paragraphs: ["Only in the draft."],
            },
            b: {
              heading: "News",
              model: "posts",
              title_field: "title",
              limit: 3,
            },
          },
        },
      },
      expected_current_version_id: null,
    });
    if (!saved.ok) throw new Error(saved.code);
    const page = await call(path, {
      body: { page_id: saved.group_id, locale: "en" },
    });
    equal(page.status, 200);
    const html = await page.text();
    match(html, /Saved draft words/);
    match(html, /<title>About the bakery · Harbour Bakery<\/title>/);
    const missing = await call(path, {
      body: { page_id: crypto.randomUUID(), locale: "en" },
    });
    equal(missing.status, 404);

    // TPL-011: built against another page contract, a candidate is not previewed.
    await db.updateTable("template_candidates").set({ contract: 4 }).where(
      "id",
      "=",
      id,
    ).execute();
    const outdated = await call(path, { body: { fixture: "ordinary" } });
    equal(outdated.status, 409);
    equal((await outdated.json()).error.code, "template_contract_outdated");

    // TPL-019: without the preview service's settings, 503 names them.
    const stored = await (await call("/api/managed-templates/candidates"))
      .json();
    equal(stored.data.length, 1);
  } finally {
    await t.close();
    await service.stop();
    await Deno.remove(artifacts, { recursive: true });
  }
});

Deno.test("TPL-019 TPL-022: preview without its service's settings answers 503 naming them", async () => {
  const { t, userId } = await setupAdmin({
    env: {
      TEMPLATE_ARTIFACTS: "/tmp",
      TEMPLATE_SANDBOX_IMAGE: `x@sha256:${"a".repeat(64)}`,
    },
  });
  try {
    await setMemberPermissions(
      t.services.db,
      userId,
      administratorPermissions(),
    );
    const call = await jsonCaller(t, userId);
    const res = await call(
      `/api/managed-templates/candidates/${crypto.randomUUID()}/preview`,
      {
        body: { fixture: "ordinary" },
      },
    );
    equal(res.status, 503);
    deepEqual((await res.json()).error.missing, [
      "TEMPLATE_PREVIEW_SERVICE_URL",
      "TEMPLATE_PREVIEW_SERVICE_KEY",
    ]);
  } finally {
    await t.close();
  }
});

function latestDoc(n: number) {
  const parsed = parsePageDocument({
    format: 2,
    sections: Array.from({ length: n }, (_, i) => ({
      id: `l${i}`,
      type: "latest_entries",
      variant: "default",
      layout: "default",
      component: null,
    })),
    props: Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, {
      heading: null,
      model: `m${i}`,
      title_field: "title",
      limit: 3,
    }])),
  });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

Deno.test("TPL-007 TPL-008 TPL-009: a preview carries at most 24 lists of 256 KiB, 1 MiB in all, each at its exact public list path", () => {
  const doc = latestDoc(2);
  deepEqual(listPathsOf(doc, "en"), [
    "/v1/m0?locale=en&limit=3",
    "/v1/m1?locale=en&limit=3",
  ]);
  // Answers are found only at their exact path; any other path is a 404, drawn as an error.
  deepEqual(
    viewLists(doc, "en", {
      "/v1/m0?locale=en&limit=3": '{"data":[{"id":"x"}]}',
      "/v1/m1?limit=3&locale=en": '{"data":[]}',
    }),
    {
      l0: { ok: true, items: [{ id: "x" }] },
      l1: { ok: false },
    },
  );
  const lists = (n: number, size: number) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`/v1/m${i}`, "x".repeat(size)]),
    );
  ok(checkPreviewLists(lists(PREVIEW_LIMITS.lists, 10)).ok);
  deepEqual(checkPreviewLists(lists(PREVIEW_LIMITS.lists + 1, 10)), {
    ok: false,
    code: "preview_payload_too_large",
    limit: "lists",
  });
  ok(checkPreviewLists(lists(1, PREVIEW_LIMITS.listBytes)).ok);
  deepEqual(checkPreviewLists(lists(1, PREVIEW_LIMITS.listBytes + 1)), {
    ok: false,
    code: "preview_payload_too_large",
    limit: "list_bytes",
  });
  ok(checkPreviewLists(lists(4, PREVIEW_LIMITS.listBytes)).ok);
  deepEqual(
    checkPreviewLists({
      ...lists(4, PREVIEW_LIMITS.listBytes),
      "/v1/extra": "x",
    }),
    { ok: false, code: "preview_payload_too_large", limit: "total_bytes" },
  );
});
