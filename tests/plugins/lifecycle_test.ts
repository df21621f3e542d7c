// Installation lifecycle and the plugin API door with the example plugin as a real HTTP server
// (PLG, LAU, PAPI, AUD): install, activate, rotate, disable, enable, uninstall; tokens and codes.
import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { withPluginWorld } from "./world.ts";

async function outcome(res: Response): Promise<string> {
  const body = await res.json();
  return body.outcome?.code;
}

Deno.test("install hands a svp_ token to the pinned activation URL; pending until the 2xx, then active; no user record for the plugin (PLG-001, PLG-003)", () =>
  withPluginWorld(async (w) => {
    const people = async () => [
      (await w.services.db.selectFrom("users").select("id").execute()).length,
      (await w.services.db.selectFrom("site_members").select("user_id")
        .execute()).length,
    ];
    const before = await people();
    const id = await w.install();
    // PLG-001: the plugin is an actor, not a user: no user or membership appears.
    deepEqual(await people(), before);
    const held = w.plugin.installations.get(id)!;
    // PLG-014: the token the plugin received in the hand-off body is svp_ + 43 URL-safe characters.
    match(held.token, /^svp_[A-Za-z0-9_-]{43}$/);
    deepEqual(w.plugin.handoffs, [{ kind: "activate", installation_id: id }]);
    const row = await w.services.db.selectFrom("plugin_installations")
      .selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    equal(row.state, "active");
    notEqual(row.token_hash, null);
    ok(!JSON.stringify(row).includes(held.token), "only the digest is stored");
    const context = await w.plugin.api(id, "/context");
    equal(context.status, 200);
    const data = (await context.json()).data;
    equal(data.installation_id, id);
    equal(data.plugin_id, "com.example.publisher");
    deepEqual(data.grant.models.map((m: { id: string }) => m.id), [w.modelId]);
    const listed = await (await w.admin("GET", "/api/plugins")).json();
    equal(listed.data.length, 1);
    ok(!JSON.stringify(listed).includes(held.token));
    ok(!JSON.stringify(listed).includes(row.token_hash!), "no digest either");
  }));

Deno.test("a refused activation is activation_refused and leaves the installation pending with no token (PLG-004)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.activation = "refuse";
    const code = await w.plugin.issueCode();
    const res = await w.admin("POST", "/api/plugins", {
      manifest_url: w.plugin.manifestUrl,
      activation_code: code,
      grant: { capabilities: ["content:read"], model_ids: [] },
    });
    equal(res.status, 502);
    equal((await res.json()).error.code, "activation_refused");
    const row = await w.services.db.selectFrom("plugin_installations")
      .selectAll().executeTakeFirstOrThrow();
    equal(row.state, "pending");
    equal(row.token_hash, null);
    w.plugin.behaviour.activation = "ok";
    const retried = await w.admin("POST", `/api/plugins/${row.id}/activate`, {
      code: await w.plugin.issueCode(),
    });
    equal(retried.status, 200);
    equal((await retried.json()).data.state, "active");
  }));

Deno.test("install refusals: redirect, garbage, unknown manifest key, grant beyond the manifest, no site:plugins (PLG-002, OUT)", () =>
  withPluginWorld(async (w) => {
    const body = (grant = ["content:read"]) => ({
      manifest_url: w.plugin.manifestUrl,
      activation_code: "code",
      grant: { capabilities: grant, model_ids: [] },
    });
    w.plugin.behaviour.manifest = "redirect";
    let res = await w.admin("POST", "/api/plugins", body());
    equal((await res.json()).error.code, "remote_redirect_refused");
    w.plugin.behaviour.manifest = "garbage";
    res = await w.admin("POST", "/api/plugins", body());
    equal((await res.json()).error.code, "plugin_response_invalid");
    w.plugin.behaviour.manifest = "unknown_key";
    res = await w.admin("POST", "/api/plugins", body());
    const unknown = await res.json();
    equal(unknown.error.code, "plugin_response_invalid");
    ok(unknown.error.issues.length > 0);
    w.plugin.behaviour.manifest = "ok";
    res = await w.admin("POST", "/api/plugins", body(["media:write"]));
    equal(res.status, 400);
    equal((await res.json()).error.code, "invalid_request");
    res = await w.admin("POST", "/api/plugins", {
      ...body(),
      manifest_url: "https://127.0.0.1/manifest.json",
    });
    equal((await res.json()).error.code, "url_destination_refused");
    res = await w.admin("POST", "/api/plugins", {
      ...body(),
      manifest_url: "http://plugin.example.com/manifest.json",
    });
    equal((await res.json()).error.code, "url_not_https");
    const count = await w.services.db.selectFrom("plugin_installations")
      .select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
    equal(Number(count.n), 0, "no refused install left a row");
    const noSession = await w.app.request("http://plugins.test/api/plugins", {
      method: "GET",
      headers: { host: "plugins.test" },
    });
    equal(noSession.status, 401);
  }));

Deno.test("the plugin API door: missing, malformed, unknown, session cookie, disabled and revoked all answer plugin_unauthorized (PLG-019, PLG-020)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const token = w.plugin.installations.get(id)!.token;
    const call = (headers: Record<string, string>) =>
      w.app.request("http://plugins.test/api/plugin/v1/context", {
        headers: { host: "plugins.test", ...headers },
      });
    for (
      const headers of <Record<string, string>[]> [
        {},
        { authorization: "Bearer nope" },
        { authorization: `Basic ${token}` },
        { authorization: `Bearer ${token}x` },
        { authorization: `Bearer svp_${"A".repeat(43)}` },
        { authorization: `Bearer ${token}`, cookie: "stave_session=abc" },
        // PLG-019: a signed-in administrator's session cookie alone is no plugin credential.
        { cookie: `stave_session=${w.session}` },
      ]
    ) {
      const res = await call(headers);
      equal(res.status, 401);
      deepEqual(await res.json(), {
        outcome: {
          code: "plugin_unauthorized",
          message: "The installation token is missing or not valid",
          retry: false,
        },
      });
    }
    equal((await call({ authorization: `Bearer ${token}` })).status, 200);
    // PLG-020: disabled and revoked answer the very body of a missing or unknown token.
    const same = {
      outcome: {
        code: "plugin_unauthorized",
        message: "The installation token is missing or not valid",
        retry: false,
      },
    };
    equal(
      (await w.admin("POST", `/api/plugins/${id}/disable`, {})).status,
      200,
    );
    const disabled = await call({ authorization: `Bearer ${token}` });
    equal(disabled.status, 401);
    deepEqual(await disabled.json(), same);
    equal((await w.admin("POST", `/api/plugins/${id}/enable`, {})).status, 200);
    equal((await call({ authorization: `Bearer ${token}` })).status, 200);
    equal(
      (await w.admin("POST", `/api/plugins/${id}/uninstall`, {})).status,
      200,
    );
    const revoked = await call({ authorization: `Bearer ${token}` });
    equal(revoked.status, 401);
    deepEqual(await revoked.json(), same);
    // PLG-024: uninstall drops both digests; revoked is terminal and the token never works again.
    const row = await w.services.db.selectFrom("plugin_installations")
      .selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    deepEqual([row.state, row.token_hash, row.previous_token_hash], [
      "revoked",
      null,
      null,
    ]);
    const again = await w.admin("POST", `/api/plugins/${id}/enable`, {});
    equal(again.status, 409, "revoked is terminal");
    equal(
      (await call({ authorization: `Bearer ${token}` })).status,
      401,
      "still refused after the attempt",
    );
  }));

Deno.test("a malformed bearer is refused before any database read (PLG-018)", () =>
  withPluginWorld(async (w) => {
    const db = w.services.db;
    let reads = 0;
    const counting = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === "selectFrom" || prop === "updateTable") reads++;
        return Reflect.get(target, prop, receiver);
      },
    });
    w.services.db = counting;
    const res = await w.app.request(
      "http://plugins.test/api/plugin/v1/context",
      {
        headers: { host: "plugins.test", authorization: "Bearer svp_short" },
      },
    );
    equal(res.status, 401);
    equal(reads, 0);
    w.services.db = db;
  }));

Deno.test("a disabled installation stops before the body is read (PLG-022)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const token = w.plugin.installations.get(id)!.token;
    let pulled = false;
    const send = () => {
      pulled = false;
      const body = new ReadableStream({
        pull(controller) {
          pulled = true;
          controller.enqueue(new TextEncoder().encode('{"code":"svl_x"}'));
          controller.close();
        },
      }, { highWaterMark: 0 });
      return w.app.request(
        "http://plugins.test/api/plugin/v1/launch/exchange",
        {
          method: "POST",
          headers: {
            host: "plugins.test",
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
          },
          body,
        },
      );
    };
    const active = await send();
    equal(active.status, 400, "an active installation reads the body");
    equal(pulled, true);
    await w.admin("POST", `/api/plugins/${id}/disable`, {});
    const res = await send();
    equal(res.status, 401);
    equal(pulled, false);
  }));

Deno.test("site or database named in a header, query or body is invalid_request (PAPI-029)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const token = w.plugin.installations.get(id)!.token;
    const base = { host: "plugins.test", authorization: `Bearer ${token}` };
    let res = await w.app.request("http://plugins.test/api/plugin/v1/context", {
      headers: { ...base, "x-database": "other" },
    });
    equal(res.status, 400);
    const db = await res.json();
    equal(db.outcome.code, "invalid_request");
    match(db.outcome.message, /cannot name a database/);
    res = await w.app.request("http://plugins.test/api/plugin/v1/context", {
      headers: { ...base, "x-site-id": "other" },
    });
    equal(await outcome(res), "invalid_request");
    res = await w.app.request(
      "http://plugins.test/api/plugin/v1/content?site_id=x",
      {
        headers: base,
      },
    );
    equal(await outcome(res), "invalid_request");
    res = await w.plugin.api(id, "/launch/exchange", {
      body: { code: "svl_x", database: "other" },
    });
    const named = await res.json();
    equal(named.outcome.code, "invalid_request");
    match(named.outcome.message, /cannot name a database/);
  }));

Deno.test("120 requests per sliding 60 s per installation; the 121st is rate_limited with Retry-After, also across a minute boundary (PAPI-036)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    w.clock.set(new Date("2026-11-23T10:00:40.000Z"));
    for (let i = 0; i < 120; i++) {
      const res = await w.plugin.api(id, "/context");
      equal(res.status, 200, `request ${i + 1}`);
      await res.body?.cancel();
    }
    const refused = await w.plugin.api(id, "/context");
    equal(refused.status, 429);
    equal(refused.headers.get("retry-after"), "60");
    const body = await refused.json();
    equal(body.outcome.code, "rate_limited");
    equal(body.outcome.retry, true);
    // A new UTC minute is no new allowance: the window slides (issue 10, point 7).
    w.clock.advance(30_000);
    const stillRefused = await w.plugin.api(id, "/context");
    equal(stillRefused.status, 429, "10:01:10 is within 60 s of the burst");
    equal(stillRefused.headers.get("retry-after"), "30");
    await stillRefused.body?.cancel();
    w.clock.advance(30_000);
    equal((await w.plugin.api(id, "/context")).status, 200, "60 s after it");
  }));
