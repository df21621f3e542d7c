// The plugin API on content with a real plugin server: launches, delegated reads, pinned transitions
// with Idempotency-Key, rotation overlap, and authority re-checked on every command (LAU, PAPI, PEXT, AUD).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { withPluginWorld } from "./world.ts";

async function json(res: Response) {
  return await res.json();
}

Deno.test("launch, exchange, delegated read and a publish then unpublish with pins and idempotency (LAU-001, PAPI-011, PAPI-012, AUD-001)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({
      en: { title: "Hello" },
      de: { title: "Hallo" },
    });
    const launch = await w.admin("POST", `/api/plugins/${id}/launch`, {
      kind: "content_action",
      action: "publish-later",
      instance_id: instances.en,
    });
    equal(launch.status, 201);
    // LAU-005: the launch answer carries no referrer onwards.
    equal(launch.headers.get("referrer-policy"), "no-referrer");
    const launched = (await json(launch)).data;
    match(launched.code, /^svl_[A-Za-z0-9_-]{43}$/);
    ok(
      launched.url.startsWith(
        `${w.plugin.origin}/installations/${id}?svc_launch=svl_`,
      ),
    );
    const page = await fetch(launched.url, { redirect: "manual" });
    await page.body?.cancel();
    // LAU-012: the plugin's page sends no referrer and redirects to a URL without svc_launch.
    equal(page.status, 303);
    equal(page.headers.get("referrer-policy"), "no-referrer");
    equal(page.headers.get("location"), `/installations/${id}`);
    // LAU-013: the page's backend exchanged the code with its own bearer for a delegation.
    const delegation = w.plugin.delegations.get(id) as Record<string, unknown>;
    match(String(delegation.delegation_id), /^[0-9a-f-]{36}$/);
    // LAU-003: bound to the launching person, the action and the one instance.
    equal(delegation.action, "publish-later");
    equal(delegation.instance_id, instances.en);
    equal(delegation.group_id, groupId);
    deepEqual(delegation.model_ids, [{ model_id: w.modelId, access: "read" }]);
    deepEqual(delegation.user, { id: w.adminId, email: "admin@plugins.test" });
    // One-time: the same code again is refused.
    const again = await w.plugin.api(id, "/launch/exchange", {
      body: { code: launched.code },
    });
    equal((await json(again)).outcome.code, "invalid_request");

    const delegationId = String(delegation.delegation_id);
    const read = await json(
      await w.plugin.api(
        id,
        `/content/${instances.en}?delegation_id=${delegationId}`,
      ),
    );
    equal(read.data.fields.title, "Hello");
    // PAPI-006: the workflow block (revision, transitions, per-language transitions) and both pointers.
    const wf = read.data.workflow;
    equal(typeof wf.revision, "number");
    deepEqual(wf.transitions.map((t: { kind: string }) => t.kind).sort(), [
      "publish",
      "submit",
      "trash",
    ]);
    deepEqual(wf.locales.de.transitions, [{
      kind: "publish",
      to: "published",
    }]);
    equal(read.data.current_version_id, wf.current_version_id);
    equal(read.data.published_version_id, null);

    const command = {
      kind: "publish",
      expected_current_version_id: wf.current_version_id,
      expected_workflow_revision: wf.revision,
      delegation_id: delegationId,
    };
    const path = `/content/${instances.en}/transitions/published`;
    // PAPI-016: no Idempotency-Key header is refused, and nothing moves.
    const noKey = await w.plugin.api(id, path, { body: command });
    equal(noKey.status, 400);
    equal((await json(noKey)).outcome.code, "invalid_request");
    equal(
      (await w.services.db.selectFrom("entries").select("id")
        .where("group_id", "=", groupId)
        .where("published_version_id", "is not", null).execute()).length,
      0,
    );
    // PAPI-009: the transition command answers { outcome } with transition_applied.
    const first = await w.plugin.api(id, path, { body: command, key: "k1" });
    equal(first.status, 200);
    const applied = await json(first);
    equal(applied.outcome.code, "transition_applied");
    equal(applied.result.state, "published");
    // PAPI-017: a publish result reports redirect (here none was made).
    ok("redirect" in applied.result);
    equal(applied.result.redirect, null);
    equal(applied.result.revision, wf.revision + 1);
    // PAPI-019: the same key and request replay the whole first result with no new effect
    // (one event per language below); the same key with another request is refused.
    const replay = await json(
      await w.plugin.api(id, path, { body: command, key: "k1" }),
    );
    equal(replay.outcome.code, "idempotent_replay");
    deepEqual(replay.result, applied.result);
    const reused = await w.plugin.api(id, path, {
      body: { ...command, expected_workflow_revision: 99 },
      key: "k1",
    });
    equal(reused.status, 409);
    equal((await json(reused)).outcome.code, "idempotency_key_reused");
    const events = await w.services.db.selectFrom("workflow_events")
      .selectAll().where("group_id", "=", groupId).where("kind", "=", "publish")
      .execute();
    equal(events.length, 2, "one event per language, once");
    const actor = events[0].actor as Record<string, unknown>;
    // LAU-019: the delegated write is attributed to the installation and the person's email.
    equal(actor.kind, "plugin");
    equal(actor.installation_id, id);
    equal(actor.plugin_id, "com.example.publisher");
    equal(actor.version, "1.0.0");
    equal(actor.person_email, "admin@plugins.test");
    const details = events[0].details as Record<string, unknown>;
    match(String(details.idempotency_key_digest), /^[0-9a-f]{64}$/);
    equal(details.protocol_version, "1");
    ok(!JSON.stringify(events).includes('"k1"'), "never the key itself");

    // PAPI-012: the revision read before the publish is now one behind: workflow_conflict.
    const stale = await w.plugin.api(
      id,
      `/content/${instances.en}/transitions/draft`,
      {
        body: {
          kind: "unpublish",
          expected_published_version_id: applied.result.published_version_id,
          expected_workflow_revision: wf.revision,
          delegation_id: delegationId,
        },
        key: "k2",
      },
    );
    equal((await json(stale)).outcome.code, "workflow_conflict");
    const wrongPin = await w.plugin.api(
      id,
      `/content/${instances.en}/transitions/draft`,
      {
        body: {
          kind: "unpublish",
          expected_published_version_id: crypto.randomUUID(),
          expected_workflow_revision: applied.result.revision,
          delegation_id: delegationId,
        },
        key: "k3",
      },
    );
    // PAPI-011: an unpublish pinned to a published version that is not the current one is stale.
    equal((await json(wrongPin)).outcome.code, "scheduled_target_stale");
    const un = await w.plugin.api(
      id,
      `/content/${instances.en}/transitions/draft`,
      {
        body: {
          kind: "unpublish",
          expected_published_version_id: applied.result.published_version_id,
          expected_workflow_revision: applied.result.revision,
          delegation_id: delegationId,
        },
        key: "k4",
      },
    );
    const unpublished = await json(un);
    equal(unpublished.outcome.code, "transition_applied");
    equal(unpublished.result.state, "draft");
    // PAPI-017: an unpublish reports no redirect.
    ok(!("redirect" in unpublished.result), "an unpublish reports no redirect");
    const offNow = await w.plugin.api(
      id,
      `/content/${instances.en}/transitions/draft`,
      {
        body: {
          kind: "unpublish",
          expected_published_version_id: applied.result.published_version_id,
          expected_workflow_revision: unpublished.result.revision,
          delegation_id: delegationId,
        },
        key: "k5",
      },
    );
    equal((await json(offNow)).outcome.code, "transition_unavailable");
  }));

Deno.test("one language with workflow:locale; an unknown language is locale_unavailable; without the capability capability_refused (PAPI-015)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { instances } = await w.entry({
      en: { title: "A" },
      de: { title: "B" },
    });
    const delegationId = await w.delegate(id, instances.en);
    const read = (await json(
      await w.plugin.api(
        id,
        `/content/${instances.en}?delegation_id=${delegationId}`,
      ),
    )).data;
    const body = (locale: string) => ({
      kind: "publish",
      expected_current_version_id: read.current_version_id,
      expected_workflow_revision: read.workflow.revision,
      delegation_id: delegationId,
      locale,
    });
    const path = `/content/${instances.en}/transitions/published`;
    const fr = await w.plugin.api(id, path, { body: body("fr"), key: "a" });
    equal((await json(fr)).outcome.code, "locale_unavailable");
    const de = await json(
      await w.plugin.api(id, path, { body: body("de"), key: "b" }),
    );
    equal(de.outcome.code, "transition_applied");
    deepEqual(
      de.result.languages.map((
        l: { locale: string; published_version_id: string | null },
      ) => [l.locale, l.published_version_id !== null]),
      [["en", false], ["de", true]],
    );
    await w.admin("POST", `/api/plugins/${id}/grant`, {
      capabilities: ["content:read", "workflow:read", "workflow:publish"],
      model_ids: [w.modelId],
    });
    const narrowed = await w.plugin.api(id, path, {
      body: body("en"),
      key: "c",
    });
    equal(narrowed.status, 403);
    equal((await json(narrowed)).outcome.code, "capability_refused");
  }));

Deno.test("a person who loses their role is requester_unauthorized and nothing is written; an applied key still replays (LAU-025, LAU-028, PAPI-008)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "A" } });
    const delegationId = await w.delegate(id, instances.en);
    const read = (await json(
      await w.plugin.api(
        id,
        `/content/${instances.en}?delegation_id=${delegationId}`,
      ),
    )).data;
    const command = {
      kind: "publish",
      expected_current_version_id: read.current_version_id,
      expected_workflow_revision: read.workflow.revision,
      delegation_id: delegationId,
    };
    const path = `/content/${instances.en}/transitions/published`;
    const applied = await json(
      await w.plugin.api(id, path, { body: command, key: "first" }),
    );
    equal(applied.outcome.code, "transition_applied");
    await w.services.db.deleteFrom("site_members").where(
      "user_id",
      "=",
      w.adminId,
    )
      .execute();
    // LAU-028: the applied key replays its first result although the role is gone.
    const replay = await json(
      await w.plugin.api(id, path, { body: command, key: "first" }),
    );
    equal(replay.outcome.code, "idempotent_replay");
    deepEqual(replay.result, applied.result);
    const before = await w.services.db.selectFrom("entry_groups").select(
      "revision",
    )
      .where("id", "=", groupId).executeTakeFirstOrThrow();
    const refused = await w.plugin.api(
      id,
      `/content/${instances.en}/transitions/draft`,
      {
        body: {
          kind: "unpublish",
          expected_published_version_id: applied.result.published_version_id,
          expected_workflow_revision: applied.result.revision,
          delegation_id: delegationId,
        },
        key: "second",
      },
    );
    // LAU-025: the person lost their role: the command is requester_unauthorized.
    equal(refused.status, 403);
    equal((await json(refused)).outcome.code, "requester_unauthorized");
    const after = await w.services.db.selectFrom("entry_groups").select(
      "revision",
    )
      .where("id", "=", groupId).executeTakeFirstOrThrow();
    equal(after.revision, before.revision, "nothing written");
    const reread = await w.plugin.api(
      id,
      `/content/${instances.en}?delegation_id=${delegationId}`,
    );
    // PAPI-008: the unusable delegation is refused on a read too, with no shorter answer.
    equal((await json(reread)).outcome.code, "requester_unauthorized");
  }));

Deno.test("a content-action delegation reaches only its translation group; an unknown delegation is unusable; ungranted models are content_not_found (LAU-009, LAU-026, PAPI-005, PAPI-032, PLG-012)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const one = await w.entry({ en: { title: "One" } });
    const two = await w.entry({ en: { title: "Two" } });
    const delegationId = await w.delegate(id, one.instances.en);
    // LAU-026: a content-action delegation acts only on its instance's translation group.
    const other = await w.plugin.api(
      id,
      `/content/${two.instances.en}?delegation_id=${delegationId}`,
    );
    equal((await json(other)).outcome.code, "requester_unauthorized");
    const unknown = await w.plugin.api(
      id,
      `/content/${two.instances.en}?delegation_id=${crypto.randomUUID()}`,
    );
    equal((await json(unknown)).outcome.code, "requester_unauthorized");
    const missing = await w.plugin.api(id, `/content/${crypto.randomUUID()}`);
    equal(missing.status, 404);
    const nothing = await json(missing);
    equal(nothing.outcome.code, "content_not_found");
    // PAPI-005: the granted item reads 200 before the grant is narrowed.
    const granted = await w.plugin.api(id, `/content/${one.instances.en}`);
    equal(granted.status, 200);
    equal((await json(granted)).data.fields.title, "One");
    await w.admin("POST", `/api/plugins/${id}/grant`, {
      capabilities: ["content:read"],
      model_ids: [],
    });
    // PLG-012: the narrowed grant applies to the very next request.
    const ungranted = await w.plugin.api(id, `/content/${one.instances.en}`);
    // PAPI-005, PAPI-032: an ungranted item answers exactly what a missing one answers.
    equal(ungranted.status, 404);
    deepEqual(await json(ungranted), nothing);
    const list = await json(await w.plugin.api(id, "/content"));
    deepEqual(list.data, []);
    const launch = await w.admin("POST", `/api/plugins/${id}/launch`, {
      kind: "content_action",
      action: "publish-later",
      instance_id: one.instances.en,
    });
    equal(launch.status, 403);
    equal((await json(launch)).error.code, "model_not_granted");
  }));

Deno.test("rotation goes to the pinned activation URL; the old token works until the new one is first used (PLG-026, PLG-027, PLG-028, OUT-021)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const oldToken = w.plugin.installations.get(id)!.token;
    const rotated = await w.admin("POST", `/api/plugins/${id}/rotate`, {
      code: await w.plugin.issueCode(id),
    });
    equal(rotated.status, 200);
    equal((await json(rotated)).data.rotation_overlap, true);
    const newToken = w.plugin.installations.get(id)!.token;
    ok(newToken !== oldToken);
    // OUT-021: the rotation was a POST of the new token and the one-time code to the pinned
    // activation_url with kind "rotate" (the plugin checks the code for that purpose).
    deepEqual(w.plugin.handoffs.map((h) => h.kind), ["activate", "rotate"]);
    const call = (token: string) =>
      w.app.request("http://plugins.test/api/plugin/v1/context", {
        headers: { host: "plugins.test", authorization: `Bearer ${token}` },
      });
    equal((await call(oldToken)).status, 200, "overlap");
    // PLG-028: the first request with the new token ends the overlap; the old one is then refused.
    equal((await call(newToken)).status, 200);
    const ended = await call(oldToken);
    equal(ended.status, 401, "the new token ended the overlap");
    equal((await json(ended)).outcome.code, "plugin_unauthorized");
    // A second rotation whose overlap simply runs out.
    await w.admin("POST", `/api/plugins/${id}/rotate`, {
      code: await w.plugin.issueCode(id),
    });
    const third = w.plugin.installations.get(id)!.token;
    // PLG-027: the previous token works at most 10 minutes after a successful rotation.
    w.clock.advance(60 * 1000);
    equal((await call(newToken)).status, 200, "one minute in");
    w.clock.advance(9 * 60 * 1000 - 1);
    equal(
      (await call(newToken)).status,
      200,
      "last millisecond of the overlap",
    );
    w.clock.advance(1);
    equal((await call(newToken)).status, 401, "ten minutes at most");
    equal((await call(third)).status, 200);
    // PLG-026: a refused rotation swaps nothing and leaves the current token working.
    const digests = () =>
      w.services.db.selectFrom("plugin_installations")
        .select(["token_hash", "previous_token_hash"]).where("id", "=", id)
        .executeTakeFirstOrThrow();
    const before = await digests();
    w.plugin.behaviour.activation = "refuse";
    const refused = await w.admin("POST", `/api/plugins/${id}/rotate`, {
      code: await w.plugin.issueCode(id),
    });
    equal((await json(refused)).error.code, "activation_refused");
    deepEqual(await digests(), before);
    equal((await call(third)).status, 200);
  }));
