// Page documents in delivery and at save and publish: the demo's home page served under the
// contract it claims, shared sections expanded and refused (spec 3 parts 2.2, 4.3, 7; inventory
// PAGE-001, PAGE-049 to PAGE-055, PAGE-057, PUB-006, PUB-037).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { publishEntry, saveEntry } from "../../core/entries/mod.ts";
import type { LifecycleOutcome } from "../../core/entries/types.ts";
import { parsePageDocument } from "../../core/pages/mod.ts";
import { exampleFooter } from "../../core/pages/example.ts";
import { mintPreviewToken } from "../../core/public/preview_tokens.ts";
import { openPublicWorld, type PublicWorld } from "./helpers.ts";

type Json = Record<string, unknown>;

const plain = (id: string, type: string, extra: Json = {}) => ({
  id,
  type,
  variant: "default",
  layout: "default",
  component: null,
  ...extra,
});

function sharedRef(id: string, entry: string) {
  return plain(id, "shared", { shared: { entry } });
}

async function savePage(
  w: PublicWorld,
  model: string,
  slug: string,
  slides: unknown,
): Promise<LifecycleOutcome> {
  return await saveEntry(w.ctx(), {
    model_id: await w.modelId(model),
    locale: "en",
    slug,
    fields: { title: slug, slides },
    expected_current_version_id: null,
  });
}

function problem(outcome: LifecycleOutcome): { code: string; path: string } {
  ok(!outcome.ok, "expected a refusal");
  if (outcome.ok || outcome.code !== "field_validation_failed") {
    throw new Error(JSON.stringify(outcome));
  }
  const first =
    (outcome as unknown as { errors: { code: string; path: string }[] })
      .errors[0];
  return { code: first.code, path: first.path };
}

async function count(w: PublicWorld, table: "entries" | "entry_versions") {
  const r = await w.services.db.selectFrom(table).select(
    sql<number>`count(*)::int`.as("n"),
  ).where("site_id", "=", w.siteId).executeTakeFirstOrThrow();
  return r.n;
}

Deno.test("GET /v1/pages serves the demo home page expanded under the contract it claims (PAGE-001, PAGE-050, PAGE-052, PUB-006, PAGE-057)", async () => {
  const w = await openPublicWorld();
  try {
    const footer = await w.groupId("shared_section", "footer");
    const res = await w.get("/v1/pages/home");
    equal(res.status, 200);
    const body = await res.json();
    equal(body.contracts.page.served, 5); // PUB-004: a page item carries `contracts`
    equal(body.data.page_contract.required, 5);
    const slides = body.data.fields.slides;
    deepEqual(
      slides.sections.map((s: Json) => s.id),
      [
        "hero",
        "features",
        "next",
        "questions",
        "contact",
        "footer.0",
        "footer.1",
      ],
    );
    equal(slides.props["footer.0"].heading, "Stave");
    // What a renderer receives parses with the page contract and holds no shared reference.
    const parsed = parsePageDocument(slides, { purpose: "deliver" });
    ok(parsed.ok, JSON.stringify(parsed));
    ok(res.headers.get("cache-tag")!.split(",").includes(`instance:${footer}`));

    const de = await (await w.get("/v1/pages/start?locale=de")).json();
    equal(
      de.data.fields.slides.props.hero.heading,
      "Inhalte, die in Form bleiben",
    );
    equal(
      de.data.fields.slides.props["footer.0"].paragraphs[0],
      (exampleFooter("de").props.about.paragraphs as string[])[0],
    );

    // A list answer expands too, and tags every shared section it embeds.
    const list = await w.get("/v1/pages");
    const listed = await list.json();
    for (const item of listed.data) {
      equal(item.page_contract.required, 5);
      ok(parsePageDocument(item.fields.slides, { purpose: "deliver" }).ok);
    }
    ok(
      list.headers.get("cache-tag")!.split(",").includes(`instance:${footer}`),
    );
    // The shared section model itself is private.
    equal((await w.get("/v1/shared_section")).status, 404);
  } finally {
    await w.close();
  }
});

Deno.test("a changed shared section changes every page answer that embeds it at the next read (PAGE-052)", async () => {
  const w = await openPublicWorld();
  try {
    const before = await (await w.get("/v1/pages/about")).json();
    equal(before.data.fields.slides.props["footer.0"].heading, "Stave");
    const footer = await w.groupId("shared_section", "footer");
    const doc = exampleFooter("en");
    (doc.props.about as Json).heading = "Stave CMS";
    const current = await w.services.db.selectFrom("entries").select(
      "current_version_id",
    ).where("group_id", "=", footer).where("locale", "=", "en")
      .executeTakeFirstOrThrow();
    const saved = await saveEntry(w.ctx(), {
      group_id: footer,
      locale: "en",
      fields: { title: "Footer", slides: doc },
      expected_current_version_id: current.current_version_id,
    });
    ok(saved.ok, JSON.stringify(saved));
    // Saved but not published: pages still show the published footer.
    equal(
      (await (await w.get("/v1/pages/about")).json()).data.fields.slides
        .props["footer.0"].heading,
      "Stave",
    );
    const published = await publishEntry(w.ctx(), {
      group_id: footer,
      locale: "en",
      expected_current_version_id: saved.current_version_id,
      expected_workflow_revision: saved.revision,
    });
    ok(published.ok, JSON.stringify(published));
    for (const path of ["/v1/pages/about", "/v1/pages/home"]) {
      const after = await (await w.get(path)).json();
      equal(after.data.fields.slides.props["footer.0"].heading, "Stave CMS");
    }
  } finally {
    await w.close();
  }
});

Deno.test("saving a page refuses a broken document with the parser's code at its path, storing nothing (PAGE-002, PAGE-015)", async () => {
  const w = await openPublicWorld();
  try {
    const before = await count(w, "entry_versions");
    const bad = await savePage(w, "pages", "broken", {
      format: 2,
      sections: [plain("h", "hero")],
      props: {
        h: { heading: "Hi", secondary_link: { label: "x", href: "/x" } },
      },
    });
    deepEqual(problem(bad), {
      code: "invalid_slide",
      path: "slides.props.h.secondary_link",
    });
    deepEqual(
      problem(
        await savePage(w, "pages", "four", {
          format: 4,
          sections: [],
          props: {},
        }),
      ),
      { code: "unreadable_page", path: "slides.format" },
    );
    equal(await count(w, "entry_versions"), before);
  } finally {
    await w.close();
  }
});

Deno.test("shared-section refusals at save and publish (PAGE-049, PAGE-053, PAGE-054)", async () => {
  const w = await openPublicWorld();
  try {
    const footer = await w.groupId("shared_section", "footer");
    const rich = (i: number) => plain(`r${i}`, "rich_text");
    const richProps = (n: number) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`r${i}`, { paragraphs: ["p"] }]),
      );
    // A shared section holds at most six supported sections and no reference.
    ok(
      (await savePage(w, "shared_section", "six", {
        format: 2,
        sections: Array.from({ length: 6 }, (_, i) => rich(i)),
        props: richProps(6),
      })).ok,
    );
    deepEqual(
      problem(
        await savePage(w, "shared_section", "seven", {
          format: 2,
          sections: Array.from({ length: 7 }, (_, i) => rich(i)),
          props: richProps(7),
        }),
      ),
      { code: "shared_section_too_many", path: "slides.sections" },
    );
    deepEqual(
      problem(
        await savePage(w, "shared_section", "nested", {
          format: 2,
          sections: [sharedRef("f", footer)],
          props: { f: {} },
        }),
      ),
      { code: "shared_section_nested", path: "slides.sections[0].type" },
    );
    deepEqual(
      problem(
        await savePage(w, "shared_section", "search", {
          format: 2,
          sections: [plain("s", "form")],
          props: {
            s: {
              fields: [{
                name: "a",
                kind: "text",
                label: "A",
                required: false,
                help: null,
                options: [],
              }],
              submit_label: "Go",
              success_text: "Done",
            },
          },
        }),
      ),
      {
        code: "shared_section_type_unsupported",
        path: "slides.sections[0].type",
      },
    );
    // A reference names a shared section, never a page or a post.
    const post = await w.groupId(
      "posts",
      "caching-at-the-edge-without-stale-pages",
    );
    deepEqual(
      problem(
        await savePage(w, "pages", "post-ref", {
          format: 2,
          sections: [sharedRef("f", post)],
          props: { f: {} },
        }),
      ),
      {
        code: "shared_section_not_routable",
        path: "slides.sections[0].shared.entry",
      },
    );
    deepEqual(
      problem(
        await savePage(w, "pages", "ghost-ref", {
          format: 2,
          sections: [sharedRef("f", crypto.randomUUID())],
          props: { f: {} },
        }),
      ),
      {
        code: "shared_section_not_live",
        path: "slides.sections[0].shared.entry",
      },
    );
    // A reference to a saved but unpublished shared section saves, but does not publish.
    const draft = await savePage(w, "shared_section", "draft-footer", {
      format: 2,
      sections: [rich(0)],
      props: richProps(1),
    });
    ok(draft.ok);
    const page = await savePage(w, "pages", "uses-draft", {
      format: 2,
      sections: [sharedRef("f", draft.group_id)],
      props: { f: {} },
    });
    ok(page.ok, JSON.stringify(page));
    const refused = await publishEntry(w.ctx(), {
      group_id: page.group_id,
      expected_current_version_id: page.current_version_id,
      expected_workflow_revision: page.revision,
    });
    deepEqual(problem(refused), {
      code: "shared_section_not_live",
      path: "slides.sections[0].shared.entry",
    });
    equal((await w.get("/v1/pages/uses-draft")).status, 404);
    // Expanded, a page stays within 60 sections: 55 own sections and the six of a shared one.
    const six = await w.groupId("shared_section", "six");
    const sixEntry = await w.services.db.selectFrom("entry_groups").select([
      "current_version_id",
      "revision",
    ]).where("id", "=", six).executeTakeFirstOrThrow();
    ok(
      (await publishEntry(w.ctx(), {
        group_id: six,
        expected_current_version_id: sixEntry.current_version_id,
        expected_workflow_revision: sixEntry.revision,
      })).ok,
    );
    const big = (own: number) => ({
      format: 2,
      sections: [
        ...Array.from({ length: own }, (_, i) => rich(i)),
        sharedRef("f", six),
      ],
      props: { ...richProps(own), f: {} },
    });
    ok((await savePage(w, "pages", "fifty-four", big(54))).ok);
    deepEqual(problem(await savePage(w, "pages", "fifty-five", big(55))), {
      code: "shared_section_page_limit",
      path: "slides.sections",
    });
  } finally {
    await w.close();
  }
});

Deno.test("delivery never hands out part of a page: one refused section, or an unreadable shared section, withholds the whole document (PAGE-055)", async () => {
  const w = await openPublicWorld();
  try {
    const about = await w.groupId("pages", "about");
    const footer = await w.groupId("shared_section", "footer");
    const before = await (await w.get("/v1/pages/about")).json();
    equal(before.data.fields.slides.sections.length, 3);
    // Only the renderer-facing copy breaks, as a document stored under older rules would.
    const breakPublished = async (groupId: string, path: string) =>
      await sql`update public_items set fields = jsonb_set(fields,
        ${path}::text[], '[]'::jsonb)
        where site_id = ${w.siteId} and group_id = ${groupId}`.execute(
        w.services.db,
      );
    await breakPublished(about, "{slides,props,story,paragraphs}");
    const res = await w.get("/v1/pages/about");
    equal(res.status, 200);
    const body = await res.json();
    // The footer sections are fine, yet nothing of the page is served beside the refusal.
    equal(body.data.fields.slides, null);
    equal(body.data.page_contract.required, null);
    equal(body.data.page_contract.error.code, "invalid_slide");
    equal(
      body.data.page_contract.error.detail.path,
      "$.props.story.paragraphs",
    );
    // A list withholds that page alone.
    const listed = await (await w.get("/v1/pages")).json();
    for (const item of listed.data) {
      if (item.id === about) {
        equal(item.fields.slides, null);
        equal(item.page_contract.error.code, "invalid_slide");
      } else {
        ok(parsePageDocument(item.fields.slides, { purpose: "deliver" }).ok);
      }
    }
    // A shared section that cannot be read withholds every page embedding it, not just itself.
    await breakPublished(footer, "{slides,props,about,paragraphs}");
    const home = await (await w.get("/v1/pages/home")).json();
    equal(home.data.fields.slides, null);
    equal(home.data.page_contract.required, null);
    equal(home.data.page_contract.error.code, "shared_section_unexpanded");
  } finally {
    await w.close();
  }
});

Deno.test("a preview of a page whose document cannot be read answers 422 unreadable_page (PUB-037)", async () => {
  const w = await openPublicWorld();
  try {
    const groupId = await w.groupId("pages", "about");
    const { token } = await mintPreviewToken(
      { db: w.services.db, clock: w.clock },
      { siteId: w.siteId, groupId, personId: w.adminId },
    );
    equal((await w.get(`/v1/pages/about?preview=${token}`)).status, 200);
    // A document stored before the parser existed (the old demo seed's shape).
    await sql`update entry_versions set fields = jsonb_set(fields, '{slides}',
      '[{"heading":"Old","text":"shape"}]'::jsonb)
      where site_id = ${w.siteId} and group_id = ${groupId}`.execute(
      w.services.db,
    );
    const res = await w.get(`/v1/pages/about?preview=${token}`);
    equal(res.status, 422);
    const body = await res.json();
    equal(body.error.reason, "unreadable_page");
    ok(body.error.message.length > 0);
  } finally {
    await w.close();
  }
});
