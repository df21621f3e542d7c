// The model proposal routes over HTTP: propose, list by state, read, staleness, and the limits at their edges.
import assert from "node:assert/strict";
import { personActor } from "../../core/access/actor.ts";
import { entryContentFacts } from "../../core/manage/content_facts.ts";
import {
  applyModelProposal,
  dismissModelProposal,
} from "../../core/proposals/mod.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";
import {
  insertEntry,
  postsDefinition,
  schemaCredential,
} from "./model_fixtures.ts";

function personContext(t: ManageFixture) {
  return {
    db: t.services.db,
    clock: t.clock,
    siteId: t.siteId,
    actor: personActor(t.adminId),
    facts: (db: typeof t.services.db, model: { id: string }) =>
      entryContentFacts(db, t.siteId, model),
  };
}

Deno.test("POST /models/proposals records create and update proposals; unsafe changes are listed, not refused", () =>
  withManageApp(async (t) => {
    const secret = await schemaCredential(t);
    const created = await t.call("POST", "/models/proposals", {
      secret,
      key: "p1",
      body: { mode: "create", definition: postsDefinition(), note: "Posts" },
    });
    assert.equal(created.status, 201);
    const proposal = await created.json();
    assert.equal(proposal.mode, "create");
    assert.equal(proposal.state, "open");
    assert.equal(proposal.stale, false);
    assert.equal(proposal.model_id, null);
    assert.equal(proposal.base_updated_at, null);
    assert.deepEqual(proposal.changes, []);
    assert.equal(proposal.source.kind, "management");
    assert.equal(proposal.definition.fields[0].key, "title");
    assert.equal(proposal.definition.fields[0].config, "{}");
    assert.equal("id" in proposal.definition.fields[0], false);
    // Nothing was created: a proposal is applied by a person in the admin.
    assert.deepEqual((await (await t.call("GET", "/models")).json()).data, []);
    const model = await (await t.call("POST", "/models", {
      secret,
      key: "m1",
      body: { definition: postsDefinition() },
    })).json();
    await insertEntry(t, model.model_id, { en: { title: "A" } });
    const [title, summary] = model.model.definition.fields;
    const update = await t.call("POST", "/models/proposals", {
      secret,
      key: "p2",
      body: {
        mode: "update",
        model_id: model.model_id,
        base_updated_at: model.model.updated_at,
        definition: {
          model: model.model.definition.model,
          fields: [{ ...title, required: true }, {
            ...summary,
            required: true,
          }],
        },
      },
    });
    assert.equal(update.status, 201);
    const updated = await update.json();
    assert.equal(updated.model_id, model.model_id);
    assert.equal(updated.base_updated_at, model.model.updated_at);
    assert.deepEqual(
      updated.changes.map((c: Record<string, unknown>) => [
        c.kind,
        c.field,
        c.affected_count,
      ]),
      [["required_missing", "summary", 1]],
    );
    const read = await t.call("GET", `/models/proposals/${updated.id}`, {
      secret,
    });
    assert.equal(read.status, 200);
    const { changes: _, ...stored } = updated;
    assert.deepEqual(await read.json(), stored);
    const missing = await t.call(
      "GET",
      `/models/proposals/${crypto.randomUUID()}`,
      { secret },
    );
    assert.equal(missing.status, 404);
  }));

Deno.test("POST /models/proposals refusals: mode companions, stale base with current_updated_at, 200 fields and 500 characters at the edge", () =>
  withManageApp(async (t) => {
    const secret = await schemaCredential(t);
    const model = await (await t.call("POST", "/models", {
      secret,
      key: "m1",
      body: { definition: postsDefinition() },
    })).json();
    const noModel = await t.call("POST", "/models/proposals", {
      secret,
      key: "no-model",
      body: {
        mode: "update",
        base_updated_at: model.model.updated_at,
        definition: postsDefinition(),
      },
    });
    assert.equal(noModel.status, 400);
    const noModelError = await refusal(noModel);
    assert.equal(noModelError.code, "invalid_request");
    assert.deepEqual(
      (noModelError.issues as { path: string }[]).map((i) => i.path),
      ["body.model_id"],
    );
    const createWithModel = await t.call("POST", "/models/proposals", {
      secret,
      key: "create-with-model",
      body: {
        mode: "create",
        model_id: model.model_id,
        definition: postsDefinition("x", "X"),
      },
    });
    assert.equal(createWithModel.status, 400);
    const stale = await t.call("POST", "/models/proposals", {
      secret,
      key: "stale",
      body: {
        mode: "update",
        model_id: model.model_id,
        base_updated_at: "2020-01-01T00:00:00.000Z",
        definition: model.model.definition,
      },
    });
    assert.equal(stale.status, 409);
    const staleError = await refusal(stale);
    assert.equal(staleError.code, "model_changed");
    assert.equal(staleError.current_updated_at, model.model.updated_at);
    const unknownModel = await t.call("POST", "/models/proposals", {
      secret,
      key: "unknown",
      body: {
        mode: "update",
        model_id: crypto.randomUUID(),
        base_updated_at: model.model.updated_at,
        definition: model.model.definition,
      },
    });
    assert.equal(unknownModel.status, 404);
    const fields = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        key: `f${i}`,
        label: `F${i}`,
        type: "text",
      }));
    const at200 = await t.call("POST", "/models/proposals", {
      secret,
      key: "200",
      body: {
        mode: "create",
        definition: {
          model: { name: "Big", slug: "big" },
          fields: fields(200),
        },
        note: "é".repeat(500),
      },
    });
    assert.equal(at200.status, 201);
    const at201 = await t.call("POST", "/models/proposals", {
      secret,
      key: "201",
      body: {
        mode: "create",
        definition: {
          model: { name: "Big", slug: "big" },
          fields: fields(201),
        },
      },
    });
    assert.equal(at201.status, 400);
    assert.deepEqual(
      ((await refusal(at201)).issues as { path: string }[])[0].path,
      "body.definition.fields",
    );
    const note501 = await t.call("POST", "/models/proposals", {
      secret,
      key: "501",
      body: {
        mode: "create",
        definition: postsDefinition("n", "N"),
        note: "é".repeat(501),
      },
    });
    assert.equal(note501.status, 400);
    assert.deepEqual(
      ((await refusal(note501)).issues as { path: string }[])[0].path,
      "body.note",
    );
    const badDefinition = await t.call("POST", "/models/proposals", {
      secret,
      key: "dup",
      body: {
        mode: "create",
        definition: {
          model: { name: "D", slug: "d" },
          fields: [
            { key: "a", label: "A", type: "text" },
            { key: "a", label: "A", type: "text" },
          ],
        },
      },
    });
    assert.equal(badDefinition.status, 400);
    assert.equal((await refusal(badDefinition)).code, "duplicate_field_key");
    const reader = await t.call("POST", "/models/proposals", {
      key: "reader",
      body: { mode: "create", definition: postsDefinition("r", "R") },
    });
    assert.equal(reader.status, 403);
    assert.deepEqual((await refusal(reader)).missing, ["scope schema:propose"]);
    const list = await (await t.call("GET", "/models/proposals", { secret }))
      .json();
    assert.equal(list.data.length, 1);
  }));

Deno.test("GET /models/proposals filters by state and flags stale proposals, whose apply is 409 schema_proposal_stale", () =>
  withManageApp(async (t) => {
    const secret = await schemaCredential(t);
    const model = await (await t.call("POST", "/models", {
      secret,
      key: "m1",
      body: { definition: postsDefinition() },
    })).json();
    const propose = async (key: string, name: string) => {
      t.clock.advance(10); // oldest first: each proposal a little later
      return await (await t.call("POST", "/models/proposals", {
        secret,
        key,
        body: {
          mode: "update",
          model_id: model.model_id,
          base_updated_at: model.model.updated_at,
          definition: {
            model: { ...model.model.definition.model, name },
            fields: model.model.definition.fields,
          },
        },
      })).json();
    };
    const first = await propose("a", "Articles");
    const second = await propose("b", "Stories");
    const third = await propose("c", "Notes");
    const ctx = personContext(t);
    t.clock.advance(1000); // so the apply moves updated_at past the proposals' base
    const applied = await applyModelProposal(ctx, first.id);
    assert.equal(applied.ok, true);
    const dismissed = await dismissModelProposal(ctx, third.id);
    assert.equal(dismissed.ok, true);
    const byState = async (state?: string) =>
      (await (await t.call(
        "GET",
        `/models/proposals${state ? `?state=${state}` : ""}`,
        { secret },
      )).json()).data as { id: string; state: string; stale: boolean }[];
    assert.deepEqual((await byState("applied")).map((p) => p.id), [first.id]);
    assert.deepEqual((await byState("dismissed")).map((p) => p.id), [third.id]);
    const open = await byState("open");
    assert.deepEqual(open.map((p) => [p.id, p.stale]), [[second.id, true]]);
    assert.deepEqual((await byState()).map((p) => p.id), [
      first.id,
      second.id,
      third.id,
    ]);
    const one = await (await t.call("GET", `/models/proposals/${second.id}`, {
      secret,
    })).json();
    assert.equal(one.stale, true);
    const refused = await applyModelProposal(ctx, second.id);
    assert.equal(refused.ok, false);
    assert.equal((refused as { code: string }).code, "schema_proposal_stale");
    const bad = await t.call("GET", "/models/proposals?state=stale", {
      secret,
    });
    assert.equal(bad.status, 400);
    assert.equal(
      ((await refusal(bad)).issues as { path: string }[])[0].path,
      "query.state",
    );
  }));
