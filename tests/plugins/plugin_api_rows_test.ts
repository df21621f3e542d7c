// Long on purpose: the remaining plugin API rows, one test each, beside their shared plugin harness.
// The plugin API rows not covered elsewhere, each against its test idea: the shared lifecycle,
// /context and /content, the transition command's kind, pins, revision and order of checks,
// pinned saves, and manage launches naming a view (spec 1 parts 2.1-2.8, 5; PAPI, LAU rows).
// Every answer carrying an outcome is checked against the published envelope (PAPI-034).
import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import type { Permissions } from "../../core/access/permissions.ts";
import { createModel } from "../../core/models/store.ts";
import { saveTestEntry } from "../support/entries.ts";
import { manager, type PluginWorld, withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

const protocol = JSON.parse(
  await Deno.readTextFile(
    new URL("../../generated/protocol-v1.schema.json", import.meta.url),
  ),
);
const envelope = new Ajv2020({ strict: false }).compile(
  protocol.$defs.outcome_envelope,
);

/** An answer with its outcome (if any) checked against the published envelope and table. */
async function call(
  w: PluginWorld,
  id: string,
  path: string,
  init: { method?: string; body?: unknown; key?: string } = {},
): Promise<{ status: number; body: Json }> {
  const res = await w.plugin.api(id, path, init);
  const body = await res.json() as Json;
  if ("outcome" in body) {
    ok(envelope({ outcome: body.outcome }), JSON.stringify(envelope.errors));
    const outcome = body.outcome as { code: string; retry: boolean };
    const rule = protocol.outcomes[outcome.code];
    ok(rule, `unknown code ${outcome.code}`);
    deepEqual([res.status, outcome.retry], [rule.status, rule.retry]);
  }
  return { status: res.status, body };
}

function code(answer: { body: Json }): string {
  return (answer.body.outcome as Json).code as string;
}

/** The delegated read of an instance: its data. */
async function read(
  w: PluginWorld,
  id: string,
  instance: string,
  delegation: string,
): Promise<Json> {
  const answer = await call(
    w,
    id,
    `/content/${instance}?delegation_id=${delegation}`,
  );
  equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.data as Json;
}

async function groupRow(w: PluginWorld, groupId: string) {
  return await w.services.db.selectFrom("entry_groups").selectAll()
    .where("id", "=", groupId).executeTakeFirstOrThrow();
}

async function publishedCount(w: PluginWorld, groupId: string) {
  return (await w.services.db.selectFrom("entries").select("id")
    .where("group_id", "=", groupId)
    .where("published_version_id", "is not", null).execute()).length;
}

/** One publish event of a group, without ids, times and who acted. */
async function publishHistory(w: PluginWorld, groupId: string) {
  const rows = await w.services.db.selectFrom("workflow_events").selectAll()
    .where("group_id", "=", groupId).where("kind", "=", "publish").execute();
  equal(rows.length, 1, `one publish event for ${groupId}`);
  const { kind, locale, from_state, to_state, details, actor } = rows[0];
  return {
    event: { kind, locale, from_state, to_state },
    details: details as Json,
    actor: actor as Json,
    versions: {
      version: rows[0].version_id !== null,
      previous: rows[0].previous_version_id !== null,
    },
  };
}

Deno.test("a plugin publish runs the lifecycle a Management API publish runs: the same workflow history and publication (PAPI-001)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const viaPlugin = await w.entry({ en: { title: "By plugin" } });
    const viaApi = await w.entry({ en: { title: "By script" } });
    const delegation = await w.delegate(id, viaPlugin.instances.en);
    const data = await read(w, id, viaPlugin.instances.en, delegation);
    const applied = await call(
      w,
      id,
      `/content/${viaPlugin.instances.en}/transitions/published`,
      {
        body: {
          kind: "publish",
          expected_current_version_id: data.current_version_id,
          expected_workflow_revision: (data.workflow as Json).revision,
          delegation_id: delegation,
        },
        key: "same-lifecycle",
      },
    );
    equal(code(applied), "transition_applied", JSON.stringify(applied.body));

    const script = await manager(w, ["content:read", "lifecycle:publish"]);
    const before = await groupRow(w, viaApi.groupId);
    const published = await script(
      "POST",
      `/entries/${viaApi.groupId}/publish`,
      {
        locale: "en",
        expected_current_version_id: before.current_version_id,
        expected_workflow_revision: before.revision,
      },
    );
    equal(published.status, 200, JSON.stringify(published.body));

    const plugin = await publishHistory(w, viaPlugin.groupId);
    const api = await publishHistory(w, viaApi.groupId);
    deepEqual(plugin.event, api.event);
    deepEqual(plugin.versions, api.versions);
    // Each names the key it ran under; the plugin's also names its protocol version (AUD-001).
    const { protocol_version, ...pluginDetails } = plugin.details;
    equal(protocol_version, "1");
    match(String(pluginDetails.idempotency_key_digest), /^[0-9a-f]{64}$/);
    match(String(api.details.idempotency_key_digest), /^[0-9a-f]{64}$/);
    deepEqual(
      { ...pluginDetails, idempotency_key_digest: "" },
      { ...api.details, idempotency_key_digest: "" },
    );
    equal(plugin.actor.kind, "plugin");
    notEqual(api.actor.kind, "plugin");
    // The same publication: the current version is published, one revision on, served publicly.
    for (
      const [groupId, revision] of [
        [viaPlugin.groupId, (data.workflow as Json).revision],
        [viaApi.groupId, before.revision],
      ] as const
    ) {
      const after = await groupRow(w, groupId);
      equal(after.revision, Number(revision) + 1);
      const entry = await w.services.db.selectFrom("entries")
        .select(["current_version_id", "published_version_id"])
        .where("group_id", "=", groupId).executeTakeFirstOrThrow();
      equal(entry.published_version_id, entry.current_version_id);
      const item = await w.services.db.selectFrom("public_items")
        .select("group_id").where("group_id", "=", groupId)
        .where("requested_locale", "=", "en").executeTakeFirst();
      ok(item, `${groupId} is served publicly`);
    }
  }));

Deno.test("GET /context answers the token's installation, its site and its grant by model ids (PAPI-003, PLG-010)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install({
      capabilities: ["content:read", "workflow:read"],
    });
    const answer = await call(w, id, "/context");
    equal(answer.status, 200);
    const data = answer.body.data as Json;
    equal(data.installation_id, id);
    equal(data.plugin_id, "com.example.publisher");
    equal(data.state, "active");
    const site = data.site as Json;
    const row = await w.services.db.selectFrom("sites")
      .select(["id", "slug", "name"]).where("id", "=", w.siteId)
      .executeTakeFirstOrThrow();
    deepEqual([site.id, site.slug, site.name], [row.id, row.slug, row.name]);
    ok(Array.isArray(site.languages) && site.languages.length > 0);
    const grant = data.grant as { capabilities: string[]; models: Json[] };
    deepEqual(grant.capabilities, ["content:read", "workflow:read"]);
    // PLG-010: the grant holds model ids; the slug is shown beside the id.
    deepEqual(grant.models.map((m) => [m.id, m.slug]), [[w.modelId, "posts"]]);
    const stored = await w.services.db.selectFrom("plugin_installations")
      .select("grant_model_ids").where("id", "=", id)
      .executeTakeFirstOrThrow();
    const ids = typeof stored.grant_model_ids === "string"
      ? JSON.parse(stored.grant_model_ids)
      : stored.grant_model_ids;
    deepEqual(ids, [w.modelId]);
  }));

Deno.test("GET /content lists only granted models' items, a page at a time (PAPI-004)", () =>
  withPluginWorld(async (w) => {
    const pages = await createModel(
      { db: w.services.db, clock: w.clock, siteId: w.siteId },
      {
        model: { name: "Pages", slug: "pages", enableI18n: true },
        fields: [{ key: "title", label: "Title", type: "text" }],
      },
    );
    if (!pages.ok) throw new Error(JSON.stringify(pages));
    const id = await w.install({ model_ids: [w.modelId] });
    const posts = [
      await w.entry({ en: { title: "One" } }),
      await w.entry({ en: { title: "Two" } }),
      await w.entry({ en: { title: "Three" } }),
    ];
    const ungranted = await saveTestEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      userId: w.adminId,
      modelId: pages.model_id,
    }, { en: { title: "Not granted" } });
    const first = await call(w, id, "/content?limit=2");
    equal(first.status, 200);
    const firstData = first.body.data as Json[];
    equal(firstData.length, 2);
    const cursor = first.body.next_cursor as string;
    equal(cursor, firstData[1].instance_id);
    const second = await call(w, id, `/content?limit=2&cursor=${cursor}`);
    const secondData = second.body.data as Json[];
    equal(secondData.length, 1);
    equal(second.body.next_cursor, null);
    const listed = [...firstData, ...secondData];
    deepEqual(
      listed.map((s) => s.instance_id).sort(),
      posts.map((p) => p.instances.en).sort(),
    );
    ok(listed.every((s) => s.model_id === w.modelId));
    ok(!listed.some((s) => s.instance_id === ungranted.instances.en));
    // The page size at its edge: 100 answers, 101 is invalid_request.
    equal(
      ((await call(w, id, "/content?limit=100")).body.data as Json[]).length,
      3,
    );
    const tooMany = await call(w, id, "/content?limit=101");
    deepEqual([tooMany.status, code(tooMany)], [400, "invalid_request"]);
  }));

/** An installation, a one-language entry and a delegation over it, with the read. */
async function commandWorld(w: PluginWorld) {
  const id = await w.install();
  const { groupId, instances } = await w.entry({ en: { title: "A" } });
  const delegation = await w.delegate(id, instances.en);
  const data = await read(w, id, instances.en, delegation);
  return {
    id,
    groupId,
    instance: instances.en,
    delegation,
    data,
    revision: Number((data.workflow as Json).revision),
  };
}

Deno.test("the transition kind is required and is publish or unpublish: otherwise invalid_request and nothing moves (PAPI-010)", () =>
  withPluginWorld(async (w) => {
    const s = await commandWorld(w);
    const path = `/content/${s.instance}/transitions/published`;
    const command = {
      kind: "publish",
      expected_current_version_id: s.data.current_version_id,
      expected_workflow_revision: s.revision,
      delegation_id: s.delegation,
    };
    const { kind: _, ...withoutKind } = command;
    const missing = await call(w, s.id, path, { body: withoutKind, key: "a" });
    deepEqual([missing.status, code(missing)], [400, "invalid_request"]);
    for (const kind of ["archive", "Publish", "", null]) {
      const other = await call(w, s.id, path, {
        body: { ...command, kind },
        key: `kind-${kind}`,
      });
      deepEqual(
        [other.status, code(other)],
        [400, "invalid_request"],
        `kind ${kind}`,
      );
    }
    equal(await publishedCount(w, s.groupId), 0, "nothing moved");
    equal((await groupRow(w, s.groupId)).revision, s.revision);
    const applied = await call(w, s.id, path, { body: command, key: "b" });
    equal(code(applied), "transition_applied");
  }));

Deno.test("a publish pinned to a version no longer current is scheduled_target_stale; nothing is published (PAPI-011)", () =>
  withPluginWorld(async (w) => {
    const s = await commandWorld(w);
    const saved = await call(w, s.id, `/content/${s.instance}`, {
      method: "PUT",
      body: {
        delegation_id: s.delegation,
        expected_current_version_id: s.data.current_version_id,
        fields: { title: "B" },
      },
      key: "save",
    });
    equal(code(saved), "transition_applied", JSON.stringify(saved.body));
    const now = await read(w, s.id, s.instance, s.delegation);
    notEqual(now.current_version_id, s.data.current_version_id);
    const path = `/content/${s.instance}/transitions/published`;
    // The old pin with the revision as it is now: only the pin is stale.
    const stale = await call(w, s.id, path, {
      body: {
        kind: "publish",
        expected_current_version_id: s.data.current_version_id,
        expected_workflow_revision: (now.workflow as Json).revision,
        delegation_id: s.delegation,
      },
      key: "old-pin",
    });
    deepEqual([stale.status, code(stale)], [409, "scheduled_target_stale"]);
    equal(await publishedCount(w, s.groupId), 0, "nothing published");
    const fresh = await call(w, s.id, path, {
      body: {
        kind: "publish",
        expected_current_version_id: now.current_version_id,
        expected_workflow_revision: (now.workflow as Json).revision,
        delegation_id: s.delegation,
      },
      key: "new-pin",
    });
    equal(code(fresh), "transition_applied");
  }));

Deno.test("expected_workflow_revision one behind is workflow_conflict; nothing moves (PAPI-012)", () =>
  withPluginWorld(async (w) => {
    const s = await commandWorld(w);
    // A first move gives the group a revision to go below.
    const published = await call(
      w,
      s.id,
      `/content/${s.instance}/transitions/published`,
      {
        body: {
          kind: "publish",
          expected_current_version_id: s.data.current_version_id,
          expected_workflow_revision: s.revision,
          delegation_id: s.delegation,
        },
        key: "publish",
      },
    );
    equal(code(published), "transition_applied");
    const result = published.body.result as Json;
    const revision = Number(result.revision);
    equal(revision, s.revision + 1);
    const path = `/content/${s.instance}/transitions/draft`;
    const command = {
      kind: "unpublish",
      expected_published_version_id: result.published_version_id,
      expected_workflow_revision: revision - 1,
      delegation_id: s.delegation,
    };
    const behind = await call(w, s.id, path, { body: command, key: "a" });
    deepEqual([behind.status, code(behind)], [409, "workflow_conflict"]);
    equal(await publishedCount(w, s.groupId), 1, "still published");
    equal((await groupRow(w, s.groupId)).revision, revision);
    const string = await call(w, s.id, path, {
      body: { ...command, expected_workflow_revision: String(revision) },
      key: "b",
    });
    deepEqual(
      [string.status, code(string)],
      [400, "invalid_request"],
      "the revision is an integer",
    );
    const exact = await call(w, s.id, path, {
      body: { ...command, expected_workflow_revision: revision },
      key: "c",
    });
    equal(code(exact), "transition_applied");
    equal(await publishedCount(w, s.groupId), 0);
  }));

Deno.test("a move not offered with a wrong revision is transition_unavailable, not workflow_conflict (PAPI-013)", () =>
  withPluginWorld(async (w) => {
    const s = await commandWorld(w);
    const wrong = s.revision + 7;
    // The draft was never published: unpublish is not offered.
    const unoffered = await call(
      w,
      s.id,
      `/content/${s.instance}/transitions/draft`,
      {
        body: {
          kind: "unpublish",
          expected_published_version_id: null,
          expected_workflow_revision: wrong,
          delegation_id: s.delegation,
        },
        key: "a",
      },
    );
    deepEqual(
      [unoffered.status, code(unoffered)],
      [409, "transition_unavailable"],
    );
    // The same wrong revision on an offered move is a workflow_conflict: the revision is wrong.
    const offered = await call(
      w,
      s.id,
      `/content/${s.instance}/transitions/published`,
      {
        body: {
          kind: "publish",
          expected_current_version_id: s.data.current_version_id,
          expected_workflow_revision: wrong,
          delegation_id: s.delegation,
        },
        key: "b",
      },
    );
    deepEqual([offered.status, code(offered)], [409, "workflow_conflict"]);
    equal((await groupRow(w, s.groupId)).revision, s.revision);
  }));

Deno.test("PUT /content without the version pin, the delegation or an Idempotency-Key is invalid_request; nothing saved (PAPI-030)", () =>
  withPluginWorld(async (w) => {
    const s = await commandWorld(w);
    const versions = async () =>
      (await w.services.db.selectFrom("entry_versions").select("id")
        .where("group_id", "=", s.groupId).execute()).length;
    const before = await versions();
    const path = `/content/${s.instance}`;
    const body = {
      delegation_id: s.delegation,
      expected_current_version_id: s.data.current_version_id,
      fields: { title: "B" },
    };
    const { expected_current_version_id: _pin, ...noPin } = body;
    const unpinned = await call(w, s.id, path, {
      method: "PUT",
      body: noPin,
      key: "a",
    });
    deepEqual([unpinned.status, code(unpinned)], [400, "invalid_request"]);
    const { delegation_id: _d, ...noDelegation } = body;
    const anonymous = await call(w, s.id, path, {
      method: "PUT",
      body: noDelegation,
      key: "b",
    });
    deepEqual([anonymous.status, code(anonymous)], [400, "invalid_request"]);
    const unkeyed = await call(w, s.id, path, { method: "PUT", body });
    deepEqual([unkeyed.status, code(unkeyed)], [400, "invalid_request"]);
    equal(await versions(), before, "nothing saved");
    const saved = await call(w, s.id, path, { method: "PUT", body, key: "c" });
    equal(code(saved), "transition_applied", JSON.stringify(saved.body));
    equal(await versions(), before + 1);
  }));

Deno.test("a manage launch naming a declared view needs one granted model the requester reads, all or own (LAU-008)", () =>
  withPluginWorld(async (w) => {
    const others = await createModel(
      { db: w.services.db, clock: w.clock, siteId: w.siteId },
      {
        model: { name: "Notes", slug: "notes", enableI18n: true },
        fields: [{ key: "title", label: "Title", type: "text" }],
      },
    );
    if (!others.ok) throw new Error(JSON.stringify(others));
    const id = await w.install({ model_ids: [w.modelId] });
    const as = async (permissions: Permissions) => {
      const roleId = await insertRole(
        w.services.db,
        w.siteId,
        permissions,
        w.clock,
      );
      const userId = await insertMember(w.services.db, w.siteId, {
        roleId,
        clock: w.clock,
      });
      return await w.sessionFor(userId);
    };
    const launch = async (session: string) => {
      const res = await w.admin(
        "POST",
        `/api/plugins/${id}/launch`,
        { kind: "manage", view: "calendar" },
        { session },
      );
      const body = await res.json();
      return [res.status, body.error?.code ?? null];
    };
    // Reads only a model the plugin is not granted, or nothing at all: refused.
    deepEqual(
      await launch(
        await as({ models: { [others.model_id]: ["read"] }, system: [] }),
      ),
      [403, "missing_permission"],
    );
    deepEqual(
      await launch(await as({ models: {}, system: ["site:plugins"] })),
      [403, "missing_permission"],
      "site:plugins is no read of a granted model",
    );
    // Reads the granted model, all or only their own: the view opens.
    deepEqual(
      await launch(
        await as({ models: { [w.modelId]: ["read"] }, system: [] }),
      ),
      [201, null],
    );
    deepEqual(
      await launch(
        await as({ models: { [w.modelId]: ["read:own"] }, system: [] }),
      ),
      [201, null],
    );
    deepEqual(await launch(w.session), [201, null]);
    // Once the installation is granted no model it opens no view, even for the administrator.
    const narrowed = await w.admin("POST", `/api/plugins/${id}/grant`, {
      capabilities: ["content:read"],
      model_ids: [],
    });
    equal(narrowed.status, 200);
    await narrowed.body?.cancel();
    deepEqual(await launch(w.session), [403, "missing_permission"]);
  }));

Deno.test("a plugin is handed a token and the service's URL, nothing that reaches a database or storage, and the plugin API is a closed set of routes (PAPI-002)", () =>
  withPluginWorld(async (w) => {
    // Record every byte the service sends to the plugin: the activation hand-off is all the
    // configuration a plugin ever receives from the service.
    const requests: string[] = [];
    w.services.pluginOutbound = {
      ...w.services.pluginOutbound,
      async connect({ address, port }) {
        const conn = await Deno.connect({ hostname: address, port });
        const n = requests.push("") - 1;
        const write = conn.write.bind(conn);
        conn.write = (bytes: Uint8Array) => {
          requests[n] += new TextDecoder().decode(bytes);
          return write(bytes);
        };
        return conn;
      },
    };
    const id = await w.install();
    // The manifest is fetched without a body; the hand-off is the one request carrying one.
    deepEqual(requests.map((r) => r.slice(0, r.indexOf(" "))), ["GET", "POST"]);
    equal(requests[0].slice(requests[0].indexOf("\r\n\r\n") + 4), "");
    const wire = requests.join("");
    const body = JSON.parse(
      requests[1].slice(requests[1].indexOf("\r\n\r\n") + 4),
    );
    deepEqual(Object.keys(body).sort(), [
      "code",
      "installation_id",
      "kind",
      "service_url",
      "site_id",
      "token",
    ]);
    equal(body.service_url, "http://plugins.test");
    equal(body.token, w.plugin.installations.get(id)!.token);
    const databaseUrl = w.services.config.databaseUrl;
    if (databaseUrl) ok(!wire.includes(new URL(databaseUrl).host));

    // Everything else goes through /api/plugin/v1, whose routes are the table of spec 1
    // part 4.1 and the two moderation commands of PAPI-033 (media removal and Trash restore,
    // docs/plugins.md "Moderation commands"), and no others (a new one is a reviewed change
    // to this list).
    const routes: string[] = [];
    const root = new URL("../../routes/api/plugin/v1/", import.meta.url);
    const walk = async (dir: URL, prefix: string) => {
      for await (const entry of Deno.readDir(dir)) {
        if (entry.isDirectory) {
          await walk(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`);
        } else routes.push(`${prefix}${entry.name}`);
      }
    };
    await walk(root, "");
    deepEqual(routes.sort(), [
      "[...rest].ts",
      "_middleware.ts",
      "content/[instance_id]/index.ts",
      "content/[instance_id]/proposals.ts",
      "content/[instance_id]/restore.ts",
      "content/[instance_id]/transitions/[target_state].ts",
      "content/index.ts",
      "context.ts",
      "drafts/discard.ts",
      "drafts/index.ts",
      "invocations/exchange.ts",
      "launch/exchange.ts",
      "media.ts",
      "media/[media_id]/remove.ts",
      "proposals/[id].ts",
      "releases/commit.ts",
    ]);
    // A path that would run a query or reach storage is no route.
    for (const path of ["/sql", "/query", "/database", "/storage/objects"]) {
      for (const method of ["GET", "POST"]) {
        const answer = await call(w, id, path, {
          method,
          body: method === "POST" ? { sql: "select 1" } : undefined,
          key: method === "POST" ? `probe-${path}` : undefined,
        });
        deepEqual([answer.status, code(answer)], [400, "invalid_request"]);
        equal(
          (answer.body.outcome as Json).message,
          "No such plugin API route in protocol v1",
        );
      }
    }
  }));
