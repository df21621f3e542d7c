// Walks every admin route of routes.gen.ts, and every form the admin pages show, with malformed ids: never a 5xx.
import assert from "node:assert/strict";
import { ADMIN_PARAM_KINDS } from "../../core/admin/ids.ts";
import { manifest } from "../../routes.gen.ts";
import type { TestApp } from "../support/app.ts";
import { adminPatterns } from "./admin_routes.ts";
import { setupDemo } from "./demo_helpers.ts";
import { ON_POSTGRES } from "../support/db.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";

/** Values that are no id: a word, a role's slug, a number, an almost-UUID, a long run, SQL. */
const MALFORMED = [
  "zzz",
  "editor",
  "0",
  "00000000-0000-0000-0000-00000000000g",
  // Passes a loose /^[0-9a-f-]{36}$/ check, yet is no UUID.
  "-".repeat(36),
  "x".repeat(300),
  "' or '1'='1",
];

/** A URL segment may also carry what a form field cannot type: a NUL byte. */
const MALFORMED_SEGMENTS = [...MALFORMED, "%00"];

/**
 * A pattern's `:param`s filled with malformed values: all at once with each value, and each
 * alone beside well-formed ids. `bad` is what its form fields get; `namesNothing` is true when
 * a malformed value stands where an id must (so the answer must be 404).
 */
function malformedPaths(
  pattern: string,
): { path: string; bad: string; namesNothing: boolean }[] {
  const param = /:([A-Za-z_]+)(\{[^}]*\})?/g;
  const names = [...pattern.matchAll(param)].map((m) => m[1]);
  const fill = (pick: (name: string) => string) =>
    pattern.replace(param, (_, name: string) => pick(name));
  const isId = (name: string) => ADMIN_PARAM_KINDS[name] === "id";
  if (names.length === 0) {
    return ["zzz", "00000000-0000-0000-0000-00000000000g"].map((bad) => ({
      path: pattern,
      bad,
      namesNothing: false,
    }));
  }
  const paths = MALFORMED_SEGMENTS.map((bad, i) => ({
    path: fill(() => bad === "%00" ? bad : encodeURIComponent(bad)),
    bad: MALFORMED[i % MALFORMED.length],
    namesNothing: names.some(isId),
  }));
  if (names.length > 1) {
    for (const only of names) {
      paths.push({
        path: fill((name) => name === only ? "zzz" : crypto.randomUUID()),
        bad: "zzz",
        namesNothing: isId(only),
      });
    }
  }
  return paths;
}

/** One HTML form: where it goes, how, and its fields as a browser would send them. */
interface FoundForm {
  page: string;
  method: "GET" | "POST";
  action: string;
  fields: [string, string][];
  /** Fields whose value is picked, not typed (hidden, select, radio, checkbox, button): where ids travel. */
  picked: Set<string>;
}

function attr(tag: string, name: string): string | null {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match ? unescapeHtml(match[1]) : null;
}

function unescapeHtml(text: string): string {
  return text.replaceAll("&quot;", '"').replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/** The forms of a page; a form with several named submit buttons is one form per button. */
function formsOf(page: string, html: string): FoundForm[] {
  const found: FoundForm[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const [, open, inner] = match;
    const method = (attr(open, "method") ?? "get").toUpperCase() === "POST"
      ? "POST"
      : "GET";
    const action = new URL(attr(open, "action") || page, "http://x").pathname +
      (attr(open, "action")?.includes("?")
        ? new URL(attr(open, "action")!, "http://x").search
        : "");
    const fields: [string, string][] = [];
    const picked = new Set<string>();
    for (const input of inner.matchAll(/<input\b[^>]*>/g)) {
      const name = attr(input[0], "name");
      const type = attr(input[0], "type") ?? "text";
      if (!name || ["submit", "file", "image", "button"].includes(type)) {
        continue;
      }
      if (
        (type === "checkbox" || type === "radio") &&
        !/\schecked(=|\s|>)/.test(input[0])
      ) continue;
      fields.push([name, attr(input[0], "value") ?? ""]);
      if (["hidden", "checkbox", "radio"].includes(type)) picked.add(name);
    }
    for (
      const select of inner.matchAll(
        /<select\b([^>]*)>([\s\S]*?)<\/select>/g,
      )
    ) {
      const name = attr(select[1], "name");
      if (!name) continue;
      const options = [...select[2].matchAll(/<option\b[^>]*>/g)].map((o) =>
        o[0]
      );
      const chosen = options.find((o) => /\sselected/.test(o)) ?? options[0];
      fields.push([name, chosen ? attr(chosen, "value") ?? "" : ""]);
      picked.add(name);
    }
    for (
      const area of inner.matchAll(
        /<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g,
      )
    ) {
      const name = attr(area[1], "name");
      if (name) fields.push([name, unescapeHtml(area[2])]);
    }
    const buttons = [...inner.matchAll(/<button\b[^>]*>/g)]
      .map((b) => [attr(b[0], "name"), attr(b[0], "value") ?? ""] as const)
      .filter((b): b is [string, string] => b[0] !== null);
    const variants = buttons.length === 0 ? [null] : buttons;
    for (const button of variants) {
      found.push({
        page,
        method,
        action,
        fields: button ? [...fields, [button[0], button[1]]] : fields,
        picked: button ? new Set([...picked, button[0]]) : picked,
      });
    }
  }
  return found;
}

/** Reads the admin pages from /admin by their links, as a person clicking around would; answers their forms. */
async function crawl(
  t: TestApp,
  jar: CookieJar,
  limit: number,
): Promise<{ pages: string[]; forms: FoundForm[] }> {
  const seen = new Set<string>(["/admin"]);
  const shapes = new Set<string>(["/admin"]);
  const queue = ["/admin"];
  const forms: FoundForm[] = [];
  let visited = 0;
  while (queue.length > 0 && visited < limit) {
    const path = queue.shift()!;
    visited++;
    const response = await request(t, jar, path);
    assert.ok(response.status < 500, `GET ${path}: ${response.status}`);
    if (!(response.headers.get("content-type") ?? "").includes("text/html")) {
      await response.body?.cancel();
      continue;
    }
    const html = await response.text();
    forms.push(...formsOf(path, html));
    for (const link of html.matchAll(/\shref="(\/admin[^"#]*)"/g)) {
      const next = unescapeHtml(link[1]);
      // One page per route and query shape is enough to find its forms.
      const shape = next.replace(/[0-9a-f-]{36}/g, ":id");
      if (next.startsWith("/admin/sign-out") || shapes.has(shape)) continue;
      shapes.add(shape);
      seen.add(next);
      queue.push(next);
    }
  }
  return { pages: [...seen], forms };
}

async function freshCsrf(t: TestApp, jar: CookieJar): Promise<string> {
  const page = await request(t, jar, "/admin/people");
  return csrfField(await page.text());
}

function matches(pattern: string, path: string): boolean {
  const source = pattern.replace(/:[A-Za-z_]+(\{[^}]*\})?/g, "[^/]+");
  return new RegExp(`^${source}$`).test(path.split("?")[0]);
}

/** Each route of `patterns` by URL: malformed ids answer 404 (405 where the route has no GET), and no answer is a 5xx. */
async function walkRoutes(
  t: TestApp,
  jar: CookieJar,
  forms: FoundForm[],
): Promise<string[]> {
  const csrf = await freshCsrf(t, jar);
  const failures: string[] = [];
  for (const pattern of adminPatterns()) {
    // The field names this route's forms send, so a POST reaches its form reading.
    const names = new Set(
      forms.filter((f) => matches(pattern, f.action))
        .flatMap((f) => f.fields.map(([n]) => n)),
    );
    const module = manifest.routes.find((r) => r.pattern === pattern)!.module;
    const hasGet = Boolean(module.handler?.GET) ||
      typeof module.default === "function";
    for (const { path, bad, namesNothing } of malformedPaths(pattern)) {
      if (path.startsWith("/admin/sign-out")) continue;
      const get = await request(t, jar, path);
      await get.body?.cancel();
      if (namesNothing) {
        // A NUL byte is refused as a bad request before any route reads it.
        const expected = path.includes("%00") ? [400, 404] : [404];
        if (!hasGet) expected.push(405);
        if (!expected.includes(get.status)) {
          failures.push(`GET ${path}: ${get.status}, expected ${expected}`);
        }
      } else if (get.status >= 500) {
        failures.push(`GET ${path}: ${get.status}`);
      }
      const form: Record<string, string> = { _csrf: csrf };
      for (const name of names) if (name !== "_csrf") form[name] = bad;
      const post = await request(t, jar, path, { form });
      if (await isFault(post)) {
        failures.push(`POST ${path} (fields ${bad}): ${post.status}`);
      }
    }
  }
  return failures;
}

/**
 * A 5xx, except the refusal the spec gives a template or release step whose settings are not
 * set (`503 template_operation_unavailable`, named on the page): the walk's world sets none.
 */
async function isFault(response: Response): Promise<boolean> {
  if (response.status < 500) {
    await response.body?.cancel();
    return false;
  }
  const text = await response.text();
  return !(response.status === 503 &&
    text.includes("template_operation_unavailable"));
}

/** Every form found, posted (or for a search form, sent) with each field in turn malformed and the rest as shown. */
async function walkForms(
  t: TestApp,
  jar: CookieJar,
  forms: FoundForm[],
): Promise<{ failures: string[]; walked: number }> {
  const failures: string[] = [];
  const walked = new Set<string>();
  for (const form of forms) {
    if (form.action.startsWith("/admin/sign-out")) continue;
    const key = `${form.method} ${form.action} ${
      form.fields.map(([n, v]) => n === "action" ? `${n}=${v}` : n).join()
    }`;
    if (walked.has(key)) continue;
    walked.add(key);
    for (const [index, [name, value]] of form.fields.entries()) {
      // Typed text is free text; ids travel in picked fields (and any field holding one).
      if (name === "_csrf") continue;
      if (!form.picked.has(name) && !/^[0-9a-f-]{36}$/i.test(value)) continue;
      // A word, and a value shaped like an id to a loose check: two kinds of not-an-id.
      for (const bad of ["zzz", "-".repeat(36)]) {
        const fields = form.fields.map(([n, v], i) =>
          [n, i === index ? bad : v] as [string, string]
        );
        const response = form.method === "POST"
          ? await request(t, jar, form.action, {
            form: Object.fromEntries(fields),
          })
          : await request(
            t,
            jar,
            `${form.action.split("?")[0]}?${new URLSearchParams(fields)}`,
          );
        if (await isFault(response)) {
          failures.push(
            `${form.method} ${form.action} ${name}=${bad}: ${response.status} (form on ${form.page})`,
          );
        }
      }
    }
  }
  return { failures, walked: walked.size };
}

Deno.test({
  name:
    "every admin route of routes.gen.ts and every admin form, walked with malformed ids as the demo admin: 404 for an id in a URL, never a 5xx (issue 39 item 4)",
  // Both engines are PostgreSQL and refuse a malformed id the same way; the walk's thousands of
  // admin requests take three times as long on the embedded engine, so it runs in the
  // PostgreSQL run (CI runs both).
  ignore: !ON_POSTGRES,
  fn: async (test) => {
    const demo = await setupDemo();
    const { t } = demo;
    try {
      const jar = new CookieJar();
      await signInAs(t, jar, { email: demo.email, password: PASSWORD });
      const { forms } = await crawl(t, jar, 60);
      assert.ok(adminPatterns().includes("/admin/people/roles/:id"));
      await test.step("each route's :params, for GET and POST", async () => {
        assert.deepEqual(await walkRoutes(t, jar, forms), []);
      });
      await test.step("each form's picked fields, one at a time", async () => {
        const { failures, walked } = await walkForms(t, jar, forms);
        assert.ok(walked > 20, `only ${walked} forms found`);
        assert.deepEqual(failures, []);
      });
    } finally {
      await t.close();
    }
  },
});
