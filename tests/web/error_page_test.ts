// The styled error page's way back never leads to the page that just failed (issue 44 item 6).
import { equal, match, ok } from "node:assert/strict";
import { openTestApp } from "../support/app.ts";
import { insertSite } from "../support/sites.ts";

const html = { accept: "text/html" };

Deno.test("a 404 for a host that names no site offers no link back to the admin (which is as missing) and says where to go; a missing admin page links to the admin (PAUX-001)", async () => {
  const t = await openTestApp();
  try {
    await insertSite(t.services.db, { domain: "blog.example.com" });
    for (const path of ["/admin", "/admin/", "/admin/people"]) {
      const res = await t.app.request(path, {
        headers: { ...html, host: "127.0.0.1:8000" },
      });
      equal(res.status, 404, path);
      const page = await res.text();
      match(page, /<h1>Page not found<\/h1>/);
      match(page, /Code: <code>unknown_host<\/code>/);
      ok(!/<a [^>]*href=/.test(page), `${path} links on: ${page}`);
      match(page, /Host names/);
      match(page, /this request named 127\.0\.0\.1:8000/);
    }
    // A host name is echoed escaped.
    const odd = await t.app.request("/admin", {
      headers: { ...html, host: "a<b" },
    });
    ok(!(await odd.text()).includes("a<b"));

    // On a site, a missing admin page leads back to the admin, which exists.
    const missing = await t.app.request("/admin/nothing-here", {
      headers: { ...html, host: "blog.example.com" },
    });
    equal(missing.status, 404);
    const page = await missing.text();
    match(page, /href="\/admin">Back to the admin</);
  } finally {
    await t.close();
  }
});
