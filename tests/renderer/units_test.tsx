// The renderer's parts on their own: paths, redirects, reuse windows, settings, platform components.
import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { malformedPath, routeOf } from "../../services/renderer/paths.ts";
import { matchRedirect } from "../../services/renderer/redirects.ts";
import { MAX_REUSE_MS, Reuse } from "../../services/renderer/reuse.ts";
import { loadRendererConfig } from "../../services/renderer/config.ts";
import { PublicApi } from "../../services/renderer/api.ts";
import { Image } from "../../services/renderer/template/builtin/components/image.tsx";
import { PlatformForm } from "../../services/renderer/template/builtin/components/form.tsx";
import { richTextHtml } from "../../services/renderer/template/builtin/components/rich_text.tsx";
import { builtInTemplate } from "../../services/renderer/template/builtin/mod.tsx";
import { SECTION_TYPE_NAMES } from "../../core/pages/mod.ts";
import { everySectionView } from "./every_section.ts";

Deno.test("malformedPath() refuses each malformed kind and lets ordinary paths through (rule 9)", () => {
  equal(malformedPath("/a%2Fb"), "encoded_slash");
  equal(malformedPath("/a%2fb"), "encoded_slash");
  equal(malformedPath("/a%5Cb"), "backslash");
  equal(malformedPath("/a\\b"), "backslash");
  equal(malformedPath("/%E0%A4%A"), "undecodable");
  equal(malformedPath("/a%00b"), "control_character");
  equal(malformedPath("/a%7Fb"), "control_character");
  equal(malformedPath("/a/%2e%2e/b"), "dot_segment");
  equal(malformedPath("/a/%2E/b"), "dot_segment");
  equal(malformedPath("/"), null);
  equal(malformedPath("/de/%C3%BCber-uns"), null);
  equal(malformedPath("/posts/a..b"), null);
});

Deno.test("routeOf() names robots, the sitemap and its chunks; anything else is content", () => {
  deepEqual(routeOf("/robots.txt"), { kind: "robots" });
  deepEqual(routeOf("/sitemap.xml"), { kind: "sitemap" });
  deepEqual(routeOf("/sitemap-posts-2.xml"), {
    kind: "sitemap_chunk",
    model: "posts",
    number: 2,
  });
  deepEqual(routeOf("/sitemap-posts-0.xml"), {
    kind: "content",
    segments: ["sitemap-posts-0.xml"],
  });
  deepEqual(routeOf("/de/%C3%BCber"), {
    kind: "content",
    segments: ["de", "über"],
  });
});

Deno.test("matchRedirect(): exact beats pattern, most literal segments wins, rest values fill `to`", () => {
  const rules = [
    {
      from: "/blog/{slug}",
      match: "pattern" as const,
      status: 301 as const,
      to: "/posts/{slug}",
    },
    {
      from: "/blog/old/{slug}",
      match: "pattern" as const,
      status: 302 as const,
      to: "/x/{slug}",
    },
    {
      from: "/docs/{rest*}",
      match: "pattern" as const,
      status: 308 as const,
      to: "/guide/{rest}",
    },
    {
      from: "/blog/old/one",
      match: "exact" as const,
      status: 307 as const,
      to: "/one",
    },
    { from: "/gone", match: "exact" as const, status: 410 as const, to: null },
  ];
  deepEqual(matchRedirect(rules, "/blog/old/one"), {
    status: 307,
    location: "/one",
  });
  deepEqual(matchRedirect(rules, "/blog/old/two"), {
    status: 302,
    location: "/x/two",
  });
  deepEqual(matchRedirect(rules, "/blog/three"), {
    status: 301,
    location: "/posts/three",
  });
  deepEqual(matchRedirect(rules, "/docs/a/b"), {
    status: 308,
    location: "/guide/a/b",
  });
  deepEqual(matchRedirect(rules, "/gone"), { status: 410, location: null });
  equal(matchRedirect(rules, "/docs"), null);
  equal(matchRedirect(rules, "/blog/a/b/c"), null);
});

Deno.test("Reuse keeps an answer 30 s at most: the last millisecond reuses, the 30th second reloads", async () => {
  let now = 1_000;
  let loads = 0;
  const reuse = new Reuse<number>(MAX_REUSE_MS, () => now);
  const load = () => Promise.resolve(++loads);
  equal(await reuse.get("en", load), 1);
  now += MAX_REUSE_MS - 1;
  equal(await reuse.get("en", load), 1);
  now += 1;
  equal(await reuse.get("en", load), 2);
  equal(await reuse.get("de", load), 3);
  throws(() => new Reuse(MAX_REUSE_MS + 1, () => now), /at most 30000/);
});

Deno.test("Reuse refreshes a half-window-old answer behind the reader; a failed refresh keeps it until its window ends", async () => {
  let now = 0;
  let loads = 0;
  let fail = false;
  const reuse = new Reuse<number>(MAX_REUSE_MS, () => now);
  const load = () => {
    loads++;
    return fail ? Promise.reject(new Error("down")) : Promise.resolve(loads);
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  equal(await reuse.get("en", load), 1);
  now = MAX_REUSE_MS / 2;
  fail = true;
  equal(await reuse.get("en", load), 1);
  await settle();
  equal(loads, 2);
  equal(await reuse.get("en", load), 1);
  equal(loads, 3);
  fail = false;
  await settle();
  equal(await reuse.get("en", load), 1);
  await settle();
  equal(loads, 4);
  equal(await reuse.get("en", load), 4);
  now = MAX_REUSE_MS / 2 + MAX_REUSE_MS;
  equal(await reuse.get("en", load), 5);
});

Deno.test("Reuse forgets a failed load, so the next request asks again", async () => {
  const reuse = new Reuse<number>(MAX_REUSE_MS, () => 0);
  await reuse.get("k", () => Promise.reject(new Error("down"))).catch(() => {});
  equal(await reuse.get("k", () => Promise.resolve(7)), 7);
});

Deno.test("Reuse with no window shares a load in flight and loads again once it settled", async () => {
  let loads = 0;
  let finish!: (n: number) => void;
  const reuse = new Reuse<number>(0, () => 0);
  const load = () => {
    loads++;
    return new Promise<number>((resolve) => finish = resolve);
  };
  const first = reuse.get("k", load);
  const second = reuse.get("k", load);
  finish(1);
  deepEqual(await Promise.all([first, second]), [1, 1]);
  equal(loads, 1);
  const third = reuse.get("k", load);
  finish(2);
  equal(await third, 2);
  equal(loads, 2);
});

Deno.test("a page or post read serves every visitor for RENDERER_PAGE_REUSE_MS (1 s by default, 0 to 30,000), never a preview", async () => {
  let now = 0;
  const asked: string[] = [];
  const fetcher = (input: string | URL | Request) => {
    const url = new URL(input instanceof Request ? input.url : input);
    asked.push(url.pathname + url.search);
    return Promise.resolve(
      Response.json({
        data: { id: "p1", slug: "home", fields: { n: asked.length } },
      }),
    );
  };
  const api = new PublicApi("http://localhost:1", {
    clock: () => now,
    fetch: fetcher as typeof fetch,
    singleReuseMs: loadRendererConfig({}).pageReuseMs,
  });
  const n = async (options = {}) => {
    const { body } = await api.single("pages", "home", options);
    return body.data ? Number(body.data.fields.n) : -1;
  };
  // A yield to the event loop lets a background read land (no time passes).
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  equal(await n(), 1);
  now = 499;
  equal(await n(), 1);
  equal(asked.length, 1);
  // Half the window old: served as kept while one read refreshes it behind.
  now = 500;
  equal(await n(), 1);
  equal(await n(), 1);
  await settle();
  equal(asked.length, 2);
  equal(await n(), 2);
  // A full window after the refresh started, the reader waits for a new read.
  now = 1_500;
  equal(await n(), 3);
  equal(await n({ locale: "de" }), 4);
  equal(await n({ preview: "t" }), 5);
  equal(await n({ preview: "t" }), 6);
  equal(asked.length, 6);
  equal(loadRendererConfig({ RENDERER_PAGE_REUSE_MS: "0" }).pageReuseMs, 0);
  equal(
    loadRendererConfig({ RENDERER_PAGE_REUSE_MS: "30000" }).pageReuseMs,
    30_000,
  );
  throws(
    () => loadRendererConfig({ RENDERER_PAGE_REUSE_MS: "30001" }),
    /setting RENDERER_PAGE_REUSE_MS/,
  );
});

Deno.test("loadRendererConfig(): development defaults; production needs the release settings", () => {
  const dev = loadRendererConfig({});
  equal(dev.port, 8002);
  equal(dev.apiUrl, "http://localhost:8000");
  deepEqual(dev.transformOrigins, []);
  throws(
    () =>
      loadRendererConfig({
        RENDERER_ENVIRONMENT: "production",
        SITE_URL: "https://a.example",
      }),
    /production needs MANAGED_RENDER_DEPLOY_SERVICE_URL, MANAGED_RENDER_DEPLOY_SERVICE_KEY, MANAGED_RENDER_INSTALLATION_ID, MANAGED_RENDER_HMAC_KEY/,
  );
  const release = {
    RENDERER_ENVIRONMENT: "production",
    SITE_URL: "https://a.example",
    MANAGED_RENDER_DEPLOY_SERVICE_URL: "https://deploy.example",
    MANAGED_RENDER_DEPLOY_SERVICE_KEY: "k".repeat(32),
    MANAGED_RENDER_INSTALLATION_ID: "abc",
    MANAGED_RENDER_HMAC_KEY: "h".repeat(32),
  };
  equal(loadRendererConfig(release).installationId, "abc");
  throws(
    () =>
      loadRendererConfig({
        ...release,
        MANAGED_RENDER_DEPLOY_SERVICE_KEY: "k".repeat(31),
      }),
    /MANAGED_RENDER_DEPLOY_SERVICE_KEY/,
  );
  throws(
    () =>
      loadRendererConfig({ ...release, MANAGED_RENDER_INSTALLATION_ID: "ab" }),
    /MANAGED_RENDER_INSTALLATION_ID/,
  );
  throws(
    () =>
      loadRendererConfig({
        ...release,
        MANAGED_RENDER_DEPLOY_SERVICE_URL: "https://deploy.example/path",
      }),
    /MANAGED_RENDER_DEPLOY_SERVICE_URL/,
  );
  throws(
    () =>
      loadRendererConfig({
        MANAGED_IMAGE_TRANSFORM_ORIGINS: "http://img.example",
      }),
    /MANAGED_IMAGE_TRANSFORM_ORIGINS/,
  );
  deepEqual(
    loadRendererConfig({
      MANAGED_IMAGE_TRANSFORM_ORIGINS: "https://a.example, https://b.example/",
    }).transformOrigins,
    ["https://a.example", "https://b.example"],
  );
});

Deno.test("TPL-029: Image applies focal point and crop, and draws srcset from the first transform host", () => {
  const source = {
    url: "https://cms.example/media/a.png",
    alt: "A boat",
    crop: { x: 0.1, y: 0.2, width: 0.5, height: 0.5 },
    focal: { x: 0.25, y: 0.75 },
  };
  const plain = renderToString(
    <Image source={source} origins={[]} sizes="100vw" />,
  );
  match(plain, /src="https:\/\/cms.example\/media\/a.png"/);
  match(plain, /object-position:\s*25% 75%/);
  match(plain, /object-view-box:\s*inset\(20% 40% 30% 10%\)/);
  ok(!plain.includes("srcset"));
  const hosted = renderToString(
    <Image
      source={source}
      origins={["https://img.example", "https://other.example"]}
      sizes="50vw"
    />,
  );
  match(
    hosted,
    /srcset="https:\/\/img\.example\/image\?url=https%3A%2F%2Fcms\.example%2Fmedia%2Fa\.png&amp;w=320&amp;crop=0\.1%2C0\.2%2C0\.5%2C0\.5&amp;fx=0\.25&amp;fy=0\.75 320w, /,
  );
  match(hosted, /w=1920[^"]* 1920w"/);
  match(hosted, /sizes="50vw"/);
  ok(!hosted.includes("other.example"));
  ok(
    !hosted.includes("object-view-box"),
    "the host crops; the browser does not crop again",
  );
});

Deno.test("PlatformForm posts multipart to /v1/interactions/form.submit; previews draw it disabled (FORM-013)", () => {
  const props = {
    pageId: "aff3380c-1eaf-43b0-86b5-26ab5cb1560c",
    locale: "en",
    section: "contact",
    fields: [{
      name: "email",
      kind: "email" as const,
      label: "Email",
      required: true,
      help: null,
      options: [],
    }],
    consent: null,
    submitLabel: "Send",
    successText: "Thanks",
    returnTo: "/",
    formKey: "k".repeat(32),
    outcome: null,
  };
  const live = renderToString(<PlatformForm {...props} disabled={false} />);
  match(
    live,
    /<form class="form" method="post" action="\/v1\/interactions\/form.submit" enctype="multipart\/form-data">/,
  );
  match(live, /name="values.email" type="email"/);
  ok(!live.includes("disabled"));
  const preview = renderToString(<PlatformForm {...props} disabled />);
  match(preview, /<input id="f-contact-email" required disabled/);
  match(preview, /<button class="btn btn-primary" type="submit" disabled>/);
});

Deno.test("richTextHtml() moves a plugin block into an opaque sandboxed frame (PEXT-004)", () => {
  const values = JSON.stringify({
    html: "<script>parent.document.title='x'</script>",
  })
    .replaceAll('"', "&quot;");
  const html =
    `<p>Before</p><figure data-block="acme" data-type="widget" data-version="1" data-values="${values}"></figure>`;
  const out = richTextHtml(html);
  match(
    out,
    /<p>Before<\/p><figure class="block-frame"><iframe sandbox="allow-scripts" /,
  );
  ok(!out.includes("allow-same-origin"));
  ok(!/<script>/.test(out), "the vendor script is only inside srcdoc, escaped");
  match(out, /srcdoc="[^"]*&#60;script&#62;parent\.document/);
});

Deno.test("the built-in template draws every section type; an unreadable latest-entries list is an error, never empty (PAGE-056)", () => {
  const html = builtInTemplate.page(everySectionView());
  for (const type of SECTION_TYPE_NAMES) {
    if (type === "shared" || type === "custom") continue;
    ok(html.includes(`class="s s-${type.replaceAll("_", "-")}`), type);
  }
  match(
    html,
    /<section id="broken"[^>]*>.*These entries cannot be shown right now/s,
  );
  match(html, /<a class="card-link" href="\/posts\/first">First post<\/a>/);
  ok(!html.includes("<script"), "no JavaScript on a page without search");
  const preview = builtInTemplate.page(everySectionView({ preview: true }));
  match(preview, /This form is shown disabled in a preview/); // FORM-013
});

Deno.test("TPL-030: documents, audio and video of a post are drawn through the platform media-asset component", () => {
  const { site } = everySectionView();
  const media = (kind: string, file: string, mime: string) => ({
    id: crypto.randomUUID(),
    kind,
    url: `https://media.example/${file}`,
    mime_type: mime,
    file_name: file,
    byte_length: 2_500_000,
    alt: null,
  });
  const html = builtInTemplate.post({
    site,
    seo: {
      title: "Post",
      description: null,
      canonical: null,
      noindex: false,
      image: null,
      alternates: [],
      type: "article",
    },
    item: {
      id: crypto.randomUUID(),
      slug: "post",
      model: "posts",
      locale: "en",
      fields: { title: "Post" },
      media: {
        report: media("document", "report.pdf", "application/pdf"),
        talk: media("audio", "talk.mp3", "audio/mpeg"),
        clips: [media("video", "clip.mp4", "video/mp4")],
      },
    },
  });
  match(
    html,
    /<a class="asset-file" href="https:\/\/media.example\/report.pdf" download="report.pdf">[\s\S]*?report.pdf<small>PDF · 2.4 MB<\/small>/,
  );
  match(
    html,
    /<audio class="asset" controls preload="metadata" src="https:\/\/media.example\/talk.mp3" aria-label="talk.mp3">/,
  );
  match(
    html,
    /<video class="asset" controls preload="metadata" src="https:\/\/media.example\/clip.mp4" aria-label="clip.mp4">/,
  );
});

Deno.test("a menu heading, which has no address of its own, stands for its children in the header and footer rows (PAUX-014)", () => {
  const view = everySectionView();
  view.site.chrome = {
    locale: "en",
    menus: {
      main: {
        lang: "en",
        items: [
          { id: "blog", label: "Blog", href: "/posts", children: [] },
          {
            id: "topics",
            label: "Topics",
            href: null,
            children: [
              { id: "news", label: "News", href: "/posts/category/news" },
            ],
          },
        ],
      },
    },
    placements: { header: "main", footer: "main" },
    footer_note: null,
    regions: [],
  };
  const html = builtInTemplate.page(view);
  const nav = (label: string) =>
    html.slice(html.indexOf(`<nav aria-label="${label}">`)).split("</nav>")[0];
  for (const row of [nav("Main"), nav("Footer")]) {
    match(row, /<a href="\/posts"[^>]*>Blog<\/a>/);
    match(row, /<a href="\/posts\/category\/news"[^>]*>News<\/a>/);
    ok(!row.includes("Topics"), row);
  }
});
