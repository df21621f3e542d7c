// POST /pages/{id}/address (spec 3 part 4.7; DLV-013, ENT-030): the address waits in a draft
// version, the live page keeps its own until publication, publication moves it and leaves a 301,
// and a page without an address is never published.
import assert from "node:assert/strict";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import { SESSION_COOKIE } from "../../core/auth/cookies.ts";
import { CSRF_COOKIE, CSRF_HEADER } from "../../core/auth/csrf.ts";
import { createSession } from "../../core/auth/session_store.ts";
import { createModel } from "../../core/models/store.ts";
import { exampleHomePage } from "../../core/pages/example.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";

type Json = Record<string, unknown>;

async function setup(t: ManageFixture) {
  const made = await createModel(
    { db: t.services.db, clock: t.clock, siteId: t.siteId },
    {
      model: { name: "Pages", slug: "pages", enableI18n: true },
      fields: [
        {
          key: "title",
          label: "Title",
          type: "text",
          required: true,
          localized: true,
        },
        { key: "slides", label: "Slides", type: "json", localized: true },
      ],
    },
  );
  if (!made.ok) throw new Error(JSON.stringify(made));
  const { secret } = await t.credential([
    "content:read",
    "content:write",
    "pages:write",
    "lifecycle:publish",
  ]);
  let n = 0;
  const call = (method: string, path: string, body?: unknown) =>
    t.call(method, path, {
      body,
      key: body === undefined ? undefined : `k-${++n}`,
      secret,
    });
  const create = async (slug: string) => {
    const res = await call("POST", "/entries", {
      model_id: made.model.id,
      locale: "en",
      slug,
      fields: { title: slug, slides: exampleHomePage("en") },
    });
    assert.equal(res.status, 201, await res.clone().text());
    return (await res.json()).id as string;
  };
  const read = async (id: string) =>
    await (await call("GET", `/pages/${id}`)).json();
  const publish = async (id: string) => {
    const page = await read(id);
    return await call("POST", `/entries/${id}/publish`, {
      locale: "en",
      expected_current_version_id: page.locales.en.current_version_id,
      expected_workflow_revision: page.revision,
    });
  };
  const setAddress = async (id: string, address: string | null) => {
    const page = await read(id);
    return await call("POST", `/pages/${id}/address`, {
      locale: "en",
      address,
      expected_current_version_id: page.locales.en.current_version_id,
    });
  };
  const served = async (slug: string) =>
    (await t.app.request(`http://manage.test/v1/pages/${slug}`, {
      headers: { host: "manage.test" },
    })).status;
  const redirects = async () =>
    (await (await t.app.request("http://manage.test/v1/_redirects", {
      headers: { host: "manage.test" },
    })).json())
      .data as Json[];
  return { call, create, read, publish, setAddress, served, redirects };
}

Deno.test("POST /pages/{id}/address changes the address in a draft; publication moves it and adds a 301 from the old one (DLV-013)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const home = await s.create("home");
    assert.equal((await s.publish(home)).status, 200);
    assert.equal(await s.served("home"), 200);

    const set = await s.setAddress(home, "start");
    assert.equal(set.status, 200, await set.clone().text());
    const answer = await set.json();
    assert.equal(answer.pending_address.address, "start");
    const page = await s.read(home);
    // A new draft version records it; the live page keeps its address.
    assert.equal(page.locales.en.slug, "home");
    assert.equal(
      page.locales.en.current_version_id,
      answer.pending_address.version_id,
    );
    assert.notEqual(
      page.locales.en.current_version_id,
      page.locales.en.published_version_id,
    );
    assert.deepEqual(page.locales.en.pending_address, {
      address: "start",
      version_id: answer.pending_address.version_id,
    });
    assert.equal(await s.served("home"), 200);
    assert.equal(await s.served("start"), 404);

    assert.equal((await s.publish(home)).status, 200);
    assert.equal(await s.served("start"), 200);
    assert.equal(await s.served("home"), 404);
    assert.deepEqual(await s.redirects(), [{
      from: "/home",
      match: "exact",
      status: 301,
      to: "/start",
    }]);
    const after = await s.read(home);
    assert.equal(after.locales.en.slug, "start");
    assert.equal(after.locales.en.pending_address, null);

    // A second move keeps no chain: the old rule now points at the newest address.
    await s.setAddress(home, "welcome");
    await s.publish(home);
    assert.deepEqual(
      (await s.redirects()).map((r) => [r.from, r.to]),
      [["/home", "/welcome"], ["/start", "/welcome"]],
    );
  }));

Deno.test("POST /pages/{id}/address refuses reserved, taken, malformed and stale requests and changes nothing (DLV-013)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const home = await s.create("home");
    const about = await s.create("about");
    await s.publish(about);
    const before = await s.read(home);
    for (
      const [address, status, code] of [
        ["admin", 409, "slug_reserved"],
        ["sitemap-1", 409, "slug_reserved"],
        ["about", 409, "slug_taken"],
        ["Not A Slug", 400, "invalid_request"],
      ] as const
    ) {
      const res = await s.setAddress(home, address);
      assert.equal(res.status, status, address);
      assert.equal((await refusal(res)).code, code, address);
    }
    // Another page's pending address is taken too.
    assert.equal((await s.setAddress(about, "contact")).status, 200);
    const taken = await s.setAddress(home, "contact");
    assert.equal((await refusal(taken)).code, "slug_taken");
    const stale = await s.call("POST", `/pages/${home}/address`, {
      locale: "en",
      address: "start",
      expected_current_version_id: crypto.randomUUID(),
    });
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "version_conflict");
    const unknown = await s.call(
      "POST",
      `/pages/${crypto.randomUUID()}/address`,
      {
        locale: "en",
        address: "start",
        expected_current_version_id: before.locales.en.current_version_id,
      },
    );
    assert.equal(unknown.status, 404);
    const extra = await s.call("POST", `/pages/${home}/address`, {
      locale: "en",
      address: "start",
      expected_current_version_id: before.locales.en.current_version_id,
      redirect: false,
    });
    assert.equal(extra.status, 400);
    assert.deepEqual(await s.read(home), before);
  }));

Deno.test("publishing a page whose address was taken away answers 409 page_address_required and publishes nothing (ENT-030)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const home = await s.create("home");
    await s.publish(home);
    const cleared = await s.setAddress(home, null);
    assert.equal(cleared.status, 200);
    assert.equal((await cleared.json()).pending_address.address, null);
    const before = await s.read(home);
    const refused = await s.publish(home);
    assert.equal(refused.status, 409);
    assert.equal((await refusal(refused)).code, "page_address_required");
    assert.deepEqual(await s.read(home), before);
    assert.equal(await s.served("home"), 200);
    assert.deepEqual(await s.redirects(), []);
    // Setting an address again lets the language publish.
    assert.equal((await s.setAddress(home, "start")).status, 200);
    assert.equal((await s.publish(home)).status, 200);
    assert.equal(await s.served("start"), 200);
  }));

Deno.test("POST /pages/{id}/save with a slug waits for publication like /address (DLV-013)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const home = await s.create("home");
    await s.publish(home);
    const page = await s.read(home);
    const saved = await s.call("POST", `/pages/${home}/save`, {
      locale: "en",
      expected_current_version_id: page.locales.en.current_version_id,
      document: exampleHomePage("en"),
      slug: "start",
    });
    assert.equal(saved.status, 200, await saved.clone().text());
    assert.equal(await s.served("home"), 200);
    assert.equal(
      (await s.read(home)).locales.en.pending_address.address,
      "start",
    );
    await s.publish(home);
    assert.equal(await s.served("start"), 200);
  }));

Deno.test("PUT /entries/{id} with a new slug on a live page waits for publication; saving the live slug again drops it; reserved and taken addresses are refused (DLV-013, ENT-031)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const home = await s.create("home");
    await s.publish(home);
    const about = await s.create("about");
    await s.publish(about);
    const put = async (slug: string) => {
      const page = await s.read(home);
      return await s.call("PUT", `/entries/${home}`, {
        locale: "en",
        expected_current_version_id: page.locales.en.current_version_id,
        fields: { title: "home", slides: exampleHomePage("en") },
        slug,
      });
    };
    const moved = await put("start");
    assert.equal(moved.status, 200, await moved.clone().text());
    // The live page keeps its address; the new one waits, pinned to the new version.
    let page = await s.read(home);
    assert.equal(page.locales.en.slug, "home");
    assert.deepEqual(page.locales.en.pending_address, {
      address: "start",
      version_id: page.locales.en.current_version_id,
    });
    assert.equal(await s.served("home"), 200);
    assert.equal(await s.served("start"), 404);

    assert.equal((await put("home")).status, 200);
    assert.equal((await s.read(home)).locales.en.pending_address, null);

    assert.equal((await refusal(await put("about"))).code, "slug_taken");
    assert.equal((await refusal(await put("admin"))).code, "slug_reserved");
    page = await s.read(home);
    assert.equal(page.locales.en.pending_address, null);

    // A waiting removal of the address is not undone by a save naming the live slug.
    assert.equal((await s.setAddress(home, null)).status, 200);
    assert.equal((await put("home")).status, 200);
    assert.deepEqual(
      (await s.read(home)).locales.en.pending_address?.address,
      null,
    );

    assert.equal((await put("start")).status, 200);
    assert.equal((await s.publish(home)).status, 200);
    assert.equal(await s.served("start"), 200);
    assert.equal((await s.read(home)).locales.en.slug, "start");
  }));

const CSRF = "c".repeat(43);

/** Calls the admin side's JSON routes as a browser would: session cookie, CSRF token, Host. */
function adminCaller(t: ManageFixture, session: string | null) {
  return (path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.app.request(`http://manage.test${path}`, {
      method: "POST",
      headers: {
        host: "manage.test",
        origin: "http://manage.test",
        "content-type": "application/json",
        cookie: [
          session === null ? null : `${SESSION_COOKIE}=${session}`,
          `${CSRF_COOKIE}=${CSRF}`,
        ].filter(Boolean).join("; "),
        [CSRF_HEADER]: CSRF,
        ...headers,
      },
      body: JSON.stringify(body),
    });
}

Deno.test("POST /api/pages/{id}/address (admin side, session + CSRF) writes a draft version; the live page keeps its address until publication, which adds a 301 (DLV-013)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const home = await s.create("home");
    assert.equal((await s.publish(home)).status, 200);
    const { token } = await createSession(
      { db: t.services.db, clock: t.clock },
      t.adminId,
    );
    const admin = adminCaller(t, token);
    const before = await s.read(home);
    const body = {
      locale: "en",
      address: "start",
      expected_current_version_id: before.locales.en.current_version_id,
    };
    const path = `/api/pages/${home}/address`;

    // Refusals change nothing: signed out, no CSRF token, a bad body, an unknown page,
    // a member without the page permission.
    const signedOut = await adminCaller(t, null)(path, body);
    assert.equal(signedOut.status, 401);
    const forged = await admin(path, body, { [CSRF_HEADER]: "x".repeat(43) });
    assert.equal(forged.status, 403);
    assert.equal((await refusal(forged)).code, "csrf_failed");
    const extra = await admin(path, { ...body, redirect: false });
    assert.equal(extra.status, 400);
    assert.equal((await refusal(extra)).code, "invalid_request");
    const unknown = await admin(
      `/api/pages/${crypto.randomUUID()}/address`,
      body,
    );
    assert.equal(unknown.status, 404);
    const readerRole = await insertRole(t.services.db, t.siteId, {
      models: { "*": ["read"] },
      system: [],
    }, t.clock);
    const reader = await insertMember(t.services.db, t.siteId, {
      roleId: readerRole,
      clock: t.clock,
    });
    const readerSession = await createSession(
      { db: t.services.db, clock: t.clock },
      reader,
    );
    const denied = await adminCaller(t, readerSession.token)(path, body);
    assert.equal(denied.status, 403);
    assert.equal((await refusal(denied)).code, "missing_permission");
    assert.deepEqual(await s.read(home), before);

    const set = await admin(path, body);
    assert.equal(set.status, 200, await set.clone().text());
    const answer = await set.json();
    assert.deepEqual(answer.pending_address, {
      locale: "en",
      address: "start",
      version_id: answer.locales.en.current_version_id,
    });
    // A new draft version records it; the live page keeps its address.
    const page = await s.read(home);
    assert.notEqual(
      page.locales.en.current_version_id,
      before.locales.en.current_version_id,
    );
    assert.equal(
      page.locales.en.published_version_id,
      before.locales.en.published_version_id,
    );
    assert.equal(page.locales.en.slug, "home");
    assert.equal(await s.served("home"), 200);
    assert.equal(await s.served("start"), 404);
    assert.deepEqual(await s.redirects(), []);

    assert.equal((await s.publish(home)).status, 200);
    assert.equal(await s.served("start"), 200);
    assert.equal(await s.served("home"), 404);
    assert.deepEqual(await s.redirects(), [{
      from: "/home",
      match: "exact",
      status: 301,
      to: "/start",
    }]);
  }));
