// The renderer over a real CMS served on 127.0.0.1, in process so its clock can be injected: the
// platform chrome components (`/v1/_chrome` reused at most 30 s), the search page's 404s.
import { equal, match, ok } from "node:assert/strict";
import { putMenu } from "../../core/chrome/menus.ts";
import { loadRendererConfig } from "../../services/renderer/config.ts";
import { createRenderer } from "../../services/renderer/server.ts";
import { builtInTemplate } from "../../services/renderer/template/builtin/mod.tsx";
import { type AuxWorld, openAuxWorld } from "../public_aux/helpers.ts";

/**
 * Serves the CMS app on 127.0.0.1 as the site's host would reach it: a proxy in front names the
 * site by its Host header, as a zone in front of the public host does.
 */
function serveCms(w: AuxWorld): { origin: string; close(): Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.set("host", w.host);
      return w.app.fetch(
        new Request(`http://${w.host}${url.pathname}${url.search}`, {
          method: request.method,
          headers,
          body: request.body,
        }),
      );
    },
  );
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    close: () => server.shutdown(),
  };
}

async function blog(w: AuxWorld) {
  const tags = await w.model({
    model: { name: "Tags", slug: "tags", enableI18n: true },
    fields: [{ key: "name", label: "Name", type: "text", localized: true }],
  });
  const tag = await w.save({
    model: tags,
    locale: "en",
    slug: "deno",
    fields: { name: "Deno" },
  });
  await w.publish(tag.group_id);
  const posts = await w.model({
    model: { name: "Posts", slug: "posts", enableI18n: true },
    fields: [
      { key: "title", label: "Title", type: "text", localized: true },
      {
        key: "category",
        label: "Category",
        type: "select",
        config: { options: [{ value: "news", label: "News" }] },
      },
      {
        key: "tags",
        label: "Tags",
        type: "relation",
        config: { targets: [tags], cardinality: "many-to-many" },
      },
    ],
  });
  for (const [n, title] of ["First light", "Second wind"].entries()) {
    w.clock.advance(86_400_000);
    const saved = await w.save({
      model: posts,
      locale: "en",
      slug: `post-${n + 1}`,
      fields: { title, category: "news", tags: n === 0 ? [tag.group_id] : [] },
    });
    await w.publish(saved.group_id);
  }
  return posts;
}

Deno.test({
  name:
    "TPL-031: navigation, footer and regions are drawn from /v1/_chrome; one renderer reuses an answer 30 s at most (PAUX-015 drawn)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const w = await openAuxWorld(["en"]);
    const cms = serveCms(w);
    try {
      await blog(w);
      ok(
        (await putMenu(w.services.db, w.siteId, "main", [
          { id: "a", label: { en: "Alpha" }, href: "/alpha" },
        ], w.clock.now())).ok,
      );
      await w.settings("chrome", {
        placements: { header: "main", footer: null },
        footer_note: { en: "Made with care" },
        regions: {
          footer: [
            { kind: "recent_posts", limit: 5 },
            { kind: "categories", field: "category" },
            { kind: "posts_by_month", title: { en: "By month" } },
            { kind: "tags", field: "tags" },
            { kind: "search" },
          ],
        },
      });
      let now = 1_000_000;
      const render = createRenderer({
        config: loadRendererConfig({ STAVE_API_URL: cms.origin }),
        template: builtInTemplate,
        siteUrl: "http://site.test",
        clock: () => now,
      });
      const page = async () => {
        const response = await render(new Request("http://site.test/posts"));
        equal(response.status, 200);
        return await response.text();
      };
      const first = await page();
      match(first, /<nav aria-label="Main">[\s\S]*href="\/alpha"[^>]*>Alpha</);
      match(first, /<p class="footer-note">Made with care<\/p>/);
      match(
        first,
        /<aside class="region region-footer" aria-label="Footer columns">/,
      );
      match(first, /<h2 id="r-footer-0-h">Recent posts<\/h2>/);
      match(first, /<a href="\/posts\/post-2">Second wind<\/a>/);
      match(
        first,
        /href="\/posts\/category\/news">News <span class="count">\(2\)/,
      );
      match(first, /<h2 id="r-footer-2-h">By month<\/h2>/);
      match(first, /<details><summary>[A-Z][a-z]+ \d{4}/);
      match(
        first,
        /<form class="region-search" method="get" action="\/search"/,
      );

      // The category and tag links lead to archives of their posts.
      const archive = async (path: string) => {
        const response = await render(new Request(`http://site.test${path}`));
        const page = await response.text();
        // Only the page's own content: the footer columns list posts too.
        const text = page.slice(page.indexOf("<main"), page.indexOf("</main>"));
        return { status: response.status, text };
      };
      const news = await archive("/posts/category/news");
      equal(news.status, 200);
      match(news.text, /<h1>News<\/h1>/);
      match(news.text, />First light</);
      match(news.text, />Second wind</);
      match(first, /href="\/posts\/tags\/deno">Deno <span class="count">\(1\)/);
      const deno = await archive("/posts/tags/deno");
      equal(deno.status, 200);
      match(deno.text, /<h1>Deno<\/h1>/);
      match(deno.text, />First light</);
      ok(!deno.text.includes(">Second wind<"));
      equal((await archive("/posts/nothing/here")).status, 404);

      // The menu changes: the same renderer keeps its answer until 30 s have passed.
      ok(
        (await putMenu(w.services.db, w.siteId, "main", [
          { id: "b", label: { en: "Beta" }, href: "/beta" },
        ], w.clock.now())).ok,
      );
      now += 29_999;
      match(await page(), />Alpha</);
      now += 1;
      const later = await page();
      match(later, />Beta</);
      ok(!later.includes(">Alpha<"));
    } finally {
      await cms.close();
      await w.close();
    }
  },
});

Deno.test({
  name:
    "SRCH-029: a generated site's search page answers 404 for a language the site does not have, and once search is switched off; the managed template keeps a page with a notice",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const w = await openAuxWorld(["en", "de"]);
    const cms = serveCms(w);
    try {
      let now = 5_000_000;
      const options = {
        config: loadRendererConfig({ STAVE_API_URL: cms.origin }),
        siteUrl: "http://site.test",
        clock: () => now,
      };
      // A generated site: the active release draws (as releaseTemplate() says).
      const render = createRenderer({
        ...options,
        template: {
          ...builtInTemplate,
          generated: () => Promise.resolve(true),
        },
      });
      const managed = createRenderer({ ...options, template: builtInTemplate });
      const status = async (path: string) => {
        const response = await render(new Request(`http://site.test${path}`));
        await response.body?.cancel();
        return response.status;
      };
      equal(await status("/search"), 200);
      equal(await status("/de/search"), 200);
      const on = await (await render(new Request("http://site.test/nowhere")))
        .text();
      match(on, /href="\/search"/);
      equal(await status("/xx/search"), 404);
      equal(await status("/fr/search"), 404);
      await w.settings("search", { enabled: false, types: [] });
      // Within the reuse window the renderer may still say search is on; after it, never.
      now += 30_000;
      equal(await status("/search"), 404);
      equal(await status("/de/search"), 404);
      const page = await render(new Request("http://site.test/search?q=hello"));
      equal(page.status, 404);
      const notFound = await page.text();
      match(notFound, /<title>Page not found · /);
      // No link leads to the search page while it is off.
      ok(!notFound.includes('href="/search"'), notFound);
      const notice = await managed(
        new Request("http://site.test/search?q=hello"),
      );
      equal(notice.status, 200);
      match(await notice.text(), /class="notice"|role="status"/);
      equal(
        (await managed(new Request("http://site.test/xx/search"))).status,
        404,
      );
    } finally {
      await cms.close();
      await w.close();
    }
  },
});

Deno.test({
  name:
    "DLV-014: the release's SEO defaults shape head tags; a page-level override is read from the published version at request time",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const w = await openAuxWorld(["en"]);
    const cms = serveCms(w);
    try {
      const posts = await w.model({
        model: { name: "Posts", slug: "posts", enableI18n: true },
        fields: [
          { key: "title", label: "Title", type: "text", localized: true },
          { key: "seo_title", label: "SEO title", type: "text" },
        ],
      });
      const saved = await w.save({
        model: posts,
        locale: "en",
        slug: "launch",
        fields: { title: "Launch" },
      });
      await w.publish(saved.group_id);
      let now = 0;
      const render = createRenderer({
        config: loadRendererConfig({ STAVE_API_URL: cms.origin }),
        // The active release's defaults, as releaseTemplate() answers them.
        template: {
          ...builtInTemplate,
          seoDefaults: () =>
            Promise.resolve({
              title_template: "{title} | Acme",
              default_description: "Notes from Acme",
            }),
        },
        siteUrl: "http://site.test",
        clock: () => now,
      });
      const head = async () =>
        await (await render(new Request("http://site.test/posts/launch")))
          .text();
      const first = await head();
      match(first, /<title>Launch \| Acme<\/title>/);
      match(first, /<meta name="description" content="Notes from Acme"\/>/);
      await w.save({
        group: saved.group_id,
        locale: "en",
        slug: "launch",
        fields: { title: "Launch", seo_title: "We launched" },
      });
      // Saved but not published: the live version still speaks, read afresh.
      now += loadRendererConfig({}).pageReuseMs;
      match(await head(), /<title>Launch \| Acme<\/title>/);
      await w.publish(saved.group_id);
      // Published: the first request after the page reuse window shows it, with no new release.
      now += loadRendererConfig({}).pageReuseMs;
      match(await head(), /<title>We launched<\/title>/);
    } finally {
      await cms.close();
      await w.close();
    }
  },
});
