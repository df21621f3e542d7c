// Autosave over HTTP: the editor's form kept as the person's working draft, offered back on return,
// restored pinned to the version it began on, dropped on save or discard; others see who edits.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { addPersonWith, setupDemo } from "./demo_helpers.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";

Deno.test("autosave keeps the form as a working draft, offers it back, restores it and drops it on save (ENT-017..ENT-019 in the admin)", async () => {
  const demo = await setupDemo();
  const { t } = demo;
  try {
    const { db } = t.services;
    const jar = new CookieJar();
    await signInAs(t, jar, { email: demo.email, password: PASSWORD });
    const posts = await db.selectFrom("models").select("id")
      .where("site_id", "=", demo.siteId).where("slug", "=", "posts")
      .executeTakeFirstOrThrow();
    const post = await db.selectFrom("entries")
      .select(["group_id", "slug", "current_version_id"])
      .where("site_id", "=", demo.siteId).where("model_id", "=", posts.id)
      .where("locale", "=", "en").executeTakeFirstOrThrow();
    const editorUrl = `/admin/content/posts/${post.group_id}?lang=en`;
    const page = await (await request(t, jar, editorUrl)).text();
    match(page, /name="draft_revision" id="draft-revision" value(="")?\/>/);
    match(page, /data-island="Autosave"|Autosave/);
    const csrf = csrfField(page);
    const form = {
      _csrf: csrf,
      action: "autosave",
      lang: "en",
      slug: post.slug,
      expected_current_version_id: post.current_version_id!,
      draft_revision: "",
      "f.title": "Typed but not saved",
      "f.category": "news",
    };
    const first = await request(
      t,
      jar,
      `/admin/content/posts/${post.group_id}/draft`,
      { form },
    );
    equal(first.status, 200);
    const kept = await first.json();
    equal(kept.ok, true);
    equal(kept.revision, 1);
    // The same page writing again without the revision it was given: refused, nothing lost.
    const stale = await request(
      t,
      jar,
      `/admin/content/posts/${post.group_id}/draft`,
      { form },
    );
    equal(stale.status, 409);
    equal((await stale.json()).code, "draft_conflict");
    const second = await request(
      t,
      jar,
      `/admin/content/posts/${post.group_id}/draft`,
      {
        form: { ...form, draft_revision: "1", "f.title": "Typed again" },
      },
    );
    equal((await second.json()).revision, 2);

    // Coming back: the editor offers the autosaved work.
    const back = await (await request(t, jar, editorUrl)).text();
    match(back, /Unsaved changes/);
    match(back, /draft=restore/);
    equal(/value="Typed again"/.test(back), false);
    const restored = await (await request(t, jar, `${editorUrl}&draft=restore`))
      .text();
    match(restored, /Your autosaved changes are back in the form/);
    match(restored, /value="Typed again"/);
    match(restored, /name="draft_revision" id="draft-revision" value="2"/);

    // Someone else opening the same language sees who edits, never what.
    await addPersonWith(demo, {
      email: "eve@example.com",
      displayName: "Eve",
      permissions: { models: { "*": ["read", "update"] }, system: [] },
    });
    const other = new CookieJar();
    await signInAs(t, other, { email: "eve@example.com", password: PASSWORD });
    const theirs = await (await request(t, other, editorUrl)).text();
    match(theirs, /ada@example.com is also editing this language/);
    equal(/Typed again/.test(theirs), false);

    // Saving the restored form makes a version and drops the draft.
    const saved = await request(t, jar, editorUrl.replace("?lang=en", ""), {
      form: {
        ...form,
        action: "save",
        "f.title": "Typed again",
        _csrf: csrfField(restored),
      },
    });
    equal(saved.status, 303, await saved.clone().text());
    const drafts = await db.selectFrom("entry_drafts").select("group_id")
      .where("group_id", "=", post.group_id).execute();
    deepEqual(drafts, []);

    // Discard: a draft written, then thrown away from the notice.
    await request(t, jar, `/admin/content/posts/${post.group_id}/draft`, {
      form: { ...form, draft_revision: "" },
    });
    const offered = await (await request(t, jar, editorUrl)).text();
    const discarded = await request(
      t,
      jar,
      `/admin/content/posts/${post.group_id}/draft`,
      {
        form: { _csrf: csrfField(offered), lang: "en", action: "discard" },
      },
    );
    equal(discarded.status, 303);
    ok(
      (await db.selectFrom("entry_drafts").select("group_id").execute())
        .length === 0,
    );
  } finally {
    await t.close();
  }
});
