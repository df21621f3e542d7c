// The page editor (/admin/content/{model}/{id}/sections) without script: sections listed, edited
// through a form per type, added at a position, moved, duplicated and removed, each as a draft
// version through the lifecycle service; refusals beside their control, nothing half-written
// (issue 15, point 7; PAGE rows of the page document, MCR-013 pages:write through the admin).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { setupDemo } from "./demo_helpers.ts";
import {
  addMember,
  CookieJar,
  csrfField,
  insertPerson,
  PASSWORD,
  request,
  setMemberPermissions,
  signInAs,
} from "./helpers.ts";
import type { TestApp } from "../support/app.ts";

function decode(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll(
      "&amp;",
      "&",
    );
}

function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? decode(m[1]) : null;
}

/** What a browser would post from the form `id` of `html` (submit buttons left out). */
function formOf(html: string, id: string): Record<string, string> {
  const start = html.indexOf(`<form method="post" id="${id}"`);
  ok(start >= 0, `no form #${id}`);
  const body = html.slice(start, html.indexOf("</form>", start));
  const form: Record<string, string> = {};
  for (const m of body.matchAll(/<input\b[^>]*>/g)) {
    const name = attr(m[0], "name");
    const type = attr(m[0], "type") ?? "text";
    if (!name || type === "submit") continue;
    if (type === "checkbox" && !/\schecked(\s|=|\/|>)/.test(m[0])) continue;
    form[name] = attr(m[0], "value") ?? "";
  }
  for (const m of body.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)) {
    const name = attr(m[1], "name");
    if (name) form[name] = decode(m[2]);
  }
  for (const m of body.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
    const name = attr(m[1], "name");
    if (!name) continue;
    const chosen = /<option\b[^>]*\sselected[^>]*>/.exec(m[2]) ??
      /<option\b[^>]*>/.exec(m[2]);
    form[name] = chosen ? attr(chosen[0], "value") ?? "" : "";
  }
  return form;
}

async function pageDocument(
  t: TestApp,
  siteId: string,
  slug: string,
  locale: string,
) {
  const row = await t.services.db.selectFrom("entries as e")
    .innerJoin("entry_versions as v", "v.id", "e.current_version_id")
    .select(["v.fields", "e.group_id", "e.current_version_id"])
    .where("e.site_id", "=", siteId).where("e.slug", "=", slug)
    .where("e.locale", "=", locale).executeTakeFirstOrThrow();
  const fields = row.fields as {
    slides: {
      sections: { id: string; type: string }[];
      props: Record<string, Record<string, unknown>>;
    };
  };
  return {
    groupId: row.group_id,
    versionId: row.current_version_id,
    doc: fields.slides,
    ids: fields.slides.sections.map((s) => s.id),
  };
}

async function openDemo() {
  const demo = await setupDemo();
  const jar = new CookieJar();
  await signInAs(demo.t, jar, { email: demo.email, password: PASSWORD });
  const home = await pageDocument(demo.t, demo.siteId, "home", "en");
  const url = `/admin/content/pages/${home.groupId}/sections`;
  return { ...demo, jar, home, url };
}

Deno.test("the page editor lists a language's sections with a structure preview, and edits one section through its own form (PAGE editor, point 7)", async () => {
  const demo = await openDemo();
  const { t, jar, url } = demo;
  try {
    const list = await request(t, jar, `${url}?lang=en`);
    equal(list.status, 200);
    const html = await list.text();
    match(html, /<h1[^>]*>Sections of “Home”<\/h1>/);
    for (const id of demo.home.ids) {
      match(html, new RegExp(`id="section-${id}"`));
    }
    match(html, /value="-1" disabled aria-label="Move “[^”]+” up"/);
    match(html, /Structure preview/);
    match(html, /6 of 60 sections/);
    // Both languages are tabs; German is the page's own document.
    match(html, /href="[^"]*\/sections\?lang=de"/);

    const form = await (await request(t, jar, `${url}?lang=en&edit=hero`))
      .text();
    match(form, /Edit section: Hero/);
    match(form, /<label for="sf-f-heading">Heading<span class="required-mark"/);
    match(form, /Required · Up to 300 characters/);
    const posted = formOf(form, "section-form");
    equal(posted["s.id"], "hero");
    equal(posted["s.layout"], "media_side=end");
    posted["f.heading"] = "Content that travels";
    posted["f.subheading"] = "Say it **once**, publish it *everywhere*.";
    const saved = await request(t, jar, url, {
      form: { ...posted, action: "save" },
    });
    equal(saved.status, 303);
    match(saved.headers.get("location")!, /done=saved#section-hero$/);
    const after = await pageDocument(t, demo.siteId, "home", "en");
    ok(after.versionId !== demo.home.versionId, "a new draft version");
    deepEqual(after.ids, demo.home.ids);
    equal(after.doc.props.hero.heading, "Content that travels");
    equal(
      after.doc.props.hero.subheading,
      "Say it **once**, publish it *everywhere*.",
      "a subheading is plain text: only paragraphs take marks",
    );
    // Everything else is as it was: the form reads back what it showed.
    const { heading: _h, subheading: _s, ...rest } = after.doc.props.hero;
    const { heading: _h0, subheading: _s0, ...was } = demo.home.doc.props.hero;
    deepEqual(rest, was);
    for (const id of demo.home.ids.filter((i) => i !== "hero")) {
      deepEqual(after.doc.props[id], demo.home.doc.props[id], id);
    }
    // The other language is untouched: props are per language.
    const de = await pageDocument(t, demo.siteId, "start", "de");
    ok(de.doc.props.hero.heading !== "Content that travels");
  } finally {
    await demo.t.close();
  }
});

Deno.test("a refused section keeps what was typed, with the parser's message beside the field; limits at their edge; nothing is written (PAGE editor)", async () => {
  const demo = await openDemo();
  const { t, jar, url } = demo;
  try {
    const form = formOf(
      await (await request(t, jar, `${url}?lang=en&edit=next`)).text(),
      "section-form",
    );
    equal(form["f.items.count"], "2");
    const refused = await request(t, jar, url, {
      form: {
        ...form,
        action: "save",
        "f.heading": "x".repeat(301),
        "f.items.1.title": "",
      },
    });
    equal(refused.status, 422);
    const html = await refused.text();
    match(html, /This section needs attention/);
    match(
      html,
      /id="sf-f-heading"[^>]*aria-invalid="true"[\s\S]*?<p class="field-error" id="sf-f-heading-error">&quot;heading&quot; is at most 300 characters<\/p>/,
    );
    // What was typed stays.
    match(html, new RegExp(`value="${"x".repeat(301)}"`));
    deepEqual(
      (await pageDocument(t, demo.siteId, "home", "en")).versionId,
      demo.home.versionId,
    );
    // Heading fixed at its edge; the emptied title is refused on its own control.
    const again = await request(t, jar, url, {
      form: {
        ...formOf(html, "section-form"),
        action: "save",
        "f.heading": "x".repeat(300),
      },
    });
    equal(again.status, 422);
    match(
      await again.text(),
      /<p class="field-error" id="sf-f-items-1-title-error">&quot;title&quot; is required<\/p>/,
    );
    const ok300 = await request(t, jar, url, {
      form: {
        ...form,
        action: "save",
        "f.heading": "x".repeat(300),
      },
    });
    equal(ok300.status, 303);
    equal(
      (await pageDocument(t, demo.siteId, "home", "en")).doc.props.next.heading,
      "x".repeat(300),
    );
  } finally {
    await demo.t.close();
  }
});

Deno.test("sections are added at a position with rows added without saving, then moved, duplicated and removed (PAGE editor)", async () => {
  const demo = await openDemo();
  const { t, jar, url } = demo;
  try {
    const blank = await (await request(t, jar, `${url}?lang=en&add=faq&at=1`))
      .text();
    match(blank, /New section: Questions and answers/);
    let form = formOf(blank, "section-form");
    equal(form["s.id"], "faq");
    equal(form["f.items.count"], "0");
    // "Add to items" shows the form again with a row; nothing is saved yet.
    const withRow = await request(t, jar, url, {
      form: { ...form, action: "add_row:f.items:", "f.heading": "Asked" },
    });
    equal(withRow.status, 200);
    const rowHtml = await withRow.text();
    form = formOf(rowHtml, "section-form");
    equal(form["f.items.count"], "1");
    equal(form["f.heading"], "Asked");
    deepEqual(
      (await pageDocument(t, demo.siteId, "home", "en")).versionId,
      demo.home.versionId,
    );
    const added = await request(t, jar, url, {
      form: {
        ...form,
        action: "save",
        "f.items.0.question": "Does it work without script?",
        "f.items.0.answer": "Yes.",
      },
    });
    equal(added.status, 303);
    match(added.headers.get("location")!, /done=added#section-faq$/);
    let now = await pageDocument(t, demo.siteId, "home", "en");
    deepEqual(now.ids, ["hero", "faq", ...demo.home.ids.slice(1)]);
    deepEqual(now.doc.props.faq, {
      heading: "Asked",
      items: [{ question: "Does it work without script?", answer: "Yes." }],
    });

    // Every later action posts the form of its own row.
    const page = await (await request(t, jar, `${url}?lang=en`)).text();
    const csrf = csrfField(page);
    const act = (fields: Record<string, string>, version: string) =>
      request(t, jar, url, {
        form: {
          _csrf: csrf,
          lang: "en",
          expected_current_version_id: version,
          ...fields,
        },
      });
    const moved = await act(
      { action: "move", section: "faq", to: "3" },
      now.versionId!,
    );
    equal(moved.status, 303);
    now = await pageDocument(t, demo.siteId, "home", "en");
    deepEqual(now.ids.slice(0, 4), ["hero", "features", "next", "faq"]);

    const copied = await act(
      { action: "duplicate", section: "next" },
      now.versionId!,
    );
    equal(copied.status, 303);
    match(copied.headers.get("location")!, /#section-next-copy$/);
    now = await pageDocument(t, demo.siteId, "home", "en");
    deepEqual(now.ids.slice(2, 4), ["next", "next-copy"]);
    deepEqual(now.doc.props["next-copy"], now.doc.props.next);

    const removed = await act(
      { action: "remove", section: "next" },
      now.versionId!,
    );
    equal(removed.status, 303);
    now = await pageDocument(t, demo.siteId, "home", "en");
    ok(!now.ids.includes("next"));
    ok(!("next" in now.doc.props));

    // A stale pin changes nothing: someone saved in between.
    const stale = await act(
      { action: "remove", section: "hero" },
      demo.home.versionId!,
    );
    equal(stale.status, 409);
    match(await stale.text(), /Someone saved this page after you opened it/);
    ok((await pageDocument(t, demo.siteId, "home", "en")).ids.includes("hero"));

    // A section gone since the page was shown.
    const gone = await act(
      { action: "move", section: "nope", to: "0" },
      now.versionId!,
    );
    equal(gone.status, 409);
  } finally {
    await demo.t.close();
  }
});

Deno.test("a section saved over a newer version is shown again pinned to it, and a second save applies it to the newest page (PAGE editor)", async () => {
  const demo = await openDemo();
  const { t, jar, url } = demo;
  try {
    const mine = formOf(
      await (await request(t, jar, `${url}?lang=en&edit=questions`)).text(),
      "section-form",
    );
    // Someone else removes another section first.
    const page = await (await request(t, jar, `${url}?lang=en`)).text();
    equal(
      (await request(t, jar, url, {
        form: {
          _csrf: csrfField(page),
          lang: "en",
          expected_current_version_id: demo.home.versionId!,
          action: "remove",
          section: "features",
        },
      })).status,
      303,
    );
    const conflict = await request(t, jar, url, {
      form: { ...mine, action: "save", "f.heading": "Mine" },
    });
    equal(conflict.status, 409);
    const html = await conflict.text();
    match(html, /Your section is below, not saved yet/);
    const again = formOf(html, "section-form");
    equal(again["f.heading"], "Mine");
    const saved = await request(t, jar, url, {
      form: { ...again, action: "save" },
    });
    equal(saved.status, 303);
    const now = await pageDocument(t, demo.siteId, "home", "en");
    equal(now.doc.props.questions.heading, "Mine");
    ok(!now.ids.includes("features"), "the other person's change stays");
  } finally {
    await demo.t.close();
  }
});

Deno.test("a role that may only read sees the sections without controls, and a posted change is refused with 403 (PAGE editor, MCR-013)", async () => {
  const demo = await openDemo();
  const { t, url } = demo;
  try {
    const email = "reader@example.com";
    const userId = await insertPerson(t.services.db, {
      email,
      password: PASSWORD,
    });
    await addMember(t.services.db, { siteId: demo.siteId, userId });
    await setMemberPermissions(t.services.db, userId, {
      models: { "*": ["read"] },
      system: [],
    });
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    const html = await (await request(t, jar, `${url}?lang=en`)).text();
    match(html, /may read this page's sections but not change them/);
    equal(/action" value="remove"/.test(html), false);
    equal(/Add a section/.test(html), false);
    const refused = await request(t, jar, url, {
      form: {
        _csrf: csrfField(html),
        lang: "en",
        expected_current_version_id: demo.home.versionId!,
        action: "remove",
        section: "hero",
      },
    });
    equal(refused.status, 403);
    deepEqual(
      (await pageDocument(t, demo.siteId, "home", "en")).versionId,
      demo.home.versionId,
    );
  } finally {
    await demo.t.close();
  }
});

Deno.test("a shared section offers only the types it may hold, and a page's shared reference names a live shared item (PAGE editor, shared sections)", async () => {
  const demo = await openDemo();
  const { t, jar } = demo;
  try {
    const footer = await pageDocument(t, demo.siteId, "footer", "en");
    const sharedUrl =
      `/admin/content/shared_section/${footer.groupId}/sections`;
    const html = await (await request(t, jar, `${sharedUrl}?lang=en`)).text();
    match(html, /2 of 6 sections/);
    equal(/<option value="form">/.test(html), false);
    equal(/<option value="shared">/.test(html), false);
    equal((await request(t, jar, `${sharedUrl}?lang=en&add=form`)).status, 200);

    const pageHtml = await (await request(
      t,
      jar,
      `${demo.url}?lang=en&edit=footer`,
    )).text();
    const form = formOf(pageHtml, "section-form");
    equal(form["s.shared"], footer.groupId);
    match(
      pageHtml,
      new RegExp(`<option value="${footer.groupId}" selected>Footer</option>`),
    );
    const refused = await request(t, jar, demo.url, {
      form: { ...form, action: "save", "s.shared": "" },
    });
    equal(refused.status, 422);
    match(
      await refused.text(),
      /id="sf-s-shared-error"/,
    );
  } finally {
    await demo.t.close();
  }
});
