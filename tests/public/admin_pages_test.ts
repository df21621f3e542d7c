// Admin → Pages: each language's document structure, and a preview button minting an sv_prev_
// token whose link shows the current draft (AUTH-013, PUB-036).
import { equal, ok } from "node:assert/strict";
import { CookieJar, csrfField, request, signInAs } from "../admin/helpers.ts";
import { openPublicWorld } from "./helpers.ts";

Deno.test("/admin/pages shows page structures and opens previews of drafts (AUTH-013)", async () => {
  // With the library images the home page's hero can be presented in a preview (PUB-037).
  const w = await openPublicWorld({}, { media: true });
  try {
    const anonymous = await w.app.request("/admin/pages", {
      headers: { host: "localhost", accept: "text/html" },
    });
    equal(anonymous.status, 303);
    const note = await Deno.readTextFile(
      `${w.services.config.dataDir}/demo-admin.txt`,
    );
    const email = /email: (.+)/.exec(note)![1];
    const password = /password: (.+)/.exec(note)![1];
    const jar = new CookieJar();
    await signInAs(w, jar, { email, password, host: "localhost" });
    const list = await request(w, jar, "/admin/pages", { host: "localhost" });
    equal(list.status, 200);
    const html = await list.text();
    ok(html.includes("<code>hero</code> — Content that stays in shape"));
    ok(html.includes("<code>shared</code>"));
    ok(html.includes("de: /start"));
    const home = await w.groupId("pages", "home");
    const opened = await request(w, jar, "/admin/pages", {
      host: "localhost",
      form: { _csrf: csrfField(html), id: home },
    });
    equal(opened.status, 201);
    const answer = await opened.text();
    const links = [...answer.matchAll(/href="(\/v1\/pages\/[^"]+)"/g)].map((
      m,
    ) => m[1].replaceAll("&amp;", "&"));
    equal(links.length, 2);
    ok(/preview=sv_prev_[A-Za-z0-9_-]{43}/.test(links[0]));
    const preview = await w.get(links[0]);
    equal(preview.status, 200);
    equal(preview.headers.get("cache-control"), "no-store, private");
    const body = await preview.json();
    equal(body.data.fields.slides.sections[0].type, "hero");
    const missing = await request(w, jar, "/admin/pages", {
      host: "localhost",
      form: { _csrf: csrfField(html), id: crypto.randomUUID() },
    });
    equal(missing.status, 404);
  } finally {
    await w.close();
  }
});
