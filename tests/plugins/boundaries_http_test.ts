// The plugin UI boundary without a browser: Stave served on a real port as `localhost`, the test
// plugin on its own origin (`127.0.0.1`), and a cookie jar that sends each cookie only where a
// browser would. A card launch (LAU-011) and a card's reviewed frame (PEXT-003) are driven over
// HTTP from the served pages, and the test plugin records what reached it (spec 1 parts 1, 5.6).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { hashPassword } from "../../core/auth/password.ts";
import { CookieJar } from "./cookie_jar.ts";
import {
  type PluginWorld,
  serveWorldLocally,
  withPluginWorld,
} from "./world.ts";

const PASSWORD = "correct horse battery staple";

/** Signs the administrator in through the sign-in form; the jar keeps what Stave sets. */
async function signIn(w: PluginWorld, base: string, jar: CookieJar) {
  await w.services.db.updateTable("users").set({
    password_hash: await hashPassword(PASSWORD, { N: 2 ** 10, r: 8, p: 1 }),
  }).where("id", "=", w.adminId).execute();
  const [form] = await jar.navigate(`${base}/admin/sign-in`);
  equal(form.status, 200);
  const hops = await jar.navigate(`${base}/admin/sign-in`, {
    method: "POST",
    headers: {
      origin: base,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      _csrf: hiddenField(form.body, "_csrf"),
      email: "admin@plugins.test",
      password: PASSWORD,
    }).toString(),
  });
  equal(hops[0].status, 303, "signed in");
}

function hiddenField(html: string, name: string, within = html): string {
  const found = new RegExp(`name="${name}" value="([^"]*)"`).exec(within);
  ok(found, `a hidden ${name} field in the page`);
  return found[1];
}

/** Stave's own cookies are host-only: a browser never sends them to another host. */
function assertHostOnly(jar: CookieJar, host: string) {
  const session = jar.cookies.find((c) => c.name === "stave_session");
  ok(session, "signed in with a session cookie");
  for (const cookie of jar.cookies) {
    equal(cookie.hostOnly, true, `${cookie.name} has no Domain`);
    equal(cookie.domain, host);
    ok("httponly" in cookie.attributes, `${cookie.name} is HttpOnly`);
  }
}

Deno.test("a card launch over HTTP: the plugin's management page gets no admin cookie, no referrer and no svc_launch left in its address (LAU-011, LAU-012)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId } = await w.entry({ en: { title: "Launched" } });
    const server = serveWorldLocally(w);
    const base = `http://localhost:${server.port}`;
    try {
      const jar = new CookieJar();
      await signIn(w, base, jar);
      const [editor] = await jar.navigate(
        `${base}/admin/content/posts/${groupId}?lang=en`,
      );
      equal(editor.status, 200);
      assertHostOnly(jar, "localhost");
      const session = jar.cookies.find((c) => c.name === "stave_session")!;
      const csrf = jar.cookies.find((c) => c.name === "stave_csrf")!;

      // The card's own form, posted as its button would post it.
      const card =
        /<form method="post" action="\/admin\/plugins\/launch"[\s\S]*?<\/form>/
          .exec(editor.body)?.[0];
      ok(card, "the editor shows the plugin's card");
      const fields = Object.fromEntries(
        ["_csrf", "installation_id", "action", "instance_id"].map((
          name,
        ) => [name, hiddenField(editor.body, name, card)]),
      );
      equal(fields.installation_id, id);
      const hops = await jar.navigate(`${base}/admin/plugins/launch`, {
        method: "POST",
        headers: {
          origin: base,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams(fields).toString(),
      });
      deepEqual(hops.map((h) => [new URL(h.url).origin, h.status]), [
        [base, 303],
        [w.plugin.origin, 303],
        [w.plugin.origin, 200],
      ]);
      // Stave's answer: on to the plugin's origin with only the one-time code, no referrer.
      equal(hops[0].headers.get("referrer-policy"), "no-referrer");
      const target = new URL(hops[0].headers.get("location")!);
      equal(target.origin, w.plugin.origin);
      equal(target.pathname, `/installations/${id}`);
      deepEqual([...target.searchParams.keys()], ["svc_launch"]);
      match(target.searchParams.get("svc_launch")!, /^svl_[A-Za-z0-9_-]{43}$/);
      equal(
        hops[0].headers.getSetCookie().length,
        0,
        "no cookie set on the way out",
      );
      // What reached the plugin, as it recorded it: no cookie, no referrer, both requests.
      deepEqual(w.plugin.launchRequests, [
        { cookie: null, referer: null, launch: true },
        { cookie: null, referer: null, launch: false },
      ]);
      equal(
        new URL(hops[2].url).search,
        "",
        "the code is gone from the address",
      );
      ok(
        w.plugin.delegations.has(id),
        "the plugin's backend exchanged the code",
      );
      for (const hop of hops.slice(1)) {
        const reached = `${hop.url} ${JSON.stringify([...hop.sent])}`;
        ok(!reached.includes(session.value), "never the session token");
        ok(!reached.includes(csrf.value), "never the CSRF token");
      }
    } finally {
      await server.close();
    }
  }));

Deno.test("a card's reviewed frame from the served page: sandboxed without same-origin rights, on the plugin's origin, the only origin the CSP frames, requested with no cookie, token or referrer (PEXT-003)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.frame = true;
    const id = await w.install();
    const token = w.plugin.installations.get(id)!.token;
    const { groupId } = await w.entry({ en: { title: "Framed" } });
    const server = serveWorldLocally(w);
    const base = `http://localhost:${server.port}`;
    try {
      const jar = new CookieJar();
      await signIn(w, base, jar);
      const [editor] = await jar.navigate(
        `${base}/admin/content/posts/${groupId}?lang=en`,
      );
      equal(editor.status, 200);
      assertHostOnly(jar, "localhost");
      const session = jar.cookies.find((c) => c.name === "stave_session")!;
      const csrf = jar.cookies.find((c) => c.name === "stave_csrf")!;

      // The editor's policy frames the plugin's origin and nothing else; no one frames the editor.
      const csp = editor.headers.get("content-security-policy") ?? "";
      const directive = (name: string) =>
        csp.split(";").map((d) => d.trim()).find((d) =>
          d.startsWith(`${name} `)
        );
      equal(directive("frame-src"), `frame-src ${w.plugin.origin}`);
      equal(directive("frame-ancestors"), "frame-ancestors 'none'");

      // The frame as served: sandboxed scripts and forms, never same-origin, no referrer.
      const frames = [...editor.body.matchAll(/<iframe\b[^>]*>/g)].map((m) =>
        m[0]
      );
      equal(frames.length, 1);
      const attr = (name: string) =>
        new RegExp(`\\s${name}="([^"]*)"`).exec(frames[0])?.[1];
      equal(attr("sandbox"), "allow-scripts allow-forms");
      ok(
        !/allow-same-origin|allow-top-navigation|allow-popups/.test(frames[0]),
      );
      equal(attr("referrerpolicy"), "no-referrer");
      // The island sets the address from its props: the plugin's own frame URL.
      const props = /<script type="application\/json"[^>]*>([\s\S]*?)<\/script>/
        .exec(editor.body)?.[1];
      ok(props, "the page carries its island props");
      const src = `${w.plugin.origin}/frames/card`;
      ok(
        props.includes(JSON.stringify(src)),
        "the frame's src is the plugin's",
      );
      for (const secret of [session.value, csrf.value, token]) {
        ok(
          !props.includes(secret),
          "no session, CSRF token or installation token in the props",
        );
      }

      // The frame's load, as the browser makes it from this page: the frame's own origin,
      // the no-referrer policy the element carries.
      const hops = await jar.navigate(src, {
        headers: attr("referrerpolicy") === "no-referrer"
          ? {}
          : { referer: `${base}/` },
      });
      equal(hops.length, 1);
      equal(hops[0].status, 200);
      deepEqual(w.plugin.frameRequests, [{
        cookie: null,
        referer: null,
        authorization: null,
      }]);
    } finally {
      await server.close();
    }
  }));
