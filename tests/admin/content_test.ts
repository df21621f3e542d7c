// The content admin over HTTP: entry lists, the editor's save, validation, conflicts, publish and bulk actions.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import {
  CookieJar,
  csrfField,
  HOST,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";
import { addPersonWith, setupDemo } from "./demo_helpers.ts";
import { DEMO_COUNTS } from "../../core/sites/demo_content.ts";
import { sql } from "kysely";

async function signedIn(email = "ada@example.com") {
  const demo = await setupDemo();
  const jar = new CookieJar();
  await signInAs(demo.t, jar, { email, password: PASSWORD });
  return { ...demo, jar };
}

function rowCount(html: string): number {
  return (html.match(/name="select"/g) ?? []).length;
}

Deno.test("the entry list shows posts with status and language columns, pages by cursor, filters by status", async () => {
  const { t, jar } = await signedIn();
  try {
    const first = await request(t, jar, "/admin/content/posts");
    equal(first.status, 200);
    const html = await first.text();
    match(html, /<h1>Posts<\/h1>/);
    equal(rowCount(html), 25);
    const next = /href="([^"]*cursor=[^"]*)" rel="next"/.exec(html);
    ok(next, "expected a next page link");
    const second = await (await request(
      t,
      jar,
      next[1].replaceAll("&amp;", "&"),
    )).text();
    equal(rowCount(second), DEMO_COUNTS.posts - 25);
    equal(/rel="next"/.test(second), false);
    // No entry appears on both pages.
    const ids = (page: string) =>
      [...page.matchAll(/value="([0-9a-f-]{36}):\d+"/g)].map((m) => m[1]);
    equal(new Set([...ids(html), ...ids(second)]).size, DEMO_COUNTS.posts);

    const drafts = await (await request(
      t,
      jar,
      "/admin/content/posts?status=draft&lang=en",
    )).text();
    equal(rowCount(drafts), DEMO_COUNTS.draftPosts);
    const german = await (await request(
      t,
      jar,
      "/admin/content/posts?lang=de&limit=100",
    )).text();
    equal(rowCount(german), DEMO_COUNTS.postsInGerman);
  } finally {
    await t.close();
  }
});

Deno.test("the entry list says what to do when empty, and when filters match nothing", async () => {
  const { t, jar } = await signedIn();
  try {
    const none = await (await request(
      t,
      jar,
      "/admin/content/posts?field=title&value=no-such-title-anywhere",
    )).text();
    match(none, /No entries match these filters/);
    match(none, /clear them<\/a> to see every entry/);
    const unknown = await request(t, jar, "/admin/content/nope");
    equal(unknown.status, 404);
    match(await unknown.text(), /<p class="status">404<\/p>/);
  } finally {
    await t.close();
  }
});

Deno.test("the editor creates a post, keeps typed values on a refusal and places the message on the field", async () => {
  const { t, jar } = await signedIn();
  try {
    const form = await (await request(t, jar, "/admin/content/posts/new"))
      .text();
    match(form, /<label for="field-title">Title/);
    const csrf = csrfField(form);
    // A slug another post holds: refused, the typed title kept, the message beside the slug.
    const taken = /\/admin\/content\/posts\/[0-9a-f-]{36}\?lang=en">/.exec(
      await (await request(t, jar, "/admin/content/posts")).text(),
    );
    ok(taken);
    const created = await request(t, jar, "/admin/content/posts/new", {
      form: {
        _csrf: csrf,
        action: "save",
        lang: "en",
        slug: "hello-stave",
        "f.title": "Hello Stave",
        expected_current_version_id: "",
      },
    });
    equal(created.status, 303);
    const location = created.headers.get("location")!;
    match(
      location,
      /^\/admin\/content\/posts\/[0-9a-f-]{36}\?lang=en&done=created$/,
    );
    const again = await request(t, jar, "/admin/content/posts/new", {
      form: {
        _csrf: csrf,
        action: "save",
        lang: "en",
        slug: "hello-stave",
        "f.title": "Typed again",
        expected_current_version_id: "",
      },
    });
    equal(again.status, 409);
    const refused = await again.text();
    match(
      refused,
      /id="error-_slug">Another entry of this model already uses this slug/,
    );
    match(refused, /value="Typed again"/);

    const editor = await (await request(t, jar, location)).text();
    match(editor, /Created as a draft\./);
    // The action bar's Publish saves the form, then publishes (issue 43).
    match(
      editor,
      /<button type="submit" name="action" value="save_publish" class="secondary">Publish en<\/button>/,
    );
  } finally {
    await t.close();
  }
});

Deno.test("saving a stale version shows both versions; keeping mine saves pinned to the version seen", async () => {
  const { t, jar } = await signedIn();
  try {
    const list =
      await (await request(t, jar, "/admin/content/posts?status=draft&lang=en"))
        .text();
    const href =
      /href="(\/admin\/content\/posts\/[0-9a-f-]{36})\?lang=en"/.exec(list)![1];
    const tab1 = await (await request(t, jar, `${href}?lang=en`)).text();
    const tab2 = await (await request(t, jar, `${href}?lang=en`)).text();
    const pin = (html: string) =>
      /name="expected_current_version_id" value="([^"]*)"/.exec(html)![1];
    const csrf = csrfField(tab1);
    const slug = /id="field-_slug" name="slug" value="([^"]*)"/.exec(tab1)![1];
    const first = await request(t, jar, href, {
      form: {
        _csrf: csrf,
        action: "save",
        lang: "en",
        slug,
        "f.title": "From tab one",
        expected_current_version_id: pin(tab1),
      },
    });
    equal(first.status, 303);
    const second = await request(t, jar, href, {
      form: {
        _csrf: csrf,
        action: "save",
        lang: "en",
        slug,
        "f.title": "From tab two",
        expected_current_version_id: pin(tab2),
      },
    });
    equal(second.status, 409);
    const conflict = await second.text();
    match(conflict, /Someone saved this entry while you edited/);
    match(
      conflict,
      /<pre>From tab two<\/pre><\/td><td><pre>From tab one<\/pre>/,
    );
    // The form now pins the version the person has seen: saving keeps theirs.
    const keep = await request(t, jar, href, {
      form: {
        _csrf: csrf,
        action: "save",
        lang: "en",
        slug,
        "f.title": "From tab two",
        expected_current_version_id: pin(conflict),
      },
    });
    equal(keep.status, 303);
    const after = await (await request(t, jar, `${href}?lang=en`)).text();
    match(after, /value="From tab two"/);
  } finally {
    await t.close();
  }
});

Deno.test("bulk publish reports a result per entry; a role without publish gets no publish button", async () => {
  const demo = await signedIn();
  const { t, jar } = demo;
  try {
    const list =
      await (await request(t, jar, "/admin/content/posts?status=draft&lang=en"))
        .text();
    const selected = [
      ...list.matchAll(/name="select" form="bulk" value="([^"]+)"/g),
    ]
      .map((m) => m[1]);
    equal(selected.length, DEMO_COUNTS.draftPosts);
    const body = new URLSearchParams({
      _csrf: csrfField(list),
      action: "publish",
      lang: "en",
    });
    for (const s of selected) body.append("select", s);
    // One pin is stale: that entry is refused, the others publish.
    const stale = selected[0].replace(/:(\d+)$/, (_, n) => `:${Number(n) + 5}`);
    body.set("select", stale);
    for (const s of selected.slice(1)) body.append("select", s);
    const res = await t.app.request(
      "/admin/content/posts?status=draft&lang=en",
      {
        method: "POST",
        headers: {
          host: "admin.example.com",
          accept: "text/html",
          cookie: jar.header()!,
          "content-type": "application/x-www-form-urlencoded",
        },
        body,
      },
    );
    equal(res.status, 200);
    const html = await res.text();
    match(
      html,
      new RegExp(
        `Publish: ${
          DEMO_COUNTS.draftPosts - 1
        } of ${DEMO_COUNTS.draftPosts} done`,
      ),
    );
    match(html, /result-refused/);

    await addPersonWith(demo, {
      email: "writer@example.com",
      displayName: "Wendy Writer",
      permissions: {
        models: { "*": ["read", "create", "update"] },
        system: [],
      },
    });
    const writer = new CookieJar();
    await signInAs(t, writer, {
      email: "writer@example.com",
      password: PASSWORD,
    });
    const href =
      /href="(\/admin\/content\/posts\/[0-9a-f-]{36}\?lang=en)"/.exec(list)![1];
    const editor = await (await request(t, writer, href)).text();
    match(editor, /Save draft/);
    equal(/Publish en/.test(editor), false);
    equal(/Move to Trash/.test(editor), false);
    deepEqual(/Settings<\/a>/.test(editor), false);
  } finally {
    await t.close();
  }
});

Deno.test("a save whose session has ended keeps every posted value and asks to sign in again", async () => {
  const { t, jar } = await signedIn();
  try {
    const form = await (await request(t, jar, "/admin/content/posts/new"))
      .text();
    const csrf = csrfField(form);
    // The session ends (signed out elsewhere); the CSRF cookie stays.
    jar.cookies.delete("stave_session");
    const res = await request(t, jar, "/admin/content/posts/new", {
      form: {
        _csrf: csrf,
        action: "save",
        lang: "en",
        slug: "kept",
        "f.title": "Words I typed",
      },
    });
    equal(res.status, 401);
    const html = await res.text();
    match(html, /Your session has ended/);
    match(
      html,
      /<input type="hidden" name="f\.title" value="Words I typed"\/>/,
    );
    match(html, /<input type="hidden" name="slug" value="kept"\/>/);
    match(html, /href="\/admin\/sign-in" target="_blank"/);
    equal(csrfField(html), jar.cookies.get("stave_csrf"));
    // Nothing was written.
    const rows = await t.services.db.selectFrom("entries").select("id")
      .where("slug", "=", "kept").execute();
    equal(rows.length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("the entry list sorts by title a page at a time and finds drafts by a piece of their title (ADM list, entries.list_title)", async () => {
  const { t, jar, siteId } = await signedIn();
  try {
    // The order the list must show: each post's title as its current version holds it.
    const expected = await t.services.db.selectFrom("entries as e")
      .innerJoin("entry_groups as g", "g.primary_entry_id", "e.id")
      .innerJoin("entry_versions as v", "v.id", "e.current_version_id")
      .innerJoin(
        "models as m",
        (j) => j.on(sql`m.id::text`, "=", sql.ref("e.model_id")),
      )
      .select([
        "e.list_title",
        "e.slug",
        "e.published_version_id",
        sql<string>`v.fields->>'title'`.as("title"),
      ])
      .where("e.site_id", "=", siteId).where("m.slug", "=", "posts")
      .where("g.trashed_at", "is", null)
      .orderBy("e.list_title").orderBy("e.group_id").execute();
    equal(expected.length, DEMO_COUNTS.posts);
    for (const row of expected) equal(row.list_title, row.title);
    const titlesOf = (html: string) =>
      [...html.matchAll(/aria-label="Select ([^"]*)"/g)].map((m) =>
        m[1].replaceAll("&#39;", "'").replaceAll("&quot;", '"')
          .replaceAll("&amp;", "&")
      );
    const seen: string[] = [];
    let path: string | null = "/admin/content/posts?sort=title&limit=10";
    while (path) {
      const html: string = await (await request(t, jar, path)).text();
      seen.push(...titlesOf(html));
      path = /href="([^"]*cursor=[^"]*)" rel="next"/.exec(html)?.[1]
        .replaceAll("&amp;", "&") ?? null;
    }
    deepEqual(seen, expected.map((r) => r.title));

    const draft = expected.find((r) => r.published_version_id === null)!;
    const piece = draft.title.slice(2, 9).toUpperCase();
    const found = titlesOf(
      await (await request(
        t,
        jar,
        `/admin/content/posts?q=${encodeURIComponent(piece)}`,
      )).text(),
    );
    ok(found.includes(draft.title), `${piece} should find ${draft.title}`);
    // The whole slug, in any case, finds the entry too (site search reads no drafts).
    const bySlug = await (await request(
      t,
      jar,
      `/admin/content/posts?q=${encodeURIComponent(draft.slug.toUpperCase())}`,
    )).text();
    ok(titlesOf(bySlug).includes(draft.title));
  } finally {
    await t.close();
  }
});

Deno.test("the editor's Preview makes a 30-minute link to the draft as the public API serves it, shown once and never in a redirect (PUB-037 from the editor)", async () => {
  const { t, jar } = await signedIn();
  try {
    const list = await (await request(
      t,
      jar,
      "/admin/content/posts?status=draft&lang=en",
    )).text();
    const href = /href="(\/admin\/content\/posts\/[0-9a-f-]{36})\?lang=en"/
      .exec(list)![1];
    const editor = await (await request(t, jar, `${href}?lang=en`)).text();
    match(editor, /<h2 id="preview-heading">Preview<\/h2>/);
    const slug = /name="slug"[^>]*value="([^"]+)"/.exec(editor)?.[1] ??
      /value="([^"]+)"[^>]*name="slug"/.exec(editor)![1];
    const read = (path: string) =>
      t.app.request(`http://${HOST}${path}`, { headers: { host: HOST } });
    equal((await read(`/v1/posts/${slug}?locale=en`)).status, 404);

    const made = await request(t, jar, `${href}?lang=en`, {
      form: { _csrf: csrfField(editor), action: "preview", lang: "en" },
    });
    equal(made.status, 201);
    const html = await made.text();
    const link = /href="(\/v1\/posts\/[^"]+preview=sv_prev_[^"]+)"/.exec(html);
    ok(link, "expected a preview link");
    match(html, /for 30 minutes/);
    const preview = await read(link[1].replaceAll("&amp;", "&"));
    equal(preview.status, 200);
    const body = await preview.json();
    equal(body.data.slug, slug);
    equal(body.data.published_at, null);
    // Nothing else carries the token: the token is stored only as a digest.
    const token = /preview=(sv_prev_[^"&]+)/.exec(link[1])![1];
    const stored = await t.services.db.selectFrom("preview_tokens")
      .select("digest").execute();
    equal(stored.some((r) => r.digest === token), false);
    // PUB-030: ticking the related-draft box mints a link carrying the grant.
    match(editor, /name="related_drafts"/);
    equal(
      (await t.services.db.selectFrom("preview_tokens")
        .select("draft_grant_id").executeTakeFirstOrThrow()).draft_grant_id,
      null,
    );
    const granted = await request(t, jar, `${href}?lang=en`, {
      form: {
        _csrf: csrfField(editor),
        action: "preview",
        lang: "en",
        related_drafts: "on",
      },
    });
    equal(granted.status, 201);
    match(await granted.text(), /including the drafts of linked items/);
    const grants = await t.services.db.selectFrom("preview_tokens")
      .select("draft_grant_id").where("draft_grant_id", "is not", null)
      .execute();
    equal(grants.length, 1);
  } finally {
    await t.close();
  }
});
