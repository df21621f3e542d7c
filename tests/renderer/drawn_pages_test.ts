// A drawn page is kept while every answer it was drawn from is the same reused answer, and each
// visitor still gets a form key of their own (issue 41's speed work; FORM-013 keys stay unique).
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { loadRendererConfig } from "../../services/renderer/config.ts";
import { FORM_KEY_SLOT } from "../../services/renderer/drawn.ts";
import { createRenderer } from "../../services/renderer/server.ts";
import { builtInTemplate } from "../../services/renderer/template/builtin/mod.tsx";
import type {
  PageView,
  Template,
} from "../../services/renderer/template/mod.ts";
import { everySectionDocument } from "./every_section.ts";

const HOME_ID = "aff3380c-1eaf-43b0-86b5-26ab5cb1560c";

/** A public API answering the home page (every section, a form among them) and empty lists. */
function fakeApi() {
  const reads = { home: 0 };
  const fetcher = (input: string | URL | Request) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const path = url.pathname;
    if (path === "/health") return Response.json({ site: "fixture" });
    if (path === "/v1/_search/suggest") {
      return Response.json({ error: { code: "search_off" } }, { status: 404 });
    }
    if (path === "/v1/pages/home") {
      reads.home++;
      return Response.json({
        data: {
          id: HOME_ID,
          slug: "home",
          model: "pages",
          locale: "en",
          fields: { title: "Home", slides: everySectionDocument() },
          alternates: [],
          published_at: "2026-11-01T00:00:00.000Z",
          updated_at: "2026-11-01T00:00:00.000Z",
        },
      });
    }
    if (/^\/v1\/[a-z]+$/.test(path) && !path.startsWith("/v1/_")) {
      return Response.json({ data: [], page: { next_cursor: null } });
    }
    return Response.json({ error: { code: "not_found" } }, { status: 404 });
  };
  return {
    reads,
    fetch:
      ((input: string | URL | Request) =>
        Promise.resolve(fetcher(input))) as typeof fetch,
  };
}

function rendererOver(
  api: ReturnType<typeof fakeApi>,
  template: Template,
  clock = () => 1_000_000,
) {
  return createRenderer({
    config: loadRendererConfig({ STAVE_API_URL: "http://cms.test" }),
    template,
    siteUrl: "http://site.test",
    clock,
    fetch: api.fetch,
  });
}

function counting(template: Template) {
  const drawn = { pages: 0 };
  const counted: Template = {
    ...template,
    page(view: PageView) {
      drawn.pages++;
      return template.page(view);
    },
  };
  return { drawn, template: counted };
}

function formKeys(html: string): string[] {
  return [...html.matchAll(/name="key" value="([0-9a-f]{32})"/g)].map((m) =>
    m[1]
  );
}

Deno.test("a drawn page is kept while its answers are the same, and every visitor gets a form key of their own", async () => {
  let now = 1_000_000;
  const api = fakeApi();
  const { drawn, template } = counting(builtInTemplate);
  const render = rendererOver(api, template, () => now);
  const home = async (query = "") => {
    const response = await render(new Request(`http://site.test/${query}`));
    equal(response.status, 200);
    return await response.text();
  };
  const first = await home();
  const second = await home("?utm_source=mail");
  equal(drawn.pages, 1);
  equal(api.reads.home, 1);
  const [a, b] = [formKeys(first), formKeys(second)];
  equal(a.length, 1);
  equal(b.length, 1);
  notEqual(a[0], b[0]);
  ok(!first.includes(FORM_KEY_SLOT) && !second.includes(FORM_KEY_SLOT));
  // Apart from the key, the kept page is the drawn one.
  equal(first.replace(a[0], "K"), second.replace(b[0], "K"));

  // Past the page window the page is read again: a new answer, so a new drawing.
  now += 1_000;
  await home();
  equal(api.reads.home, 2);
  equal(drawn.pages, 2);
  await home();
  equal(drawn.pages, 2);

  // A visitor back from a form submission sees its outcome: drawn for them, not kept.
  const outcome = await home("?form=signup&sent=1");
  equal(drawn.pages, 3);
  await home();
  equal(drawn.pages, 3);
  ok(outcome.length > 0);
});

Deno.test("a template that does not print the form key as given is drawn for every visitor", async () => {
  const api = fakeApi();
  const { drawn, template } = counting({
    ...builtInTemplate,
    // A template may hash or shorten the key; then no kept page could carry a visitor's own.
    // Its last character changed, never kept as it was (a key ending in "0" stayed the same).
    page: (view) =>
      builtInTemplate.page({
        ...view,
        formKey: view.formKey.slice(0, -1) +
          (view.formKey.endsWith("0") ? "1" : "0"),
      }),
  });
  const render = rendererOver(api, template);
  for (let i = 0; i < 3; i++) {
    const response = await render(new Request("http://site.test/"));
    equal(response.status, 200);
    await response.body?.cancel();
  }
  equal(api.reads.home, 1);
  equal(drawn.pages, 3);
});

Deno.test("a drawing of another release is never served from a kept page", async () => {
  const api = fakeApi();
  let release = { number: 1 };
  const { drawn, template } = counting({
    ...builtInTemplate,
    drawing: () => Promise.resolve(release),
  });
  const render = rendererOver(api, template);
  const statuses: number[] = [];
  for (const next of [null, null, { number: 2 }, null]) {
    if (next) release = next;
    const response = await render(new Request("http://site.test/"));
    statuses.push(response.status);
    await response.body?.cancel();
  }
  deepEqual(statuses, [200, 200, 200, 200]);
  equal(drawn.pages, 2);
});
