import { deepEqual, equal } from "node:assert/strict";
import { manifest as publicManifest } from "../routes_public.gen.ts";
import { openPublicWorld } from "../tests/public/helpers.ts";
import { buildApp } from "./build_app.ts";
import { CHECKED_DOCUMENTS } from "./openapi/checked_documents.ts";
import { createServedApp } from "./served_app.ts";
import { createApp } from "./server.ts";
import { inPublicApp } from "./web/public_app_paths.ts";

/** Status, body and every header; the CSRF cookie's random value is left out. */
async function seen(res: Response) {
  const headers = Object.fromEntries(res.headers);
  if (headers["set-cookie"]) {
    headers["set-cookie"] = headers["set-cookie"].replace(
      /stave_csrf=[^;]*/,
      "stave_csrf=",
    );
  }
  return { status: res.status, body: await res.text(), headers };
}

Deno.test("the public app has the whole app's steps and routes under its segments, and nothing the whole app lacks", async () => {
  const w = await openPublicWorld();
  try {
    const whole = createApp(w.services);
    const publicApp = buildApp(w.services, {
      manifest: publicManifest,
      checkedDocuments: () => CHECKED_DOCUMENTS,
    });
    const table = (routes: typeof whole.routes) =>
      routes.map((r) => `${r.method} ${r.path} ${r.handler.name}`);
    // App-wide steps and the public segments' routes, in order; the whole app adds only paths
    // of other segments.
    deepEqual(
      table(publicApp.routes),
      table(
        whole.routes.filter((r) =>
          publicApp.routes.some((p) => p.path === r.path) || inPublicApp(r.path)
        ),
      ),
    );
    equal(publicApp.routes.some((r) => r.path.startsWith("/admin")), false);
  } finally {
    await w.close();
  }
});

Deno.test("createServedApp() answers public paths without building the whole app, and other paths from the whole app built once", async () => {
  const w = await openPublicWorld();
  try {
    let built = 0;
    const served = await createServedApp(w.services, {
      loadWholeApp: (services) => {
        built++;
        return Promise.resolve(createApp(services));
      },
    });
    const whole = createApp(w.services);
    const request = (path: string, init: RequestInit = {}) =>
      new Request(`http://localhost${path}`, {
        ...init,
        headers: { host: "localhost", ...init.headers },
      });
    for (
      const [path, init] of [
        ["/health", {}],
        ["/health/", { method: "HEAD" }],
        ["/v1/posts?limit=2", {}],
        ["/v1/posts?limit=2", { method: "HEAD" }],
        ["/v1/pages/about", { headers: { origin: "https://elsewhere.test" } }],
        ["/v1/no/such/path", { headers: { accept: "text/html" } }],
        ["/v1/posts", { method: "POST", body: "{}" }],
        ["/%76%31/posts?limit=1", {}],
        // The public app routes with another router than the whole app: every shape of path
        // (static beside a parameter, trailing slash, too many or empty segments, wildcards,
        // escapes) must find the same route.
        ["/v1/posts/", {}],
        ["/v1/posts/hello", {}],
        ["/v1/posts/hello/", {}],
        ["/v1/posts/hello/extra", {}],
        ["/v1/posts/hello%2Fworld", {}],
        ["/v1//posts", {}],
        ["/v1", {}],
        ["/v1/", {}],
        ["/v1/_chrome", {}],
        ["/v1/_sitemap", {}],
        ["/v1/_sitemap/posts/1", {}],
        ["/v1/_search?q=hello", {}],
        ["/v1/_search/suggest?q=he", {}],
        ["/v1/_related/posts?slug=hello", {}],
        ["/v1/_shared/elsewhere/posts", {}],
        ["/v1/_shared/elsewhere/posts/hello", {}],
        ["/v1/interactions/like", { method: "POST", body: "{}" }],
        ["/media/site/file.png", {}],
        ["/media/site", {}],
        ["/health/ready", {}],
        ["/health/nope", {}],
      ] as [string, RequestInit][]
    ) {
      deepEqual(
        await seen(await served.fetch(request(path, init))),
        await seen(await whole.fetch(request(path, init))),
        path,
      );
    }
    equal(built, 0);
    for (
      const path of [
        "/",
        "/admin",
        "/api/manage/v1/models",
        "/.well-known/oauth-authorization-server",
        "/nope",
      ]
    ) {
      deepEqual(
        await seen(await served.fetch(request(path))),
        await seen(await whole.fetch(request(path))),
        path,
      );
    }
    equal(built, 1);
  } finally {
    await w.close();
  }
});
