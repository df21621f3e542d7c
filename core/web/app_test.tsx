// The route registrar: middleware order, pages, layouts, islands, errors and body limits.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { Hono } from "hono";
import type { Context } from "hono";
import { registerRoutes } from "./app.ts";
import type { AppEnv } from "./env.ts";
import { refuse } from "./errors.ts";
import { island } from "./island.ts";
import {
  type LayoutProps,
  type Manifest,
  page,
  type PageProps,
} from "./manifest.ts";

const Counter = island(
  "Counter",
  function Counter(props: { start: number; label: string }) {
    return <button type="button">{props.label}: {props.start}</button>;
  },
);

function tagger(tag: string) {
  return async function tagRequest(
    c: Context<AppEnv>,
    next: () => Promise<void>,
  ) {
    c.header(
      "x-trail",
      [c.res.headers.get("x-trail"), tag].filter(Boolean).join(","),
    );
    const trail = (c.get("trail" as never) as string[] | undefined) ?? [];
    c.set("trail" as never, [...trail, tag] as never);
    await next();
  };
}

function testApp(): { app: Hono<AppEnv>; logs: unknown[] } {
  const logs: unknown[] = [];
  const manifest: Manifest = {
    routes: [
      {
        pattern: "/admin/items/:id",
        file: "routes/(shell)/admin/items/[id].tsx",
        folder: "(shell)/admin/items",
        module: {
          handler: {
            GET: (c) =>
              page({ id: c.req.param("id"), trail: c.get("trail" as never) }),
            POST: (c) => c.json({ posted: c.req.param("id") }),
          },
          default: (p: PageProps<{ id: string; trail: string[] }>) => (
            <section>
              <h1>Item {p.data.id}</h1>
              <p id="trail">{p.data.trail.join(">")}</p>
              <Counter start={3} label="</script><b>" />
            </section>
          ),
        },
      },
      {
        pattern: "/plain",
        file: "routes/plain.tsx",
        folder: "",
        module: { default: () => <p>No islands here</p> },
      },
      {
        pattern: "/bad-island",
        file: "routes/bad-island.tsx",
        folder: "",
        module: {
          default: () => <Counter start={Number.NaN} label="x" />,
        },
      },
      {
        pattern: "/api/echo",
        file: "routes/api/echo.ts",
        folder: "api",
        module: {
          config: { bodyLimit: 64 },
          handler: {
            async POST(c) {
              return c.json({ length: (await c.req.text()).length });
            },
            GET() {
              refuse(409, "version_conflict", "The entry changed", {
                current_version_id: "v2",
              });
            },
          },
        },
      },
      {
        pattern: "/api/boom",
        file: "routes/api/boom.ts",
        folder: "api",
        module: {
          handler: {
            GET() {
              throw new Error(
                'relation "secret_table" does not exist at /srv/app/core/x.ts',
              );
            },
          },
        },
      },
    ],
    middlewares: [
      {
        file: "routes/_middleware.ts",
        folder: "",
        module: { middleware: tagger("root") },
      },
      {
        file: "routes/(shell)/_middleware.ts",
        folder: "(shell)",
        module: { middleware: [tagger("shell")] },
      },
      {
        file: "routes/(shell)/admin/_middleware.ts",
        folder: "(shell)/admin",
        module: { middleware: tagger("admin") },
      },
      {
        file: "routes/api/_middleware.ts",
        folder: "api",
        module: { middleware: tagger("api") },
      },
    ],
    layouts: [
      {
        file: "routes/(shell)/_layout.tsx",
        folder: "(shell)",
        module: {
          default: (p: LayoutProps) => <main class="shell">{p.children}</main>,
        },
      },
    ],
    app: {
      file: "routes/_app.tsx",
      folder: "",
      module: {
        default: (p: LayoutProps) => (
          <html>
            <body>{p.children}</body>
          </html>
        ),
      },
    },
    islands: [{ name: "Counter", file: "islands/Counter.tsx" }],
  };
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("log", (entry) => logs.push(entry));
    c.set("responseKind", "json");
    await next();
  });
  registerRoutes(app, {
    manifest,
    assets: {
      boot: "/_static/build/boot-X.js",
      chunks: { Counter: "/_static/build/island-Counter-Y.js" },
    },
  });
  return { app, logs };
}

Deno.test("registerRoutes() runs folder middleware root first, groups included, only for their folders", async () => {
  const { app } = testApp();
  const html = await (await app.request("/admin/items/7")).text();
  match(html, /<p id="trail">root>shell>admin<\/p>/);
  const api = await app.request("/api/echo", { method: "POST", body: "hi" });
  equal(api.headers.get("x-trail"), "root,api");
});

Deno.test("a page renders inside its layouts and the app shell, with island props as escaped JSON", async () => {
  const { app } = testApp();
  const res = await app.request("/admin/items/7");
  equal(res.status, 200);
  equal(res.headers.get("content-type"), "text/html; charset=UTF-8");
  const html = await res.text();
  ok(
    html.startsWith(
      '<!DOCTYPE html><html><body><main class="shell"><section><h1>Item 7</h1>',
    ),
  );
  match(
    html,
    /<x-island data-island="Counter" data-props="0"><button type="button">&lt;\/script>&lt;b>: 3<\/button><\/x-island>/,
  );
  const payload =
    /<script type="application\/json" id="__stave_islands">(.*?)<\/script>/
      .exec(html)![1];
  equal(payload.includes("<"), false, "a < inside props must be escaped");
  deepEqual(JSON.parse(payload), {
    chunks: { Counter: "/_static/build/island-Counter-Y.js" },
    props: [{ start: 3, label: "</script><b>" }],
  });
  match(
    html,
    /<script type="module" src="\/_static\/build\/boot-X.js"><\/script><\/body><\/html>$/,
  );
});

Deno.test("a page without islands ships no JavaScript", async () => {
  const { app } = testApp();
  const html = await (await app.request("/plain")).text();
  equal(
    html,
    "<!DOCTYPE html><html><body><p>No islands here</p></body></html>",
  );
});

Deno.test("a non-JSON island prop fails the render naming its path, with a plain error page", async () => {
  const { app, logs } = testApp();
  const res = await app.request("/bad-island");
  equal(res.status, 500);
  const html = await res.text();
  match(html, /Something went wrong/);
  equal(html.includes("Counter.start"), false);
  match(
    JSON.stringify(logs),
    /Island prop \\"Counter.start\\" is not plain JSON/,
  );
});

Deno.test("an unknown method answers 405 with Allow; HEAD falls back to GET", async () => {
  const { app } = testApp();
  const res = await app.request("/api/echo", { method: "DELETE" });
  equal(res.status, 405);
  equal(res.headers.get("allow"), "POST, GET");
  equal((await res.json()).error.code, "method_not_allowed");
  equal((await app.request("/plain", { method: "HEAD" })).status, 200);
});

Deno.test("a refusal answers the one JSON error shape with its details", async () => {
  const { app } = testApp();
  const res = await app.request("/api/echo");
  equal(res.status, 409);
  deepEqual(await res.json(), {
    error: {
      code: "version_conflict",
      message: "The entry changed",
      current_version_id: "v2",
    },
  });
});

Deno.test("an unexpected failure leaks no message, SQL or path", async () => {
  const { app, logs } = testApp();
  const res = await app.request("/api/boom");
  equal(res.status, 500);
  const body = await res.text();
  deepEqual(JSON.parse(body), {
    error: { code: "internal_error", message: "Internal error" },
  });
  equal(logs.length, 1);
});

Deno.test("the body limit accepts its last byte and refuses the next with 413 before parsing", async () => {
  const { app } = testApp();
  const atLimit = await app.request("/api/echo", {
    method: "POST",
    body: "x".repeat(64),
  });
  equal(atLimit.status, 200);
  deepEqual(await atLimit.json(), { length: 64 });
  const over = await app.request("/api/echo", {
    method: "POST",
    body: "x".repeat(65),
  });
  equal(over.status, 413);
  equal((await over.json()).error.code, "payload_too_large");
});

Deno.test("an unknown path answers JSON 404 to APIs and an HTML page to browsers", async () => {
  const { app } = testApp();
  const api = await app.request("/nope");
  equal(api.status, 404);
  equal((await api.json()).error.code, "not_found");
  const browser = await app.request("/nope", {
    headers: { accept: "text/html" },
  });
  equal(browser.status, 404);
  const html = await browser.text();
  match(html, /<p class="status">404<\/p><h1>Page not found<\/h1>/);
  match(html, /href="\/_static\/admin.css\?v=[0-9a-f]+"/);
  match(html, /href="\/">Go to the home page/);
});
