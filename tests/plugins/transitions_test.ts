// The plugin API's content door seen by a plugin: offered transitions narrowed to the person,
// unusable delegations, closed command bodies, service refusals, pinned saves, scope and
// outage answers (spec 1 parts 2.6-2.8, 4.1, 7; PAPI rows). Every answer carrying an outcome is
// checked against the published envelope schema and outcomes table (PAPI-034).
import { deepEqual, equal, ok } from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { personActor } from "../../core/access/actor.ts";
import { publishEntry } from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/store.ts";
import { saveTestEntry, siteWithPosts } from "../support/entries.ts";
import { type PluginWorld, withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

const protocol = JSON.parse(
  await Deno.readTextFile(
    new URL("../../generated/protocol-v1.schema.json", import.meta.url),
  ),
);
const envelope = new Ajv2020({ strict: false }).compile(
  protocol.$defs.outcome_envelope,
);

/**
 * PAPI-034: every answer carrying an outcome has exactly `{ code, message, retry }`, valid
 * against the published schema, with the status and retry flag its code has in the table.
 */
function checkEnvelope(status: number, body: Json): void {
  if (!("outcome" in body)) return;
  ok(
    envelope({ outcome: body.outcome }),
    JSON.stringify(envelope.errors ?? body),
  );
  const outcome = body.outcome as { code: string; retry: boolean };
  const rule = protocol.outcomes[outcome.code];
  ok(rule, `unknown code ${outcome.code}`);
  deepEqual([status, outcome.retry], [rule.status, rule.retry], outcome.code);
}

async function call(
  w: PluginWorld,
  id: string,
  path: string,
  init: { method?: string; body?: unknown; key?: string } = {},
): Promise<{ status: number; body: Json }> {
  const res = await w.plugin.api(id, path, init);
  const answer = { status: res.status, body: await res.json() as Json };
  checkEnvelope(answer.status, answer.body);
  return answer;
}

function code(answer: { body: Json }): string {
  return (answer.body.outcome as Json).code as string;
}

/** A person on the world's site whose role holds `models` on every model and nothing else. */
async function person(
  w: PluginWorld,
  email: string,
  models: string[],
): Promise<string> {
  const userId = crypto.randomUUID();
  const roleId = crypto.randomUUID();
  const now = w.clock.now();
  await w.services.db.insertInto("users").values({
    id: userId,
    email,
    display_name: email,
    password_hash: "unused",
    status: "active",
    created_at: now,
  }).execute();
  await w.services.db.insertInto("roles").values({
    id: roleId,
    site_id: w.siteId,
    name: `role ${email}`,
    permissions: JSON.stringify({ models: { "*": models }, system: [] }),
    created_at: now,
  }).execute();
  await w.services.db.insertInto("site_members").values({
    site_id: w.siteId,
    user_id: userId,
    role_id: roleId,
    created_at: now,
  }).execute();
  return userId;
}

async function readAs(
  w: PluginWorld,
  id: string,
  instance: string,
  delegation: string,
) {
  return await call(w, id, `/content/${instance}?delegation_id=${delegation}`);
}

function kinds(transitions: { kind: string }[]): string[] {
  return transitions.map((t) => t.kind).sort();
}

async function publishedCount(w: PluginWorld, groupId: string) {
  return (await w.services.db.selectFrom("entries").select("id")
    .where("group_id", "=", groupId)
    .where("published_version_id", "is not", null).execute()).length;
}

async function publishAsAdmin(w: PluginWorld, groupId: string) {
  const group = await w.services.db.selectFrom("entry_groups").selectAll()
    .where("id", "=", groupId).executeTakeFirstOrThrow();
  const done = await publishEntry({
    db: w.services.db,
    clock: w.clock,
    siteId: w.siteId,
    actor: personActor(w.adminId),
  }, {
    group_id: groupId,
    expected_current_version_id: group.current_version_id,
    expected_workflow_revision: group.revision,
  });
  ok(done.ok, JSON.stringify(done));
}

Deno.test("a delegated read offers only what the person may do now; a deactivated person's delegation is refused, never a shorter list (PAPI-007, PAPI-008)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { instances } = await w.entry({ en: { title: "A" } });
    const writerId = await person(w, "writer@plugins.test", [
      "read",
      "create",
      "update",
    ]);
    const writer = await w.delegate(
      id,
      instances.en,
      await w.sessionFor(writerId),
    );
    const admin = await w.delegate(id, instances.en);
    const full = await readAs(w, id, instances.en, admin);
    equal(full.status, 200);
    const fullBlock = (full.body.data as Json).workflow as Json;
    ok(kinds(fullBlock.transitions as { kind: string }[]).includes("publish"));

    // PAPI-007: the writer may not publish, so publish is not offered to them.
    const narrowed = await readAs(w, id, instances.en, writer);
    equal(narrowed.status, 200);
    const block = (narrowed.body.data as Json).workflow as Json;
    ok(
      !kinds(block.transitions as { kind: string }[]).includes("publish"),
      JSON.stringify(block.transitions),
    );
    deepEqual(kinds(block.transitions as { kind: string }[]), ["submit"]);
    const en = (block.locales as Record<string, Json>).en;
    ok(!kinds(en.transitions as { kind: string }[]).includes("publish"));

    // PAPI-008: once the person is deactivated the delegation is unusable: refused, with no list.
    await w.services.db.updateTable("users").set({ status: "deactivated" })
      .where("id", "=", writerId).execute();
    const refused = await readAs(w, id, instances.en, writer);
    equal(refused.status, 403);
    equal(code(refused), "requester_unauthorized");
    equal("data" in refused.body, false);
  }));

Deno.test("the transition command needs delegation_id and a closed JSON body: otherwise invalid_request and nothing moves (PAPI-014, PAPI-035)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "A" } });
    const delegation = await w.delegate(id, instances.en);
    const read = (await readAs(w, id, instances.en, delegation)).body
      .data as Json;
    const workflow = read.workflow as Json;
    const command = {
      kind: "publish",
      expected_current_version_id: read.current_version_id,
      expected_workflow_revision: workflow.revision,
      delegation_id: delegation,
    };
    const path = `/content/${instances.en}/transitions/published`;
    const { delegation_id: _, ...withoutDelegation } = command;
    // PAPI-014: delegation_id is required on every command.
    const missing = await call(w, id, path, {
      body: withoutDelegation,
      key: "a",
    });
    deepEqual([missing.status, code(missing)], [400, "invalid_request"]);
    // PAPI-035: an unknown key and a malformed body are invalid_request, terminal.
    const extra = await call(w, id, path, {
      body: { ...command, note: "x" },
      key: "b",
    });
    deepEqual([extra.status, code(extra)], [400, "invalid_request"]);
    equal((extra.body.outcome as Json).retry, false);
    const token = w.plugin.installations.get(id)!.token;
    const garbage = await w.app.request(
      `http://plugins.test/api/plugin/v1${path}`,
      {
        method: "POST",
        headers: {
          host: "plugins.test",
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "idempotency-key": "c",
        },
        body: "{not json",
      },
    );
    const garbageBody = await garbage.json();
    checkEnvelope(garbage.status, garbageBody);
    equal(garbage.status, 400);
    equal(garbageBody.outcome.code, "invalid_request");
    equal(await publishedCount(w, groupId), 0, "nothing moved");
    // The same command, complete and closed, is applied.
    const applied = await call(w, id, path, { body: command, key: "d" });
    equal(code(applied), "transition_applied");
  }));

Deno.test("an unpublish blocked by a published dependent is dependent_content; a publish the service refuses is transition_refused; nothing moves (PAPI-018)", () =>
  withPluginWorld(async (w) => {
    const cards = await createModel(
      { db: w.services.db, clock: w.clock, siteId: w.siteId },
      {
        model: { name: "Cards", slug: "cards", enableI18n: true },
        fields: [
          { key: "title", label: "Title", type: "text", required: true },
          {
            key: "post",
            label: "Post",
            type: "relation",
            config: { targets: [w.modelId], cardinality: "many-to-one" },
          },
        ],
      },
    );
    if (!cards.ok) throw new Error(JSON.stringify(cards));
    const id = await w.install({ model_ids: [w.modelId, cards.model_id] });
    const post = await w.entry({ en: { title: "Target" } });
    const card = await saveTestEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      userId: w.adminId,
      modelId: cards.model_id,
    }, { en: { title: "Links", post: post.groupId } });
    await publishAsAdmin(w, post.groupId);
    await publishAsAdmin(w, card.groupId);
    const delegation = await w.delegate(id);
    const read = (await readAs(w, id, post.instances.en, delegation)).body
      .data as Json;
    const unpublish = await call(
      w,
      id,
      `/content/${post.instances.en}/transitions/draft`,
      {
        body: {
          kind: "unpublish",
          expected_published_version_id: read.published_version_id,
          expected_workflow_revision: (read.workflow as Json).revision,
          delegation_id: delegation,
        },
        key: "u1",
      },
    );
    deepEqual([unpublish.status, code(unpublish)], [409, "dependent_content"]);
    equal(await publishedCount(w, post.groupId), 1, "still published");

    // A card without its required title saves as a draft, but publishing it is refused.
    const untitled = await saveTestEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      userId: w.adminId,
      modelId: cards.model_id,
    }, { en: { post: post.groupId } });
    const draft = (await readAs(w, id, untitled.instances.en, delegation)).body
      .data as Json;
    const publish = await call(
      w,
      id,
      `/content/${untitled.instances.en}/transitions/published`,
      {
        body: {
          kind: "publish",
          expected_current_version_id: draft.current_version_id,
          expected_workflow_revision: (draft.workflow as Json).revision,
          delegation_id: delegation,
        },
        key: "p1",
      },
    );
    deepEqual([publish.status, code(publish)], [422, "transition_refused"]);
    equal(await publishedCount(w, untitled.groupId), 0);
  }));

Deno.test("PUT /content saves for the person pinned to the version read: a stale pin is version_conflict; without content:write capability_refused; nothing saved (PAPI-020, PAPI-031)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "First" } });
    const delegation = await w.delegate(id, instances.en);
    const read = (await readAs(w, id, instances.en, delegation)).body
      .data as Json;
    const versions = async () =>
      (await w.services.db.selectFrom("entry_versions").select("id")
        .where("group_id", "=", groupId).execute()).length;
    const saved = await call(w, id, `/content/${instances.en}`, {
      method: "PUT",
      body: {
        delegation_id: delegation,
        expected_current_version_id: read.current_version_id,
        fields: { title: "Second" },
      },
      key: "s1",
    });
    equal(code(saved), "transition_applied", JSON.stringify(saved.body));
    const before = await versions();
    // PAPI-020: the pin read before that save is now stale: a person's decision, not a retry.
    const stale = await call(w, id, `/content/${instances.en}`, {
      method: "PUT",
      body: {
        delegation_id: delegation,
        expected_current_version_id: read.current_version_id,
        fields: { title: "Third" },
      },
      key: "s2",
    });
    deepEqual([stale.status, code(stale)], [409, "version_conflict"]);
    equal((stale.body.outcome as Json).retry, false);
    equal(await versions(), before);

    // PAPI-031: the grant no longer holds content:write.
    const granted = await w.admin("POST", `/api/plugins/${id}/grant`, {
      capabilities: ["content:read", "workflow:read"],
      model_ids: [w.modelId],
    });
    equal(granted.status, 200);
    await granted.body?.cancel();
    const current = (await readAs(w, id, instances.en, delegation)).body
      .data as Json;
    const refused = await call(w, id, `/content/${instances.en}`, {
      method: "PUT",
      body: {
        delegation_id: delegation,
        expected_current_version_id: current.current_version_id,
        fields: { title: "Fourth" },
      },
      key: "s3",
    });
    deepEqual([refused.status, code(refused)], [403, "capability_refused"]);
    equal(await versions(), before);
  }));

Deno.test("content on another site or of an ungranted model answers exactly what no such content answers (PAPI-032)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const other = await siteWithPosts(
      w.services,
      "elsewhere.test",
      "admin@elsewhere.test",
    );
    const foreign = await saveTestEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: other.siteId,
      userId: other.adminId,
      modelId: other.modelId,
    }, { en: { title: "Theirs" } });
    const mine = await w.entry({ en: { title: "Mine" } });
    const missing = await call(w, id, `/content/${crypto.randomUUID()}`);
    equal(missing.status, 404);
    equal(code(missing), "content_not_found");
    const otherSite = await call(w, id, `/content/${foreign.instances.en}`);
    deepEqual(otherSite, missing);
    await (await w.admin("POST", `/api/plugins/${id}/grant`, {
      capabilities: ["content:read"],
      model_ids: [],
    })).body?.cancel();
    const ungranted = await call(w, id, `/content/${mine.instances.en}`);
    deepEqual(ungranted, missing);
  }));

Deno.test("a dependency outage answers 503 temporary_failure with retry true in the outcome envelope (PAPI-037, PAPI-034)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { instances } = await w.entry({ en: { title: "A" } });
    const db = w.services.db;
    // The installation still authenticates; the content read finds its database gone.
    w.services.db = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === "selectFrom") {
          return (table: string) => {
            if (table === "entries") throw new Error("connection lost");
            return target.selectFrom(table as "entries");
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    try {
      const res = await w.plugin.api(id, `/content/${instances.en}`);
      equal(res.status, 503);
      const body = await res.json();
      checkEnvelope(res.status, body);
      deepEqual(body, {
        outcome: {
          code: "temporary_failure",
          message: "The service could not answer: retry later",
          retry: true,
        },
      });
    } finally {
      w.services.db = db;
    }
    equal((await w.plugin.api(id, `/content/${instances.en}`)).status, 200);
  }));
