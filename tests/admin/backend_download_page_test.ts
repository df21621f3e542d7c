// /admin/settings/backend: the generated backend downloaded as a zip (the same generation as
// `deno task svc generate-backend`), for people holding site:infra; refusals name each
// problem's model and field, and nothing is downloaded.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { unzipSync } from "fflate";
import { addPersonWith, type DemoAdmin, setupDemo } from "./demo_helpers.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";

const PAGE = "/admin/settings/backend";
const BLOG = ["posts", "authors", "tags", "notes"];

async function signedIn(demo: DemoAdmin, email = demo.email) {
  const jar = new CookieJar();
  await signInAs(demo.t, jar, { email, password: PASSWORD });
  const open = async () => {
    const response = await request(demo.t, jar, PAGE);
    return { status: response.status, html: await response.text() };
  };
  const post = async (form: Record<string, string | string[]>) =>
    request(demo.t, jar, PAGE, {
      form: { _csrf: csrfField((await open()).html), ...form },
    });
  return { open, post };
}

async function withDemo(fn: (demo: DemoAdmin) => Promise<void>) {
  const demo = await setupDemo();
  try {
    await fn(demo);
  } finally {
    await demo.t.close();
  }
}

const downloads = (demo: DemoAdmin) =>
  demo.t.services.db.selectFrom("audit_entries").select(["action", "details"])
    .where("site_id", "=", demo.siteId)
    .where("action", "=", "backend.download").execute();

Deno.test("backend download: the blog's models come as a zip of a runnable project, audited", () =>
  withDemo(async (demo) => {
    const s = await signedIn(demo);
    const { html } = await s.open();
    match(html, /<h2 id="generate-heading">Generated backend<\/h2>/);
    match(html, /Download backend \(\.zip\)/);
    const res = await s.post({
      action: "generate",
      models: BLOG,
      disabled: "posts.delete",
    });
    equal(res.status, 200);
    equal(res.headers.get("content-type"), "application/zip");
    equal(res.headers.get("cache-control"), "no-store");
    const disposition = res.headers.get("content-disposition") ?? "";
    const name = /attachment; filename="([a-z0-9-]+)-backend\.zip"/.exec(
      disposition,
    )?.[1];
    ok(name, disposition);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const root = `${name}-backend/`;
    for (
      const path of [
        "main.ts",
        "deno.json",
        "README.md",
        "generated/schema.json",
        "migrations/0001_schema.sql",
        "access/read-tokens.json",
        "openapi.json",
        "custom/routes.ts",
      ]
    ) {
      ok(files[`${root}${path}`], `${path} is in the archive`);
    }
    const text = (path: string) =>
      new TextDecoder().decode(files[`${root}${path}`]);
    const schema = JSON.parse(text("generated/schema.json"));
    deepEqual(
      schema.models.map((m: { name: string }) => m.name).sort(),
      [...BLOG].sort(),
    );
    // GEN-011: the operation left out is disabled in the downloaded project too.
    deepEqual(
      schema.models.find((m: { name: string }) => m.name === "posts").disabled,
      ["delete"],
    );
    // GACC-014: only deployed read tokens' digests travel; the site has none issued.
    deepEqual(JSON.parse(text("access/read-tokens.json")).tokens, []);
    const audited = await downloads(demo);
    equal(audited.length, 1);
    deepEqual(
      (
        (typeof audited[0].details === "string"
          ? JSON.parse(audited[0].details)
          : audited[0].details) as { models: string[] }
      ).models.sort(),
      [...BLOG].sort(),
    );
  }));

Deno.test("backend download: refusals name each problem and download nothing (GEN-024)", () =>
  withDemo(async (demo) => {
    const s = await signedIn(demo);
    // The whole demo shows a shared footer only live delivery serves.
    const all = await s.post({
      action: "generate",
      models: ["posts", "pages", "authors", "tags", "notes"],
    });
    equal(all.status, 422);
    equal(all.headers.get("content-type")?.startsWith("text/html"), true);
    const html = await all.text();
    match(html, /role="alert"/);
    match(
      html,
      /pages\.slides: [^<]*\(shared_references_require_live_delivery\)/,
    );
    // The form keeps what was ticked.
    match(html, /value="pages" checked/);
    const none = await s.post({ action: "generate", disabled: "" });
    equal(none.status, 422);
    match(await none.text(), /Tick at least one model/);
    const bad = await s.post({
      action: "generate",
      models: BLOG,
      disabled: "posts.drop",
    });
    equal(bad.status, 422);
    match(
      await bad.text(),
      /Cannot read &quot;posts\.drop&quot;|Cannot read "posts\.drop"/,
    );
    equal((await downloads(demo)).length, 0);
  }));

Deno.test("backend download: needs site:infra besides model:apply", () =>
  withDemo(async (demo) => {
    await addPersonWith(demo, {
      email: "mo@example.com",
      displayName: "Mo",
      permissions: {
        models: { "*": ["read"] },
        system: ["model:apply"],
      },
    });
    const s = await signedIn(demo, "mo@example.com");
    const { status, html } = await s.open();
    equal(status, 200);
    match(html, /needs the site:infra permission/);
    ok(!html.includes("Download backend (.zip)"));
    const res = await s.post({ action: "generate", models: BLOG });
    equal(res.status, 403);
    await res.body?.cancel();
    equal((await downloads(demo)).length, 0);
  }));
