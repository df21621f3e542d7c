// Long on purpose: every answer classification runs against one test plugin server, started once.
// Plugin operations through the Management API, against the test plugin as a real HTTP server:
// listings, launch links, invocations, the exchange and every answer classification (spec 1
// parts 2.4, 2.5, 7; spec 2 parts 2.5, 4.2, 4.3; MPL, LAU-021..023, PEXT-011..014), and the
// rich-block registry the Management API lists (MPL-001, PAUX-018).
import { deepEqual, equal, ok } from "node:assert/strict";
import type { Scope } from "../../core/access/scopes.ts";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { createModel } from "../../core/models/store.ts";
import { saveTestEntry } from "../support/entries.ts";
import { manager, SITE_HOST, withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

const ALL: Scope[] = ["content:read", "content:write", "plugins:use"];

Deno.test("GET /plugins lists what this credential may launch and run now; a disabled plugin offers nothing (MPL-001, MPL-002, MPL-006, MPL-011)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const call = await manager(w, ALL);
    const listed = await call("GET", "/plugins");
    equal(listed.status, 200);
    const [plugin] = listed.body.data as Json[];
    equal(plugin.id, id);
    equal(plugin.state, "active");
    equal(plugin.launchable, true);
    deepEqual((plugin.manage_views as Json[]).map((v) => v.id), ["calendar"]);
    deepEqual((plugin.content_actions as Json[])[0].model_ids, [w.modelId]);
    const ops = plugin.operations as Json[];
    // release-check needs workflow:release, which no management scope maps to (MPL-006).
    deepEqual(ops.map((o) => o.id), ["word-count", "site-report", "archive"]);
    const wordCount = ops[0];
    deepEqual(wordCount.model_ids, [w.modelId]);
    deepEqual((wordCount.input_schema as Json).additionalProperties, false);
    deepEqual(wordCount.mcp_tool, {
      name: "plugin_com_example_publisher_op_word_count",
      omitted_because: null,
    });
    ok(Array.isArray(plugin.policies));
    // Without content:write the destructive archive is not offered.
    const reader = await manager(w, ["content:read", "plugins:use"]);
    const readerOps = ((await reader("GET", "/plugins/operations")).body
      .data as Json[]).map((o) => o.id);
    deepEqual(readerOps, ["word-count", "site-report"]);
    for (const path of ["/plugins/manage-views", "/plugins/content-actions"]) {
      const res = await call("GET", path);
      equal(res.status, 200, path);
      equal((res.body.data as Json[]).length, 1, path);
    }
    const noScope = await manager(w, ["content:read"]);
    equal((await noScope("GET", "/plugins")).status, 403);
    equal(
      (await w.admin("POST", `/api/plugins/${id}/disable`, {})).status,
      200,
    );
    const disabled = (await call("GET", "/plugins")).body.data as Json[];
    equal(disabled[0].state, "disabled");
    deepEqual(
      [
        disabled[0].operations,
        disabled[0].manage_views,
        disabled[0].launchable,
      ],
      [[], [], false],
    );
    deepEqual((await call("GET", "/plugins/operations")).body.data, []);
  }));

Deno.test("launch links from the Management API open once (MPL-003, MPL-004, LAU-029)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const call = await manager(w, ALL);
    const view = await call(
      "POST",
      `/plugins/${id}/manage-views/calendar/launch`,
      {},
    );
    equal(view.status, 201, JSON.stringify(view.body));
    deepEqual(Object.keys(view.body).sort(), [
      "expires_at",
      "outcome",
      "single_use",
      "url",
    ]);
    equal(view.body.outcome, "launch_created");
    equal(view.body.single_use, true);
    const { instances } = await w.entry({ en: { title: "Hello" } });
    const action = await call(
      "POST",
      `/plugins/${id}/content-actions/publish-later/entries/${instances.en}/launch`,
      {},
    );
    equal(action.status, 201);
    const page = await fetch(String(action.body.url), { redirect: "manual" });
    await page.body?.cancel();
    equal(page.status, 303);
    const again = await fetch(String(action.body.url), { redirect: "manual" });
    await again.body?.cancel();
    equal(again.status, 403);
    const unknown = await call(
      "POST",
      `/plugins/${id}/manage-views/nope/launch`,
      {},
    );
    equal(unknown.status, 404);
  }));

Deno.test("invoke runs an entry operation: a four-key envelope, an exchange bound to the entry, result blocks, an audit with digests (MPL-007, PEXT-011, PEXT-013, LAU-021)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const call = await manager(w, ALL);
    const { instances } = await w.entry({ en: { title: "Hello" } });
    const other = await w.entry({ en: { title: "Other" } });
    const res = await call(
      "POST",
      `/plugins/${id}/operations/word-count/invoke`,
      {
        instance_id: instances.en,
        input: { note: "a secret note", mode: "fast" },
      },
    );
    equal(res.status, 200, JSON.stringify(res.body));
    equal(res.body.outcome, "completed");
    const blocks = (res.body.result as { blocks: Json[] }).blocks;
    deepEqual(blocks[0], { type: "text", text: "Ran word-count" });
    deepEqual(w.plugin.invocations.map((e) => Object.keys(e).sort()), [[
      "code",
      "expires_at",
      "installation_id",
      "invocation_id",
    ]]);
    const exchange = (blocks[1].data as { data: Json }).data;
    equal(exchange.invocation_id, res.body.invocation_id);
    equal(exchange.instance_id, instances.en);
    deepEqual(exchange.input, { note: "a secret note", mode: "fast" });
    // The delegation reaches only that entry.
    const own = await w.plugin.api(
      id,
      `/content/${instances.en}?delegation_id=${exchange.delegation_id}`,
    );
    equal(own.status, 200);
    const foreign = await w.plugin.api(
      id,
      `/content/${other.instances.en}?delegation_id=${exchange.delegation_id}`,
    );
    equal((await foreign.json()).outcome.code, "requester_unauthorized");
    const audits = await w.services.db.selectFrom("audit_entries").select(
      "details",
    ).where("site_id", "=", w.siteId).where(
      "action",
      "=",
      "plugin.operation.run",
    ).execute();
    // AUD-011: one plugin.operation.run per run, classified outcome and digests, never the values.
    equal(audits.length, 1);
    const details = JSON.stringify(audits[0].details);
    ok(details.includes('"outcome":"completed"'));
    ok(/"input_digest":"[0-9a-f]{64}"/.test(details));
    ok(!details.includes("secret note"));
  }));

Deno.test("a site operation reaches the granted models and takes no instance_id; input is closed (MPL-008, MPL-009, LAU-022)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const call = await manager(w, ALL);
    const { instances } = await w.entry({ en: { title: "Hello" } });
    const site = await call(
      "POST",
      `/plugins/${id}/operations/site-report/invoke`,
      {},
    );
    equal(site.status, 200, JSON.stringify(site.body));
    const exchange = ((site.body.result as { blocks: Json[] }).blocks[1]
      .data as { data: Json }).data;
    equal(exchange.instance_id, null);
    deepEqual(exchange.model_ids, [{ model_id: w.modelId, access: "read" }]);
    const cases: [string, unknown, string][] = [
      ["site-report", { instance_id: instances.en }, "instance_id"],
      ["word-count", {}, "instance_id"],
      [
        "word-count",
        { instance_id: instances.en, input: { extra: 1 } },
        "input.extra",
      ],
      ["word-count", {
        instance_id: instances.en,
        input: { note: "x".repeat(21) },
      }, "input.note"],
      [
        "word-count",
        { instance_id: instances.en, input: { mode: "slow" } },
        "input.mode",
      ],
    ];
    for (const [op, body, path] of cases) {
      const res = await call(
        "POST",
        `/plugins/${id}/operations/${op}/invoke`,
        body,
      );
      equal(res.status, 400, JSON.stringify(body));
      const error = res.body.error as Json;
      equal(error.code, "input_invalid");
      ok((error.issues as Json[]).some((i) => i.path === path), path);
    }
    // The last value accepted: 20 characters.
    equal(
      (await call("POST", `/plugins/${id}/operations/word-count/invoke`, {
        instance_id: instances.en,
        input: { note: "x".repeat(20) },
      })).status,
      200,
    );
    equal(w.plugin.invocations.length, 2);
    for (
      const [path, status, code] of [
        [`/plugins/${id}/operations/nope/invoke`, 404, "operation_unavailable"],
        [
          `/plugins/${id}/operations/release-check/invoke`,
          404,
          "operation_unavailable",
        ],
        [
          `/plugins/${crypto.randomUUID()}/operations/word-count/invoke`,
          404,
          "operation_unavailable",
        ],
      ] as const
    ) {
      const res = await call("POST", path, { instance_id: instances.en });
      equal(res.status, status, path);
      equal((res.body.error as Json).code, code, path);
    }
    const missing = await call(
      "POST",
      `/plugins/${id}/operations/word-count/invoke`,
      {
        instance_id: crypto.randomUUID(),
      },
    );
    equal(missing.status, 404);
    equal((missing.body.error as Json).code, "not_found");
  }));

Deno.test("every answer is classified: refused, unexchanged, garbage, undeclared blocks, unavailable, a grant changed mid-run (MPL-013, PEXT-006, PEXT-013, PEXT-014)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const call = await manager(w, ALL);
    const { instances } = await w.entry({ en: { title: "Hello" } });
    const invoke = () =>
      call("POST", `/plugins/${id}/operations/word-count/invoke`, {
        instance_id: instances.en,
      });
    const cases = [
      ["refuse", 422, "plugin_refused"],
      ["no_exchange", 502, "plugin_response_invalid"],
      ["garbage", 502, "plugin_response_invalid"],
      ["undeclared_block", 502, "plugin_response_invalid"],
      ["unavailable", 409, "plugin_unavailable"],
    ] as const;
    for (const [mode, status, code] of cases) {
      w.plugin.behaviour.operation = mode;
      const res = await invoke();
      equal(res.status, status, mode);
      equal((res.body.error as Json).code, code, mode);
    }
    w.plugin.behaviour.operation = "refuse";
    deepEqual(((await invoke()).body.error as Json).plugin, {
      code: "nothing_to_do",
      message: "Nothing to count in this entry",
    });
    // The installation is disabled while the plugin works: its answer is not accepted.
    w.plugin.behaviour.operation = "ok";
    w.plugin.beforeAnswer = async () => {
      w.plugin.beforeAnswer = undefined;
      await w.admin("POST", `/api/plugins/${id}/disable`, {});
    };
    const changed = await invoke();
    equal(changed.status, 409);
    equal((changed.body.error as Json).code, "plugin_unavailable");
    const notActive = await invoke();
    equal(notActive.status, 409);
    equal((notActive.body.error as Json).code, "installation_not_active");
  }));

Deno.test("an invocation code is single-use, only for its running invocation, and never a launch code (LAU-023)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const call = await manager(w, ALL);
    const { instances } = await w.entry({ en: { title: "Hello" } });
    w.plugin.behaviour.operation = "no_exchange";
    await call("POST", `/plugins/${id}/operations/word-count/invoke`, {
      instance_id: instances.en,
    });
    const code = w.plugin.lastCode!;
    ok(code.startsWith("svi_"));
    for (const path of ["/launch/exchange", "/invocations/exchange"]) {
      const res = await w.plugin.api(id, path, { body: { code } });
      equal(res.status, 400, path);
      equal((await res.json()).outcome.code, "invalid_request", path);
    }
    const launch = await call(
      "POST",
      `/plugins/${id}/content-actions/publish-later/entries/${instances.en}/launch`,
      {},
    );
    const launchCode = new URL(String(launch.body.url)).searchParams.get(
      "svc_launch",
    )!;
    const wrongDoor = await w.plugin.api(id, "/invocations/exchange", {
      body: { code: launchCode },
    });
    equal((await wrongDoor.json()).outcome.code, "invalid_request");
    // Refused without burning it: the launch code still opens its page once.
    const right = await w.plugin.api(id, "/launch/exchange", {
      body: { code: launchCode },
    });
    equal(right.status, 200);
  }));

Deno.test("a second run of the same operation on the same entry waits: 409 invocation_in_progress (MPL-013)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const call = await manager(w, ALL);
    const { instances } = await w.entry({ en: { title: "Hello" } });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let second: Awaited<ReturnType<typeof call>> | undefined;
    w.plugin.beforeAnswer = async () => {
      w.plugin.beforeAnswer = undefined;
      second = await call(
        "POST",
        `/plugins/${id}/operations/word-count/invoke`,
        {
          instance_id: instances.en,
        },
      );
      release();
      await held;
    };
    const first = await call(
      "POST",
      `/plugins/${id}/operations/word-count/invoke`,
      {
        instance_id: instances.en,
      },
    );
    equal(first.status, 200);
    equal(second!.status, 409);
    equal((second!.body.error as Json).code, "invocation_in_progress");
  }));

Deno.test("a plugin that does not answer in time is plugin_timeout (MPL-013)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const call = await manager(w, ALL);
    const { instances } = await w.entry({ en: { title: "Hello" } });
    w.plugin.behaviour.operation = "hang";
    const res = await call(
      "POST",
      `/plugins/${id}/operations/word-count/invoke`,
      {
        instance_id: instances.en,
      },
    );
    equal(res.status, 504);
    equal((res.body.error as Json).code, "plugin_timeout");
  }, { timeoutMs: 300 }));

Deno.test("a replayed invoke is checked like a new run first: after the grant narrows, the same key is refused, not replayed (MPL-010)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { instances } = await w.entry({ en: { title: "Replay" } });
    const { secret } = await insertCredential(w.services.db, w.clock, {
      siteId: w.siteId,
      creatorId: w.adminId,
      name: "replayer",
      scopes: ALL,
      models: null,
    });
    const send = async () => {
      const res = await w.app.request(
        `http://${SITE_HOST}/api/manage/v1/plugins/${id}/operations/word-count/invoke`,
        {
          method: "POST",
          headers: {
            host: SITE_HOST,
            authorization: `Bearer ${secret}`,
            "content-type": "application/json",
            "idempotency-key": "same-run",
          },
          body: JSON.stringify({
            instance_id: instances.en,
            input: { note: "n", mode: "fast" },
          }),
        },
      );
      return { status: res.status, body: await res.json() as Json };
    };
    const first = await send();
    equal(first.status, 200, JSON.stringify(first.body));
    const replayed = await send();
    equal(replayed.status, 200);
    equal(replayed.body.invocation_id, first.body.invocation_id);
    equal(w.plugin.invocations.length, 1, "a replay sends nothing");

    const narrowed = await w.admin("POST", `/api/plugins/${id}/grant`, {
      capabilities: w.plugin.behaviour.capabilities,
      model_ids: [],
    });
    equal(narrowed.status, 200);
    const refused = await send();
    equal(refused.status, 404);
    equal((refused.body.error as Json).code, "not_found");
    equal(w.plugin.invocations.length, 1);
  }));

Deno.test("a delegation a credential launched keeps its scopes: a publish outside them is capability_refused (MPL-006)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "Scoped" } });
    const group = await w.services.db.selectFrom("entry_groups")
      .select(["current_version_id", "revision"]).where("id", "=", groupId)
      .executeTakeFirstOrThrow();
    const publishWith = async (scopes: Scope[], key: string) => {
      const call = await manager(w, scopes);
      const link = await call(
        "POST",
        `/plugins/${id}/content-actions/publish-later/entries/${instances.en}/launch`,
        {},
      );
      equal(link.status, 201, JSON.stringify(link.body));
      const page = await fetch(String(link.body.url), { redirect: "manual" });
      await page.body?.cancel();
      const delegation = (w.plugin.delegations.get(id) as {
        delegation_id: string;
      }).delegation_id;
      const read = await w.plugin.api(
        id,
        `/content/${instances.en}?delegation_id=${delegation}`,
      );
      equal(read.status, 200, "content:read is within both credentials");
      await read.body?.cancel();
      const res = await w.plugin.api(
        id,
        `/content/${instances.en}/transitions/published`,
        {
          method: "POST",
          key,
          body: {
            kind: "publish",
            expected_current_version_id: group.current_version_id,
            expected_workflow_revision: group.revision,
            delegation_id: delegation,
          },
        },
      );
      return { status: res.status, body: await res.json() as Json };
    };
    const narrow = await publishWith(["content:read", "plugins:use"], "k-1");
    equal(narrow.status, 403);
    equal((narrow.body.outcome as Json).code, "capability_refused");
    const published = await w.services.db.selectFrom("entries")
      .select("published_version_id").where("id", "=", instances.en)
      .executeTakeFirstOrThrow();
    equal(published.published_version_id, null);

    const wide = await publishWith(
      ["content:read", "lifecycle:publish", "plugins:use"],
      "k-2",
    );
    equal((wide.body.outcome as Json).code, "transition_applied");
  }));

Deno.test("the creator's own authority: a destructive entry operation needs update, a site operation site:plugins, an entry inside the credential's models (MPL-012)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { instances } = await w.entry({ en: { title: "Guarded" } });
    const roleId = await insertRole(w.services.db, w.siteId, {
      models: { "*": ["read"] },
      system: [],
    }, w.clock);
    const readerId = await insertMember(w.services.db, w.siteId, {
      roleId,
      clock: w.clock,
    });
    const as = async (creatorId: string, models: string[] | null) => {
      const { secret } = await insertCredential(w.services.db, w.clock, {
        siteId: w.siteId,
        creatorId,
        name: `creator ${creatorId}`,
        scopes: ALL,
        models,
      });
      let n = 0;
      return async (operation: string, body: Json) => {
        const res = await w.app.request(
          `http://${SITE_HOST}/api/manage/v1/plugins/${id}/operations/${operation}/invoke`,
          {
            method: "POST",
            headers: {
              host: SITE_HOST,
              authorization: `Bearer ${secret}`,
              "content-type": "application/json",
              "idempotency-key": `mpl-012-${++n}-${crypto.randomUUID()}`,
            },
            body: JSON.stringify(body),
          },
        );
        return { status: res.status, body: await res.json() as Json };
      };
    };
    const reader = await as(readerId, null);
    const read = await reader("word-count", { instance_id: instances.en });
    equal(read.status, 200, "reading is what this creator may do");
    const runs = w.plugin.invocations.length;
    const destructive = await reader("archive", { instance_id: instances.en });
    equal(destructive.status, 403, JSON.stringify(destructive.body));
    equal((destructive.body.error as Json).code, "missing_permission");
    const site = await reader("site-report", {});
    equal(site.status, 403);
    equal((site.body.error as Json).code, "missing_permission");
    equal(w.plugin.invocations.length, runs, "the plugin was never called");

    const admin = await as(w.adminId, null);
    equal((await admin("archive", { instance_id: instances.en })).status, 200);
    equal((await admin("site-report", {})).status, 200);
    // A credential limited to other models does not reach this entry.
    const elsewhere = await as(w.adminId, [crypto.randomUUID()]);
    const outside = await elsewhere("word-count", {
      instance_id: instances.en,
    });
    equal(outside.status, 404);
  }));

Deno.test("GET /rich-blocks lists the active plugins' rich blocks with their controls and rules, from the registry /v1/_rich-blocks reads; content:read (always included), whatever the credential's models (MPL-001, PAUX-018)", () =>
  withPluginWorld(async (w) => {
    const publicList = async () => {
      const res = await w.app.request(`http://${SITE_HOST}/v1/_rich-blocks`, {
        headers: { host: SITE_HOST },
      });
      equal(res.status, 200);
      return (await res.json() as Json).data;
    };
    const reader = await manager(w, ["content:read"]);
    deepEqual(await reader("GET", "/rich-blocks"), {
      status: 200,
      body: { data: [] },
    });
    w.plugin.behaviour.richBlocks = true;
    const id = await w.install();
    const listed = await reader("GET", "/rich-blocks");
    equal(listed.status, 200, JSON.stringify(listed.body));
    // Defaults the manifest left out are spelled out: required, min_items, inline.
    deepEqual(listed.body.data, [{
      installation_id: id,
      plugin_id: "com.example.publisher",
      type: "pull-quote",
      label: "Pull quote",
      description: "A quotation set apart from the text",
      version: 2,
      inline: false,
      controls: [
        { name: "text", label: "Quote", type: "textarea", required: true },
        {
          name: "by",
          label: "By",
          type: "text",
          required: false,
          max_length: 200,
        },
        {
          name: "sources",
          label: "Sources",
          type: "group",
          min_items: 0,
          max_items: 5,
          controls: [
            { name: "url", label: "Address", type: "url", required: false },
          ],
        },
      ],
      rules: [{ kind: "one_of_required", fields: ["by", "sources"] }],
    }]);
    deepEqual(await publicList(), [{
      plugin_id: "com.example.publisher",
      key: "pull-quote",
      label: "Pull quote",
      version: 2,
    }]);
    // Blocks are not bound to models: a credential limited to another model sees the same.
    const elsewhere = await manager(w, ["content:read"], {
      models: [crypto.randomUUID()],
    });
    deepEqual(await elsewhere("GET", "/rich-blocks"), listed);
    // content:read is always included (spec 2 part 5.1): a credential asking only for
    // plugins:use holds it, so no credential is refused this route for its scopes.
    const withoutAsking = await manager(w, ["plugins:use"]);
    deepEqual(await withoutAsking("GET", "/rich-blocks"), listed);
    equal(
      (await w.admin("POST", `/api/plugins/${id}/disable`, {})).status,
      200,
    );
    deepEqual(await reader("GET", "/rich-blocks"), {
      status: 200,
      body: { data: [] },
    });
    deepEqual(await publicList(), []);
  }));

Deno.test("a credential limited to one model launches a plugin that acts within it: the delegation holds no other granted model, and a publish there is requester_unauthorized (MPL-005)", () =>
  withPluginWorld(async (w) => {
    const ctx = { db: w.services.db, clock: w.clock, siteId: w.siteId };
    const notes = await createModel(ctx, {
      model: { name: "Notes", slug: "notes", enableI18n: true },
      fields: [{ key: "title", label: "Title", type: "text", localized: true }],
    });
    if (!notes.ok) throw new Error(`Cannot create the model: ${notes.code}`);
    const modelB = notes.model_id;
    const id = await w.install({ model_ids: [w.modelId, modelB] });
    const inA = await w.entry({ en: { title: "In A" } });
    const inB = await saveTestEntry(
      { ...ctx, userId: w.adminId, modelId: modelB },
      { en: { title: "In B" } },
    );
    const scopes: Scope[] = [
      "content:read",
      "lifecycle:publish",
      "plugins:use",
    ];
    const launch = async (models: string[] | null) => {
      const call = await manager(w, scopes, { models });
      const link = await call(
        "POST",
        `/plugins/${id}/manage-views/calendar/launch`,
        {},
      );
      equal(link.status, 201, JSON.stringify(link.body));
      const page = await fetch(String(link.body.url), { redirect: "manual" });
      await page.body?.cancel();
      equal(page.status, 303);
      return w.plugin.delegations.get(id) as {
        delegation_id: string;
        model_ids: { model_id: string; access: string }[];
      };
    };
    // The creator reads both granted models: without a model limit both are delegated.
    const whole = await launch(null);
    deepEqual(
      whole.model_ids.map((m) => m.model_id).sort(),
      [w.modelId, modelB].sort(),
    );
    const limited = await launch([w.modelId]);
    deepEqual(limited.model_ids, [{ model_id: w.modelId, access: "read" }]);
    // Limited to a model the plugin is not granted, the view would reach nothing: refused.
    const other = await createModel(ctx, {
      model: { name: "Other", slug: "other" },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    if (!other.ok) throw new Error(`Cannot create the model: ${other.code}`);
    const outside = await manager(w, scopes, { models: [other.model_id] });
    const refused = await outside(
      "POST",
      `/plugins/${id}/manage-views/calendar/launch`,
      {},
    );
    equal(refused.status, 403, JSON.stringify(refused.body));
    equal((refused.body.error as Json).code, "model_not_granted");

    const publish = async (
      entry: { groupId: string; instances: Record<string, string> },
      key: string,
    ) => {
      const group = await w.services.db.selectFrom("entry_groups")
        .select(["current_version_id", "revision"])
        .where("id", "=", entry.groupId).executeTakeFirstOrThrow();
      const res = await w.plugin.api(
        id,
        `/content/${entry.instances.en}/transitions/published`,
        {
          method: "POST",
          key,
          body: {
            kind: "publish",
            expected_current_version_id: group.current_version_id,
            expected_workflow_revision: group.revision,
            delegation_id: limited.delegation_id,
          },
        },
      );
      return { status: res.status, body: await res.json() as Json };
    };
    const onB = await publish(inB, "mpl-005-b");
    equal(onB.status, 403, JSON.stringify(onB.body));
    equal((onB.body.outcome as Json).code, "requester_unauthorized");
    const stillDraft = await w.services.db.selectFrom("entries")
      .select("published_version_id").where("id", "=", inB.instances.en)
      .executeTakeFirstOrThrow();
    equal(stillDraft.published_version_id, null, "nothing was published");
    // The same delegation publishes on the model the credential holds.
    const onA = await publish(inA, "mpl-005-a");
    equal((onA.body.outcome as Json).code, "transition_applied");
  }));
