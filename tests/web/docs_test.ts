// The API docs: both OpenAPI documents served, named components, documented operations, and /docs rendering offline in Chromium.
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { Validator } from "@seriousme/openapi-schema-validator";
import { openTestApp } from "../support/app.ts";
import { ON_POSTGRES } from "../support/db.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
  type LocalServer,
  serveLocally,
} from "../support/browser.ts";
import { childrenOf, isNamable } from "../../core/openapi/components.ts";
import { PUBLIC_QUERY_PARAMETERS } from "../../core/public/query_parameters.ts";
import { LIST_LIMITS } from "../../core/public/list_params.ts";

type Json = Record<string, unknown>;
const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const DOCUMENTS = ["openapi-v1.json", "openapi-public-v1.json"];

Deno.test("GET /docs/openapi-v1.json and /docs/openapi-public-v1.json serve the committed documents on any host", async () => {
  const t = await openTestApp();
  try {
    for (const name of DOCUMENTS) {
      const res = await t.app.request(`/docs/${name}`, {
        headers: { host: "anything.example" },
      });
      assert.equal(res.status, 200, name);
      assert.match(res.headers.get("content-type")!, /application\/json/);
      assert.deepEqual(
        await res.json(),
        JSON.parse(await Deno.readTextFile(`${root}/generated/${name}`)),
      );
    }
    const page = await t.app.request("/docs");
    assert.equal(page.status, 200);
    const html = await page.text();
    for (
      const src of [
        "/docs/viewer/swagger-ui-bundle.js",
        "/docs/viewer/swagger-ui-standalone-preset.js",
        "/docs/viewer/swagger-ui.css",
        "/_static/docs.js",
      ]
    ) {
      assert.ok(html.includes(src), src);
      const asset = await t.app.request(src);
      assert.equal(asset.status, 200, src);
      await asset.body?.cancel();
    }
    assert.ok(!/https?:\/\//.test(html), "no external address on the page");
    const missing = await t.app.request("/docs/viewer/package.json");
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await t.close();
  }
});

Deno.test("both OpenAPI documents are valid OpenAPI 3.1", async () => {
  for (const name of DOCUMENTS) {
    const validator = new Validator();
    const result = await validator.validate(
      JSON.parse(await Deno.readTextFile(`${root}/generated/${name}`)),
    );
    assert.deepEqual(result.errors ?? [], [], name);
    assert.equal(result.valid, true, name);
  }
});

Deno.test("every operation of both documents has a summary, a description and tags with descriptions", async () => {
  for (const name of DOCUMENTS) {
    const doc = JSON.parse(
      await Deno.readTextFile(`${root}/generated/${name}`),
    ) as Json;
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const o = op as Json;
        const where = `${name} ${method.toUpperCase()} ${path}`;
        assert.ok((o.summary as string)?.length > 0, `${where}: summary`);
        assert.ok((o.description as string)?.length > 0, `${where}: text`);
      }
    }
    for (const tag of doc.tags as Json[]) {
      assert.ok((tag.description as string)?.length > 0, `${name} ${tag.name}`);
    }
  }
});

Deno.test("every shape used more than once is a named component, and every request and answer body is one", async () => {
  for (const name of DOCUMENTS) {
    const doc = JSON.parse(
      await Deno.readTextFile(`${root}/generated/${name}`),
    ) as Json;
    const seen = new Map<string, string>();
    const walk = (node: unknown, where: string) => {
      if (typeof node !== "object" || node === null) return;
      const schema = node as Json;
      if (isNamable(schema)) {
        const key = JSON.stringify(schema);
        assert.ok(
          !seen.has(key),
          `${name}: the shape at ${where} is also at ${
            seen.get(key)
          }: it should be a component`,
        );
        seen.set(key, where);
      }
      for (const [child, part] of childrenOf(schema)) {
        walk(child, `${where}/${part}`);
      }
    };
    const schemas = (doc.components as Json).schemas as Json;
    for (const [component, schema] of Object.entries(schemas)) {
      for (const [child, part] of childrenOf(schema as Json)) {
        walk(child, `${component}/${part}`);
      }
    }
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const o = op as Json;
        const bodies = [
          (o.requestBody as Json | undefined)?.content,
          ...Object.entries(o.responses as Json)
            .filter(([status]) => status.startsWith("2"))
            .map(([, r]) => (r as Json).content),
        ].filter(Boolean) as Json[];
        for (const content of bodies) {
          // Uploads (multipart) and file answers describe their parts inline: a form's
          // parts are no reusable JSON shape.
          if (!content["application/json"]) continue;
          const schema = (content["application/json"] as Json).schema as Json;
          assert.match(
            String(schema.$ref),
            /^#\/components\/schemas\/[A-Z][A-Za-z0-9]*$/,
            `${name} ${method} ${path}: a named body`,
          );
          assert.ok(schemas[String(schema.$ref).split("/").pop()!]);
        }
        for (const p of (o.parameters ?? []) as Json[]) {
          if (p.schema) walk(p.schema, `${method} ${path} ${p.name}`);
        }
      }
    }
  }
});

Deno.test("the Idempotency-Key parameter states its length as minLength and maxLength (issue 10 point 14)", async () => {
  const doc = JSON.parse(
    await Deno.readTextFile(`${root}/generated/openapi-v1.json`),
  ) as Json;
  const key = ((doc.components as Json).parameters as Json)
    .IdempotencyKey as Json;
  assert.deepEqual(key.schema, {
    type: "string",
    minLength: 1,
    maxLength: 128,
    pattern: "^[\\x21-\\x7E]+$",
  });
});

Deno.test("the public document lists exactly the query parameters each public parser accepts, with its limits", async () => {
  const doc = JSON.parse(
    await Deno.readTextFile(`${root}/generated/openapi-public-v1.json`),
  ) as Json;
  const paths = doc.paths as Record<string, { get: Json }>;
  const byRoute: Record<string, string> = {
    list: "/{model}",
    single: "/{model}/{slug}",
    related: "/_related/{model}",
    shared: "/_shared/{source}/{model}",
    shared_item: "/_shared/{source}/{model}/{slug}",
    search: "/_search",
    suggest: "/_search/suggest",
    sync: "/_sync",
    chrome: "/_chrome",
    client: "/_client",
    redirects: "/_redirects",
  };
  for (const [route, names] of Object.entries(PUBLIC_QUERY_PARAMETERS)) {
    const params = (paths[byRoute[route]].get.parameters as Json[])
      .filter((p) => p.in === "query" && p.name !== "filter")
      .map((p) => p.name);
    assert.deepEqual(params, [...names], route);
  }
  const limit = (paths["/{model}"].get.parameters as Json[])
    .find((p) => p.name === "limit")!;
  assert.equal((limit.schema as Json).maximum, LIST_LIMITS.limitMax);
});

Deno.test("a parameter the public document lists is accepted by the route, one it does not list is refused", async () => {
  const t = await openTestApp();
  try {
    const { insertSite } = await import("../support/sites.ts");
    await insertSite(t.services.db, { domain: "docs.example" });
    const headers = { host: "docs.example" };
    // `_chrome` takes `locale`, as the document says; anything else is refused as unknown.
    const ok = await t.app.request("/v1/_chrome?locale=en", { headers });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    const unknown = await t.app.request("/v1/_chrome?lang=en", { headers });
    assert.equal(unknown.status, 400);
    assert.equal((await unknown.json()).error.code, "public_filter_invalid");
  } finally {
    await t.close();
  }
});

const runsBrowser = browserTestsRun("the /docs browser test");

Deno.test({
  name:
    "/docs in Chromium renders both documents offline with no horizontal scroll at 390 and 1440 px",
  // The page reads no database: the PGlite run covers it.
  ignore: !runsBrowser || ON_POSTGRES,
  async fn() {
    const t = await openTestApp();
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    try {
      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      browser = await launchChromium();
      for (const width of [390, 1440]) {
        const context = await browser.newContext({
          viewport: { width, height: 900 },
        });
        const page = await context.newPage();
        // Swagger UI parses the whole Management API document (some 300 kB) before it draws;
        // on a machine busy with other suites that alone can take longer than other pages.
        page.setDefaultTimeout(BROWSER_TIMEOUT_MS * 4);
        const problems: string[] = [];
        const outside: string[] = [];
        page.on("pageerror", (e) => problems.push(String(e)));
        // Anything not served by this service would be a CDN or a phone-home: refuse it.
        await page.route("**/*", (route) => {
          const url = route.request().url();
          if (url.startsWith(base) || url.startsWith("data:")) {
            return route.continue();
          }
          outside.push(url);
          return route.abort();
        });
        await page.goto(`${base}/docs`);
        await page.getByText("Stave Public Read API").first().waitFor();
        await page.getByText("List a model's published items").first()
          .waitFor();
        const scroll = await page.evaluate(() =>
          document.documentElement.scrollWidth -
          document.documentElement.clientWidth
        );
        assert.ok(scroll <= 0, `${width}px: horizontal scroll of ${scroll}px`);
        await page.screenshot({
          path: `${root}/tests/web/screenshots/docs-${width}.png`,
          fullPage: false,
        });
        await page.goto(`${base}/docs?api=manage`);
        await page.getByText("Stave Management API").first().waitFor();
        await page.getByText("Read the site this credential belongs to")
          .first().waitFor();
        if (width === 1440) {
          await page.screenshot({
            path: `${root}/tests/web/screenshots/docs-manage-${width}.png`,
          });
        }
        assert.deepEqual(problems, []);
        assert.deepEqual(outside, []);
        await context.close();
      }
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});

Deno.test("every recorded Management API example names an operation and parses with its request and answer schemas", async () => {
  const { MANAGE_EXAMPLES } = await import("../../core/manage/examples.ts");
  const { OPERATIONS } = await import("../../core/manage/contract/mod.ts");
  const byName = new Map(OPERATIONS.map((o) => [o.name as string, o]));
  for (const [name, example] of Object.entries(MANAGE_EXAMPLES)) {
    const op = byName.get(name);
    assert.ok(op, `example for unknown operation "${name}"`);
    if (example.request !== undefined) {
      assert.ok(op.body, `${name}: takes no body`);
      const parsed = op.body.safeParse(example.request);
      assert.ok(parsed.success, `${name} request: ${parsed.error?.message}`);
    }
    if (example.response !== undefined) {
      const parsed = op.answer.safeParse(example.response);
      assert.ok(parsed.success, `${name} answer: ${parsed.error?.message}`);
    }
  }
  const doc = JSON.parse(
    await Deno.readTextFile(`${root}/generated/openapi-v1.json`),
  ) as Json;
  const createEntry = ((doc.paths as Json)["/entries"] as Json).post as Json;
  assert.deepEqual(
    (((createEntry.requestBody as Json).content as Json)[
      "application/json"
    ] as Json).example,
    MANAGE_EXAMPLES["create-entry"].request,
  );
});
