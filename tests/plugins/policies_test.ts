// Plugin content policies through the Management API, against the test plugin as a real HTTP
// server: what a policy sees, every decision, transforms and their refusals, stale pins,
// blocking and advisory failures, the call budget, and the audit (spec 1 parts 2.1, 6, 7;
// spec 2 parts 2.5, 4.3, 7; PEXT-015..023, MAPI-020, AUD-012, AUD-013).
import { deepEqual, equal, ok } from "node:assert/strict";
import { RateWindow } from "../../core/kv/rate_window.ts";
import { POLICY_LIMITS } from "../../core/plugins/policies.ts";
import type { ExamplePolicy } from "../../plugins/testing/plugin.ts";
import { manager, type PluginWorld, withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

const SCOPES = [
  "content:read",
  "content:write",
  "content:trash",
  "lifecycle:publish",
  "workflow:move",
  "plugins:use",
] as const;

/** Installs the test plugin declaring `policies`, and makes one English entry. */
async function setUp(w: PluginWorld, policies: ExamplePolicy[]) {
  w.plugin.behaviour.policies = policies;
  const installationId = await w.install();
  const call = await manager(w, [...SCOPES]);
  const { groupId, instances } = await w.entry({ en: { title: "Hello" } });
  return { installationId, call, groupId, instanceId: instances.en };
}

async function current(w: PluginWorld, instanceId: string) {
  const row = await w.services.db.selectFrom("entries")
    .select(["current_version_id", "published_version_id"])
    .where("id", "=", instanceId).executeTakeFirstOrThrow();
  const version = await w.services.db.selectFrom("entry_versions")
    .select("fields").where("id", "=", row.current_version_id!)
    .executeTakeFirstOrThrow();
  return {
    versionId: row.current_version_id!,
    publishedId: row.published_version_id,
    fields: version.fields as Json,
  };
}

async function versionCount(w: PluginWorld, groupId: string) {
  return (await w.services.db.selectFrom("entry_versions").select("id")
    .where("group_id", "=", groupId).execute()).length;
}

async function save(
  w: PluginWorld,
  set: Awaited<ReturnType<typeof setUp>>,
  fields: Json,
) {
  const { versionId } = await current(w, set.instanceId);
  return await set.call("PUT", `/entries/${set.groupId}`, {
    locale: "en",
    expected_current_version_id: versionId,
    fields,
  });
}

async function policyAudits(w: PluginWorld, action = "plugin.policy.check") {
  return await w.services.db.selectFrom("audit_entries").select("details")
    .where("site_id", "=", w.siteId).where("action", "=", action).execute();
}

Deno.test("a warning policy sees only model, entry, language and the changed values; the save answers policy_results and is audited with digests (PEXT-015, PEXT-016, PEXT-022, PEXT-023, MAPI-020, AUD-012, AUD-013)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "tone",
      kind: "save",
      mode: "blocking",
      answer: {
        decision: "warning",
        message: "The title shouts",
        fields: ["title"],
      },
    }]);
    const res = await save(w, set, { title: "HELLO WORLD" });
    equal(res.status, 200, JSON.stringify(res.body));
    deepEqual(res.body.policy_results, [{
      installation_id: set.installationId,
      plugin_name: "Example publisher",
      policy_id: "tone",
      policy_label: "Policy tone",
      locale: "en",
      message: "The title shouts",
      fields: ["title"],
      outcome: "warning",
    }]);
    equal((await current(w, set.instanceId)).fields.title, "HELLO WORLD");
    // PEXT-015: the exchange gives the check and nothing else, and no delegation.
    deepEqual(w.plugin.policyChecks, [{
      id: "tone",
      kind: "save",
      model_id: w.modelId,
      entry_id: set.groupId,
      locale: "en",
      changed_fields: { title: "HELLO WORLD" },
      transition: null,
      caller: { via: "management_credential" },
    }]);
    const exchange = w.plugin.exchanges.at(-1)!.body as { data: Json };
    deepEqual(Object.keys(exchange.data).sort(), ["invocation_id", "policy"]);
    const audits = await policyAudits(w);
    equal(audits.length, 1);
    const details = JSON.stringify(audits[0].details);
    ok(details.includes('"outcome":"warning"'), details);
    ok(/"input_digest":"[0-9a-f]{64}"/.test(details));
    ok(/"answer_digest":"[0-9a-f]{64}"/.test(details));
    ok(!details.includes("HELLO WORLD") && !details.includes("shouts"));
  }));

Deno.test("a refusing policy answers 422 plugin_policy_refused naming plugin, policy, language, code, message and fields; nothing is written (PEXT-020)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "no-lorem",
      kind: "save",
      mode: "blocking",
      answer: {
        decision: "refuse",
        code: "placeholder_text",
        message: "Replace the placeholder text",
        fields: ["title"],
      },
    }]);
    const before = await versionCount(w, set.groupId);
    const res = await save(w, set, { title: "Lorem ipsum" });
    equal(res.status, 422, JSON.stringify(res.body));
    const error = res.body.error as Json;
    equal(error.code, "plugin_policy_refused");
    deepEqual(error, {
      code: "plugin_policy_refused",
      message: "Replace the placeholder text",
      plugin: "Example publisher",
      installation_id: set.installationId,
      policy: "no-lorem",
      policy_label: "Policy no-lorem",
      locale: "en",
      fields: ["title"],
      refusal: {
        code: "placeholder_text",
        message: "Replace the placeholder text",
      },
    });
    equal(await versionCount(w, set.groupId), before);
    equal((await current(w, set.instanceId)).fields.title, "Hello");
  }));

Deno.test("the service's own checks run before any policy is asked (PEXT-017)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "tone",
      kind: "save",
      mode: "blocking",
      answer: { decision: "allow" },
    }]);
    const res = await set.call("PUT", `/entries/${set.groupId}`, {
      locale: "en",
      expected_current_version_id: crypto.randomUUID(),
      fields: { title: "Stale" },
    });
    equal(res.status, 409);
    equal((res.body.error as Json).code, "version_conflict");
    const unknown = await save(w, set, { title: "x", nope: 1 });
    equal(unknown.status, 422);
    deepEqual(w.plugin.policyChecks, []);
    const allowed = await save(w, set, { title: "Fine" });
    equal(allowed.status, 200);
    deepEqual(allowed.body.policy_results, []);
    equal(w.plugin.policyChecks.length, 1);
  }));

Deno.test("a transform replaces values of the same entry and language, validated like the person's own input (PEXT-016, PEXT-018, MAPI-020)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "tidy",
      kind: "save",
      mode: "blocking",
      answer: (check) => ({
        decision: "transform",
        message: "Trimmed the title",
        entry_id: check.entry_id,
        locale: check.locale,
        values: {
          title: String((check.changed_fields as Json).title).trim(),
        },
      }),
    }]);
    const res = await save(w, set, { title: "  Spaced  " });
    equal(res.status, 200, JSON.stringify(res.body));
    const [result] = res.body.policy_results as Json[];
    equal(result.outcome, "transformed");
    deepEqual(result.fields, ["title"]);
    equal((await current(w, set.instanceId)).fields.title, "Spaced");
    // A transform the person's input could not make is refused with its cause.
    w.plugin.behaviour.policies![0].answer = {
      decision: "transform",
      values: { nope: "x" },
    };
    const before = await versionCount(w, set.groupId);
    const invalid = await save(w, set, { title: "Other" });
    equal(invalid.status, 422, JSON.stringify(invalid.body));
    const error = invalid.body.error as Json;
    equal(error.code, "plugin_policy_transform_invalid");
    ok((error.cause as Json).code);
    equal(await versionCount(w, set.groupId), before);
  }));

Deno.test("a transform reaching another entry or language is plugin_policy_transform_invalid; two policies setting one field differently conflict (PEXT-017, PEXT-018)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "reach",
      kind: "save",
      mode: "advisory",
      answer: {
        decision: "transform",
        entry_id: crypto.randomUUID(),
        values: { title: "Elsewhere" },
      },
    }]);
    const before = await versionCount(w, set.groupId);
    const other = await save(w, set, { title: "Mine" });
    equal(other.status, 422);
    const error = other.body.error as Json;
    equal(error.code, "plugin_policy_transform_invalid");
    equal((error.cause as Json).code, "transform_out_of_scope");
    w.plugin.behaviour.policies![0].answer = {
      decision: "transform",
      locale: "de",
      values: { title: "Anderswo" },
    };
    equal((await save(w, set, { title: "Mine" })).status, 422);
    equal(await versionCount(w, set.groupId), before);
  }));

Deno.test("two policies transforming one field to different values is plugin_policy_transform_conflict; nothing is written (PEXT-018)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [
      {
        id: "upper",
        kind: "save",
        mode: "blocking",
        answer: { decision: "transform", values: { title: "UPPER" } },
      },
      {
        id: "lower",
        kind: "save",
        mode: "blocking",
        answer: { decision: "transform", values: { title: "lower" } },
      },
    ]);
    const before = await versionCount(w, set.groupId);
    const conflict = await save(w, set, { title: "Mine" });
    equal(conflict.status, 422, JSON.stringify(conflict.body));
    equal(
      (conflict.body.error as Json).code,
      "plugin_policy_transform_conflict",
    );
    equal(await versionCount(w, set.groupId), before);
  }));

Deno.test("a save made while a slow policy decides turns the policy-checked write into the ordinary conflict (PEXT-019)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "slow",
      kind: "save",
      mode: "blocking",
      answer: { decision: "allow" },
    }]);
    const { versionId } = await current(w, set.instanceId);
    w.plugin.beforeAnswer = async () => {
      w.plugin.beforeAnswer = undefined;
      // Someone else saves while the policy decides (a plugin-free path: no policy is asked).
      const { saveEntry } = await import("../../core/entries/mod.ts");
      const other = await saveEntry({
        db: w.services.db,
        clock: w.clock,
        siteId: w.siteId,
        actor: { kind: "person", userId: w.adminId },
      }, {
        group_id: set.groupId,
        locale: "en",
        fields: { title: "Theirs" },
        expected_current_version_id: versionId,
      });
      ok(other.ok);
    };
    const res = await set.call("PUT", `/entries/${set.groupId}`, {
      locale: "en",
      expected_current_version_id: versionId,
      fields: { title: "Mine" },
    });
    equal(res.status, 409, JSON.stringify(res.body));
    equal((res.body.error as Json).code, "version_conflict");
    equal((await current(w, set.instanceId)).fields.title, "Theirs");
  }));

Deno.test("a blocking policy without an answer is 503 plugin_policy_unavailable and writes nothing; an advisory one is reported unavailable with its failure (PEXT-021, PEXT-022)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [
      { id: "gate", kind: "save", mode: "blocking", answer: "garbage" },
      { id: "hint", kind: "save", mode: "advisory", answer: "no_exchange" },
    ]);
    const before = await versionCount(w, set.groupId);
    const blocked = await save(w, set, { title: "Blocked" });
    equal(blocked.status, 503, JSON.stringify(blocked.body));
    const error = blocked.body.error as Json;
    equal(error.code, "plugin_policy_unavailable");
    equal(error.failure, "plugin_response_invalid");
    equal(await versionCount(w, set.groupId), before);

    w.plugin.behaviour.policies![0].answer = { decision: "allow" };
    const advised = await save(w, set, { title: "Through" });
    equal(advised.status, 200, JSON.stringify(advised.body));
    deepEqual(
      (advised.body.policy_results as Json[]).map((r) => [
        r.policy_id,
        r.outcome,
        r.failure,
      ]),
      [["hint", "unavailable", "plugin_response_invalid"]],
    );
    equal((await current(w, set.instanceId)).fields.title, "Through");
  }));

Deno.test("a policy that does not answer in time is plugin_timeout: blocking refuses 503, nothing written (PEXT-021)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [
      { id: "gate", kind: "save", mode: "blocking", answer: "hang" },
    ]);
    const res = await save(w, set, { title: "Late" });
    equal(res.status, 503, JSON.stringify(res.body));
    equal(
      (res.body.error as Json).failure,
      "plugin_timeout",
    );
    equal((await current(w, set.instanceId)).fields.title, "Hello");
  }, { timeoutMs: 300 }));

Deno.test("past the policy-call budget a blocking policy refuses 429 plugin_policy_budget_exhausted without calling the plugin (PEXT-021)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "gate",
      kind: "save",
      mode: "blocking",
      answer: { decision: "allow" },
    }]);
    const window = new RateWindow(w.services.kv, { clock: w.clock });
    // The budget's last call is still asked.
    for (let i = 0; i < POLICY_LIMITS.calls_per_window - 1; i++) {
      await window.hit(
        ["plugin_policy", set.installationId],
        POLICY_LIMITS.calls_per_window,
        POLICY_LIMITS.window_ms,
      );
    }
    equal((await save(w, set, { title: "Last" })).status, 200);
    equal(w.plugin.policyChecks.length, 1);
    const res = await save(w, set, { title: "Over" });
    equal(res.status, 429, JSON.stringify(res.body));
    equal((res.body.error as Json).code, "plugin_policy_budget_exhausted");
    equal(w.plugin.policyChecks.length, 1);
    equal((await current(w, set.instanceId)).fields.title, "Last");
    w.clock.advance(POLICY_LIMITS.window_ms);
    equal((await save(w, set, { title: "Later" })).status, 200);
  }));

Deno.test("restore, Trash, publish and review moves run their policies; only save and restore may transform (PEXT-016, PEXT-017, MAPI-020)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [
      {
        id: "restore-tag",
        kind: "restore",
        mode: "blocking",
        answer: { decision: "transform", values: { title: "Restored" } },
      },
      {
        id: "keep",
        kind: "trash",
        mode: "blocking",
        answer: {
          decision: "refuse",
          code: "linked",
          message: "Pages link here",
        },
      },
      {
        id: "ready",
        kind: "transition",
        mode: "blocking",
        answer: (check) =>
          check.transition === "publish"
            ? { decision: "refuse", code: "not_ready", message: "Not yet" }
            : { decision: "warning", message: `Checked ${check.transition}` },
      },
    ]);
    const first = await current(w, set.instanceId);
    equal((await save(w, set, { title: "Second" })).status, 200);
    const second = await current(w, set.instanceId);
    const restored = await set.call(
      "POST",
      `/entries/${set.groupId}/versions/${first.versionId}/restore`,
      { expected_current_version_id: second.versionId },
    );
    equal(restored.status, 200, JSON.stringify(restored.body));
    equal((restored.body.policy_results as Json[])[0].outcome, "transformed");
    equal((await current(w, set.instanceId)).fields.title, "Restored");
    const restoreCheck = w.plugin.policyChecks.at(-1)!;
    deepEqual(restoreCheck.changed_fields, { title: "Hello" });

    const entry = (await set.call("GET", `/entries/${set.groupId}`)).body;
    const revision = Number((entry.data as Json ?? entry).revision);
    const trashed = await set.call("POST", `/entries/${set.groupId}/trash`, {
      expected_workflow_revision: revision,
    });
    equal(trashed.status, 422, JSON.stringify(trashed.body));
    equal((trashed.body.error as Json).code, "plugin_policy_refused");
    const group = await w.services.db.selectFrom("entry_groups")
      .select("trashed_at").where("id", "=", set.groupId)
      .executeTakeFirstOrThrow();
    equal(group.trashed_at, null);

    const now = await current(w, set.instanceId);
    const published = await set.call(
      "POST",
      `/entries/${set.groupId}/publish`,
      {
        locale: "en",
        expected_current_version_id: now.versionId,
        expected_workflow_revision: revision,
      },
    );
    equal(published.status, 422, JSON.stringify(published.body));
    equal((published.body.error as Json).policy, "ready");
    equal((await current(w, set.instanceId)).publishedId, null);
    const submitted = await set.call(
      "POST",
      `/entries/${set.groupId}/transition`,
      { move: "submit", expected_workflow_revision: revision },
    );
    equal(submitted.status, 200, JSON.stringify(submitted.body));
    deepEqual(
      (submitted.body.policy_results as Json[]).map((r) => r.message),
      ["Checked submit"],
    );
  }));

Deno.test("an administrator's policy mode applies to the next write and is audited as plugin.policy.mode; the listing shows it (AUD-012, MPL-002, PEXT-010)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "gate",
      kind: "save",
      mode: "blocking",
      answer: "unavailable",
    }]);
    equal((await save(w, set, { title: "No" })).status, 503);
    const changed = await w.admin(
      "POST",
      `/api/plugins/${set.installationId}/policies/gate/mode`,
      { mode: "advisory" },
    );
    equal(changed.status, 200, await changed.clone().text());
    const listed = await set.call("GET", "/plugins");
    deepEqual(
      ((listed.body.data as Json[])[0].policies as Json[]).map((p) => p.mode),
      ["advisory"],
    );
    const advised = await save(w, set, { title: "Yes" });
    equal(advised.status, 200);
    equal(
      (advised.body.policy_results as Json[])[0].failure,
      "plugin_unavailable",
    );
    equal(
      (await w.admin(
        "POST",
        `/api/plugins/${set.installationId}/policies/gate/mode`,
        { mode: "off" },
      )).status,
      200,
    );
    const asked = w.plugin.policyCalls.length;
    const off = await save(w, set, { title: "Off" });
    equal(off.status, 200);
    deepEqual(off.body.policy_results, []);
    equal(w.plugin.policyCalls.length, asked);
    const audits = await policyAudits(w, "plugin.policy.mode");
    deepEqual(
      audits.map((a) => (a.details as Json).mode),
      ["advisory", "off"],
    );
    const unknown = await w.admin(
      "POST",
      `/api/plugins/${set.installationId}/policies/nope/mode`,
      { mode: "off" },
    );
    equal(unknown.status, 404);
    const bad = await w.admin(
      "POST",
      `/api/plugins/${set.installationId}/policies/gate/mode`,
      { mode: "sometimes" },
    );
    equal(bad.status, 400);
  }));

Deno.test("the envelope, the exchange and the answer together: 65,536 bytes are judged, 65,537 are plugin_response_invalid (OUT-022)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "pad",
      kind: "save",
      mode: "blocking",
      answer: { fill: 0 },
    }]);
    // At the limit the answer is judged and its transform applied.
    const atLimit = await save(w, set, { title: "Padded" });
    equal(atLimit.status, 200, JSON.stringify(atLimit.body).slice(0, 300));
    equal((atLimit.body.policy_results as Json[])[0].outcome, "transformed");
    const padded = String((await current(w, set.instanceId)).fields.title);
    ok(padded.length > 60_000 && /^x+$/.test(padded));
    w.plugin.behaviour.policies![0].answer = { fill: 1 };
    const over = await save(w, set, { title: "Padded" });
    equal(over.status, 503, JSON.stringify(over.body).slice(0, 300));
    equal((over.body.error as Json).failure, "plugin_response_invalid");
    equal((await current(w, set.instanceId)).fields.title, padded);
  }));
