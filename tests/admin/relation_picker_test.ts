// The relation picker's search over HTTP: target entries by title or slug, only readable ones,
// only for a relation field of the model; the editor renders the picker around a plain select.
import { deepEqual, equal, match } from "node:assert/strict";
import { addPersonWith, setupDemo } from "./demo_helpers.ts";
import { CookieJar, PASSWORD, request, signInAs } from "./helpers.ts";

Deno.test("the relation picker searches the target model by title or slug, case and wildcards taken literally, readable entries only", async () => {
  const demo = await setupDemo();
  const { t } = demo;
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: demo.email, password: PASSWORD });
    const search = async (field: string, q: string, j = jar) => {
      const response = await request(
        t,
        j,
        `/admin/content/posts/choices?field=${field}&q=${
          encodeURIComponent(q)
        }`,
      );
      return { status: response.status, body: await response.json() };
    };
    const byTitle = await search("tags", "SECU");
    equal(byTitle.status, 200);
    deepEqual(byTitle.body.choices.map((c: { label: string }) => c.label), [
      "Security",
    ]);
    const bySlug = await search("tags", "typescr");
    deepEqual(bySlug.body.choices.map((c: { label: string }) => c.label), [
      "TypeScript",
    ]);
    deepEqual((await search("tags", "%")).body.choices, []);
    deepEqual((await search("tags", "")).body.choices, []);
    const authors = await search("author", "a");
    equal(authors.body.choices.length > 0, true);
    equal((await search("title", "x")).status, 404);
    equal((await search("nope", "x")).status, 404);
    const editor = await (await request(t, jar, "/admin/content/posts/new"))
      .text();
    match(editor, /data-island="RelationPicker"/);
    match(editor, /<select id="field-tags" name="f.tags" multiple/);

    // Someone who may read posts but not tags finds no tags.
    const posts = await t.services.db.selectFrom("models").select("id")
      .where("site_id", "=", demo.siteId).where("slug", "=", "posts")
      .executeTakeFirstOrThrow();
    await addPersonWith(demo, {
      email: "rita@example.com",
      displayName: "Rita",
      permissions: { models: { [posts.id]: ["read", "update"] }, system: [] },
    });
    const rita = new CookieJar();
    await signInAs(t, rita, { email: "rita@example.com", password: PASSWORD });
    deepEqual((await search("tags", "secu", rita)).body.choices, []);
  } finally {
    await t.close();
  }
});
