// The renderer as its own process reading a real CMS process over HTTP (issue 41): pages, posts,
// search, sitemaps, redirects, error pages and a form posted without JavaScript.
import { equal, match, ok } from "node:assert/strict";
import { manage, startDemoSite } from "./support.ts";
import { CookieJar, csrfField } from "../admin/helpers.ts";

async function get(origin: string, path: string) {
  const response = await fetch(origin + path, { redirect: "manual" });
  return {
    status: response.status,
    headers: response.headers,
    text: await response.text(),
  };
}

Deno.test({
  name:
    "renderer process draws the demo site from a CMS process over HTTP only",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const site = await startDemoSite();
    const r = site.renderer.origin;
    try {
      const seo = await manage(site, "GET", "/settings/seo");
      equal(seo.status, 200, JSON.stringify(seo.body));
      const data = seo.body as {
        revision: number;
        document: Record<string, unknown>;
      };
      const put = await manage(site, "PUT", "/settings/seo", {
        expected_revision: data.revision,
        document: {
          ...data.document,
          redirects: [
            { from: "/old-about", match: "exact", status: 301, to: "/about" },
            {
              from: "/archive/{rest*}",
              match: "pattern",
              status: 308,
              to: "/posts/{rest}",
            },
            { from: "/gone", match: "exact", status: 410, to: null },
            { from: "/withheld", match: "exact", status: 451, to: null },
          ],
        },
      });
      equal(put.status, 200, JSON.stringify(put.body));

      await t.step(
        "home page: the demo's sections, SEO head, no script",
        async () => {
          const home = await get(r, "/");
          equal(home.status, 200);
          match(home.text, /<h1 id="h-hero">Content that stays in shape<\/h1>/);
          match(home.text, /<title>Home · Demo<\/title>/);
          match(
            home.text,
            /<link rel="canonical" href="http:\/\/localhost:\d+\/"/,
          );
          match(
            home.text,
            /<link rel="alternate" hreflang="de" href="http:\/\/localhost:\d+\/de"/,
          );
          match(
            home.text,
            /<details><summary>Can editors preview drafts\?<\/summary>/,
          );
          ok(
            !home.text.includes("<script"),
            "a page without interaction ships no JavaScript",
          );
          equal(home.headers.get("cache-control"), "no-cache");
          equal((await get(r, "/home")).headers.get("location"), "/");
        },
      );

      await t.step(
        "the home page of another language is the home page's translation",
        async () => {
          const de = await get(r, "/de");
          equal(de.status, 200);
          match(de.text, /<html lang="de">/);
          match(
            de.text,
            /<link rel="canonical" href="http:\/\/localhost:\d+\/de"/,
          );
          // Its own address leads to the language root.
          const own = await get(r, "/de/start");
          equal(own.status, 308);
          equal(own.headers.get("location"), "/de");
        },
      );

      await t.step("posts index and a post", async () => {
        const list = await get(r, "/posts");
        equal(list.status, 200);
        const href = /<a class="card-link" href="(\/posts\/[^"]+)"/.exec(
          list.text,
        )?.[1];
        ok(href, "the index links its posts");
        match(list.text, /Older posts/);
        const post = await get(r, href!);
        equal(post.status, 200);
        match(post.text, /<article class="wrap narrow post s">/);
        match(post.text, /<meta property="og:type" content="article"/);
      });

      await t.step(
        "search page is not indexed and answers suggestions (SRCH-027, SRCH-031)",
        async () => {
          const page = await get(r, "/search?q=preview");
          equal(page.status, 200);
          equal(page.headers.get("x-robots-tag"), "noindex"); // SRCH-027
          match(page.text, /<meta name="robots" content="noindex"/);
          match(
            page.text,
            /<ol class="results"><li><h2 class="h3"><a href="\/posts\//,
          );
          const suggest = await fetch(`${r}/search?suggest=pre&locale=en`); // SRCH-031
          const body = await suggest.json() as { data: { href: string }[] };
          ok(
            body.data.length > 0 &&
              body.data.every((h) => h.href.startsWith("/")),
          );
        },
      );

      await t.step(
        "with search switched off the search page still loads, with a notice (SRCH-028)",
        async () => {
          const search = await manage(site, "GET", "/settings/search");
          const doc = search.body as {
            revision: number;
            document: Record<string, unknown>;
          };
          const off = await manage(site, "PUT", "/settings/search", {
            expected_revision: doc.revision,
            document: { ...doc.document, enabled: false },
          });
          equal(off.status, 200, JSON.stringify(off.body));
          const page = await get(r, "/search?q=preview");
          equal(page.status, 200);
          match(
            page.text,
            /<p class="notice" role="status">Search is switched off on this site\.<\/p>/,
          );
          const on = await manage(site, "PUT", "/settings/search", {
            expected_revision: (off.body as { revision: number }).revision,
            document: doc.document,
          });
          equal(on.status, 200, JSON.stringify(on.body));
        },
      );

      await t.step(
        "robots.txt and sitemaps come from the sitemap route (DLV-017)",
        async () => {
          const robots = await get(r, "/robots.txt");
          match(robots.text, /Disallow: \/search\n/);
          match(robots.text, /Sitemap: http:\/\/localhost:\d+\/sitemap\.xml/);
          const index = await get(r, "/sitemap.xml");
          match(
            index.text,
            /<loc>http:\/\/localhost:\d+\/sitemap-pages-1\.xml<\/loc>/,
          );
          ok(
            !index.text.includes("sitemap-tags-1"),
            "only models the template gives addresses",
          );
          const pages = await get(r, "/sitemap-pages-1.xml");
          match(pages.text, /<loc>http:\/\/localhost:\d+\/<\/loc>/);
          match(
            pages.text,
            /hreflang="de" href="http:\/\/localhost:\d+\/de"/,
          );
          equal((await get(r, "/sitemap-pages-2.xml")).status, 404);
        },
      );

      await t.step(
        "redirects when no page matches; 410, 451 and 404 error pages (DLV-015)",
        async () => {
          const moved = await get(r, "/old-about");
          equal(moved.status, 301);
          equal(moved.headers.get("location"), "/about");
          const pattern = await get(r, "/archive/a/b");
          equal(pattern.status, 308);
          equal(pattern.headers.get("location"), "/posts/a/b");
          const gone = await get(r, "/gone");
          equal(gone.status, 410);
          match(gone.text, /This page is gone/);
          equal((await get(r, "/withheld")).status, 451);
          const missing = await get(r, "/no-such-page");
          equal(missing.status, 404);
          match(missing.text, /Page not found/);
        },
      );

      await t.step(
        "malformed paths get no lookup (rule 9, DLV-016)",
        async () => {
          for (
            const path of [
              "/a%2Fb",
              "/a%5Cb",
              "/%E0%A4%A",
              "/a%00b",
              "/%2e%2e%2fadmin",
            ]
          ) {
            equal((await get(r, path)).status, 400, path);
          }
        },
      );

      await t.step(
        "a form posted without JavaScript is stored and the page says so",
        async () => {
          const home = await get(r, "/");
          const hidden = (name: string) =>
            new RegExp(`name="${name}" value="([^"]*)"`).exec(home.text)?.[1] ??
              "";
          const form = new FormData();
          for (
            const name of [
              "action",
              "page",
              "locale",
              "section",
              "key",
              "return",
            ]
          ) {
            form.set(name, hidden(name));
          }
          form.set("values.name", "Ada");
          form.set("values.email", "ada@example.com");
          form.set("values.message", "Hello from the renderer test");
          form.set("consent", "true");
          form.set("website", "");
          const sent = await fetch(`${r}/v1/interactions/form.submit`, {
            method: "POST",
            body: form,
            redirect: "manual",
          });
          await sent.body?.cancel();
          equal(sent.status, 303);
          const location = sent.headers.get("location")!;
          equal(location, "/?form=contact&sent=1#contact");
          const after = await get(r, location.replace(/#.*/, ""));
          match(
            after.text,
            /<p class="form-success" role="status">Thank you\. We will be in touch soon\.<\/p>/,
          );
          const refused = new FormData();
          for (
            const name of ["action", "page", "locale", "section", "return"]
          ) {
            refused.set(name, hidden(name));
          }
          refused.set("key", "too-short");
          const bad = await fetch(`${r}/v1/interactions/form.submit`, {
            method: "POST",
            body: refused,
            redirect: "manual",
          });
          await bad.body?.cancel();
          equal(
            bad.headers.get("location"),
            "/?form=contact&error=interaction_invalid#contact",
          );
        },
      );

      await t.step(
        "the admin's preview opens the rendered draft: not indexed, not kept, forms disabled (FORM-013)",
        async () => {
          const home = await (await fetch(`${site.api}/v1/pages/home`)).json();
          const id = home.data.id as string;
          const page = await manage(site, "GET", `/pages/${id}`);
          const en = (page.body.locales as Record<
            string,
            {
              current_version_id: string;
              document: { props: Record<string, Record<string, unknown>> };
            }
          >).en;
          en.document.props.hero.heading = "A draft hero nobody sees yet";
          const saved = await manage(site, "POST", `/pages/${id}/save`, {
            locale: "en",
            expected_current_version_id: en.current_version_id,
            document: en.document,
          });
          equal(saved.status, 200, JSON.stringify(saved.body));
          // Signed in as the demo administrator, as an editor would be.
          const jar = new CookieJar();
          const signIn = await fetch(`${site.api}/admin/sign-in`);
          jar.store(signIn);
          const signedIn = await fetch(`${site.api}/admin/sign-in`, {
            method: "POST",
            redirect: "manual",
            headers: {
              cookie: jar.header()!,
              "content-type": "application/x-www-form-urlencoded",
            },
            body: new URLSearchParams({
              _csrf: csrfField(await signIn.text()),
              email: "admin@example.com",
              password: site.password,
            }),
          });
          await signedIn.body?.cancel();
          equal(signedIn.status, 303);
          jar.store(signedIn);
          const pages = await fetch(`${site.api}/admin/pages`, {
            headers: { cookie: jar.header()! },
          });
          const opened = await fetch(`${site.api}/admin/pages`, {
            method: "POST",
            headers: {
              cookie: jar.header()!,
              "content-type": "application/x-www-form-urlencoded",
            },
            body: new URLSearchParams({
              _csrf: csrfField(await pages.text()),
              id,
            }),
          });
          equal(opened.status, 201);
          const href =
            /href="(http:\/\/localhost:\d+\/\?preview=sv_prev_[^"]+)"[^>]*>\s*Open the rendered en page/
              .exec(await opened.text())?.[1];
          ok(href, "the preview offers the rendered page");
          ok(href!.startsWith(r), "on the renderer's address");
          const preview = await fetch(href!.replaceAll("&amp;", "&"));
          equal(preview.status, 200);
          equal(preview.headers.get("cache-control"), "no-store");
          const html = await preview.text();
          match(html, /A draft hero nobody sees yet/);
          match(html, /<meta name="robots" content="noindex"/);
          match(html, /This form is shown disabled in a preview/);
          match(
            html,
            /<button class="btn btn-primary" type="submit" disabled>/,
          );
          ok(
            !(await get(r, "/")).text.includes("A draft hero"),
            "visitors get the published page",
          );
        },
      );

      await t.step(
        "a publication shows at the next request: pages are read every time",
        async () => {
          const about = await (await fetch(`${site.api}/v1/pages/about`))
            .json();
          const id = about.data.id as string;
          const page = await manage(site, "GET", `/pages/${id}`);
          equal(page.status, 200, JSON.stringify(page.body));
          const en = (page.body.locales as Record<
            string,
            {
              current_version_id: string;
              document: { props: Record<string, Record<string, unknown>> };
            }
          >).en;
          en.document.props.story.heading = "About Stave, freshly published";
          const saved = await manage(site, "POST", `/pages/${id}/save`, {
            locale: "en",
            expected_current_version_id: en.current_version_id,
            document: en.document,
          });
          equal(saved.status, 200, JSON.stringify(saved.body));
          const savedLocales = saved.body.locales as Record<
            string,
            { current_version_id?: string }
          >;
          ok(
            !(await get(r, "/about")).text.includes("freshly published"),
            "a draft is not shown",
          );
          const published = await manage(
            site,
            "POST",
            `/entries/${id}/publish`,
            {
              locale: "en",
              expected_current_version_id:
                savedLocales.en?.current_version_id ??
                  saved.body.current_version_id,
              expected_workflow_revision: saved.body.revision,
            },
          );
          equal(published.status, 200, JSON.stringify(published.body));
          const started = performance.now();
          const shown = await get(r, "/about");
          match(shown.text, /About Stave, freshly published/);
          ok(
            performance.now() - started < 1000,
            "within a second of publication",
          );
        },
      );
    } finally {
      await site.close();
    }
  },
});
