// What guards the administrative side of plugins: a plugin token is no sign-in there (PLG-021),
// the activation code passes through the service without a trace (PLG-030), and an act the
// admin audit ledger cannot record is refused with nothing changed (AUD-005). Spec 1 parts 5 and 6.
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { type PluginWorld, SITE_HOST, withPluginWorld } from "./world.ts";

/** Calls an admin-side route with the installation's bearer token and no session. */
function withToken(
  w: PluginWorld,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return Promise.resolve(w.app.request(`http://${SITE_HOST}${path}`, {
    method,
    headers: {
      host: SITE_HOST,
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }));
}

async function launchCodes(w: PluginWorld): Promise<number> {
  let n = 0;
  for await (const entry of w.services.kv.list({ prefix: [] })) {
    const purpose = (entry.value as { purpose?: unknown } | null)?.purpose;
    if (typeof purpose === "string" && purpose.startsWith("launch:")) n++;
  }
  return n;
}

Deno.test("a plugin token on an administrative route is unauthenticated: 401, nothing done (PLG-021)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const token = w.plugin.installations.get(id)!.token;
    const { instances } = await w.entry({ en: { title: "Hello" } });
    const before = await w.services.db.selectFrom("plugin_installations")
      .selectAll().execute();
    const attempts: [string, string, unknown][] = [
      ["POST", `/api/plugins/${id}/launch`, { kind: "manage" }],
      ["POST", `/api/plugins/${id}/launch`, {
        kind: "content_action",
        action: "publish-later",
        instance_id: instances.en,
      }],
      ["GET", "/api/plugins", undefined],
      ["GET", `/api/plugins/${id}`, undefined],
      ["POST", `/api/plugins/${id}/disable`, {}],
      ["POST", `/api/plugins/${id}/grant`, {
        capabilities: ["content:read"],
        model_ids: [],
      }],
    ];
    for (const [method, path, body] of attempts) {
      const res = await withToken(w, token, method, path, body);
      equal(res.status, 401, `${method} ${path}`);
      equal((await res.json()).error.code, "unauthenticated", path);
    }
    // The editor's card form refuses it and the settings page sends it to sign in, as a stranger.
    const form = await w.app.request(
      `http://${SITE_HOST}/admin/plugins/launch`,
      {
        method: "POST",
        headers: {
          host: SITE_HOST,
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
        },
        body: "{}",
      },
    );
    equal(form.status, 401, "card form");
    await form.body?.cancel();
    const page = await withToken(w, token, "GET", "/admin/settings/plugins");
    equal(page.status, 303, "settings page");
    equal(page.headers.get("location"), "/admin/sign-in");
    await page.body?.cancel();

    equal(await launchCodes(w), 0, "no launch was minted");
    deepEqual(
      await w.services.db.selectFrom("plugin_installations").selectAll()
        .execute(),
      before,
    );
    // The same person's session does launch: the refusal was the token's.
    const launched = await w.admin("POST", `/api/plugins/${id}/launch`, {
      kind: "manage",
    });
    equal(launched.status, 201);
    await launched.body?.cancel();
    equal(await launchCodes(w), 1);
  }));

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** Every row of every table of the service's database, as text. */
async function everyRow(w: PluginWorld): Promise<string> {
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE'
    order by table_name`.execute(w.services.db);
  ok(tables.rows.length > 20, "the schema's tables are listed");
  const texts: string[] = [];
  for (const { table_name } of tables.rows) {
    const rows = await sql`select * from ${sql.table(table_name)}`.execute(
      w.services.db,
    );
    texts.push(`${table_name}: ${JSON.stringify(rows.rows)}`);
  }
  return texts.join("\n");
}

/** Every key and value of the service's KV, as text. */
async function everyKvEntry(w: PluginWorld): Promise<string> {
  const texts: string[] = [];
  for await (const entry of w.services.kv.list({ prefix: [] })) {
    texts.push(JSON.stringify([entry.key.map(String), entry.value]));
  }
  return texts.join("\n");
}

Deno.test("the activation and rotation codes are never stored or logged by the service: not in any table, KV entry or log line, nor their digests (PLG-030)", () =>
  withPluginWorld(async (w) => {
    const activation = await w.plugin.issueCode();
    const res = await w.admin("POST", "/api/plugins", {
      manifest_url: w.plugin.manifestUrl,
      activation_code: activation,
      grant: {
        capabilities: w.plugin.behaviour.capabilities,
        model_ids: [w.modelId],
      },
    });
    equal(res.status, 201);
    const id = (await res.json()).data.id;
    const rotation = await w.plugin.issueCode(id);
    const rotated = await w.admin("POST", `/api/plugins/${id}/rotate`, {
      code: rotation,
    });
    equal(rotated.status, 200);
    await rotated.body?.cancel();
    // A refused hand-off logs its failure without the code either.
    w.plugin.behaviour.activation = "refuse";
    const refusedCode = await w.plugin.issueCode(id);
    const refused = await w.admin("POST", `/api/plugins/${id}/rotate`, {
      code: refusedCode,
    });
    equal(refused.status, 502);
    await refused.body?.cancel();

    const places = {
      database: await everyRow(w),
      kv: await everyKvEntry(w),
      logs: JSON.stringify(w.logs),
    };
    ok(places.database.includes(id), "the installation is in the tables");
    ok(w.logs.length > 0, "requests were logged");
    for (const code of [activation, rotation, refusedCode]) {
      for (const [where, text] of Object.entries(places)) {
        ok(!text.includes(code), `the code is not in the ${where}`);
        ok(
          !text.includes(await sha256Hex(code)),
          `its digest is not in the ${where}`,
        );
      }
    }
  }));

/** Takes the admin audit ledger away (its table is renamed) until `restore()`. */
async function ledgerDown(w: PluginWorld) {
  await sql`alter table audit_entries rename to audit_entries_offline`
    .execute(w.services.db);
  return {
    restore: () =>
      sql`alter table audit_entries_offline rename to audit_entries`
        .execute(w.services.db),
  };
}

Deno.test("admin plugin acts answer 503 audit_unavailable when the ledger cannot be written, and change nothing (AUD-005)", () =>
  withPluginWorld(async (w) => {
    // Install: no installation is written and nothing is handed to the plugin.
    let ledger = await ledgerDown(w);
    const install = await w.admin("POST", "/api/plugins", {
      manifest_url: w.plugin.manifestUrl,
      activation_code: await w.plugin.issueCode(),
      grant: { capabilities: ["content:read"], model_ids: [] },
    });
    equal(install.status, 503);
    equal((await install.json()).error.code, "audit_unavailable");
    deepEqual(
      await w.services.db.selectFrom("plugin_installations").selectAll()
        .execute(),
      [],
    );
    deepEqual(w.plugin.handoffs, []);
    await ledger.restore();

    const id = await w.install();
    const token = w.plugin.installations.get(id)!.token;
    const row = () =>
      w.services.db.selectFrom("plugin_installations").selectAll()
        .where("id", "=", id).executeTakeFirstOrThrow();
    const before = await row();
    w.plugin.behaviour.version = "1.1.0";
    ledger = await ledgerDown(w);
    const acts: [string, unknown][] = [
      ["disable", {}],
      ["uninstall", {}],
      ["grant", { capabilities: ["content:read"], model_ids: [] }],
      ["upgrade", { expected_version: "1.1.0" }],
    ];
    for (const [act, body] of acts) {
      const res = await w.admin("POST", `/api/plugins/${id}/${act}`, body);
      equal(res.status, 503, act);
      equal((await res.json()).error.code, "audit_unavailable", act);
      deepEqual(await row(), before, `${act} changed nothing`);
    }
    // A rotation is refused before any token is handed over: the plugin keeps its own.
    const handoffs = w.plugin.handoffs.length;
    const rotate = await w.admin("POST", `/api/plugins/${id}/rotate`, {
      code: await w.plugin.issueCode(id),
    });
    equal(rotate.status, 503);
    equal((await rotate.json()).error.code, "audit_unavailable");
    deepEqual(await row(), before, "rotate changed nothing");
    equal(w.plugin.handoffs.length, handoffs, "no hand-off reached the plugin");
    equal(w.plugin.installations.get(id)!.token, token);
    equal(
      (await w.plugin.api(id, "/context")).status,
      200,
      "the old one works",
    );

    // With the ledger back, the same act goes through and is recorded.
    await ledger.restore();
    const disabled = await w.admin("POST", `/api/plugins/${id}/disable`, {});
    equal(disabled.status, 200);
    equal((await disabled.json()).data.state, "disabled");
    const audit = await w.services.db.selectFrom("audit_entries")
      .select("action").where("action", "like", "plugin.%")
      .orderBy("created_at").execute();
    deepEqual(audit.map((a) => a.action), [
      "plugin.install",
      "plugin.activate",
      "plugin.disable",
    ]);
  }));
