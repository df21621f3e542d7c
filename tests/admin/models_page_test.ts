// The model editor over HTTP: the change-safety assessment is shown before anything is saved.
import { equal, match } from "node:assert/strict";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";
import { setupDemo } from "./demo_helpers.ts";

/** The form as a browser would post it: text inputs, the checked boxes, text areas and selects. */
function formOf(html: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = {};
  const add = (name: string, value: string) => {
    const had = form[name];
    form[name] = had === undefined
      ? value
      : [...(Array.isArray(had) ? had : [had]), value];
  };
  for (const m of html.matchAll(/<input ([^>]*)\/?>/g)) {
    const attrs = m[1];
    const name = /name="([^"]+)"/.exec(attrs)?.[1];
    if (!name) continue;
    const isBox = /type="checkbox"/.test(attrs);
    if (isBox && !/\bchecked\b/.test(attrs)) continue;
    const value = /value="([^"]*)"/.exec(attrs)?.[1];
    add(name, value === undefined ? (isBox ? "on" : "") : unescape(value));
  }
  for (const m of html.matchAll(/<textarea ([^>]*)>([^<]*)<\/textarea>/g)) {
    const name = /name="([^"]+)"/.exec(m[1])?.[1];
    if (name) add(name, unescape(m[2]));
  }
  for (const m of html.matchAll(/<select ([^>]*)>(.*?)<\/select>/gs)) {
    const name = /name="([^"]+)"/.exec(m[1])?.[1];
    const options = [...m[2].matchAll(/<option ([^>]*)>/g)].map((o) => o[1]);
    const chosen = options.find((o) => /\bselected\b/.test(o)) ?? options[0];
    const value = chosen && /value="([^"]*)"/.exec(chosen)?.[1];
    if (name && value !== undefined) add(name, unescape(value));
  }
  return form;
}

function unescape(text: string): string {
  return text.replaceAll("&quot;", '"').replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

Deno.test("the model editor shows what a change would do to existing content and offers no save when it cannot survive (MOD change safety)", async () => {
  const demo = await setupDemo();
  const { t } = demo;
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: demo.email, password: PASSWORD });
    const posts = await t.services.db.selectFrom("models").select([
      "id",
      "revision",
    ])
      .where("site_id", "=", demo.siteId).where("slug", "=", "posts")
      .executeTakeFirstOrThrow();
    const page = await (await request(t, jar, `/admin/models/${posts.id}`))
      .text();
    const form = formOf(page);
    const field = await t.services.db.selectFrom("model_fields").select("id")
      .where("model_id", "=", posts.id).where("key", "=", "cover")
      .executeTakeFirstOrThrow();
    // Most posts have no cover image: making it required cannot be saved.
    const review = await request(t, jar, `/admin/models/${posts.id}`, {
      form: {
        ...form,
        _csrf: csrfField(page),
        [`required.${field.id}`]: "on",
        step: "review",
      },
    });
    equal(review.status, 200);
    const html = await review.text();
    match(html, /Existing content cannot survive this change as it is/);
    equal(/Save the model/.test(html), false);
    const after = await t.services.db.selectFrom("models").select("revision")
      .where("id", "=", posts.id).executeTakeFirstOrThrow();
    equal(after.revision, posts.revision);

    // A harmless change reviews clean and saves at the revision read.
    const clean = await request(t, jar, `/admin/models/${posts.id}`, {
      form: {
        ...form,
        _csrf: csrfField(page),
        "new.key": "subtitle",
        "new.label": "Subtitle",
        "new.type": "text",
        step: "save",
      },
    });
    equal(clean.status, 303);
    const saved = await t.services.db.selectFrom("model_fields").select("key")
      .where("model_id", "=", posts.id).where("key", "=", "subtitle")
      .execute();
    equal(saved.length, 1);
  } finally {
    await t.close();
  }
});
