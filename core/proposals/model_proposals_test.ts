// Tests of model proposals: create with limits, stale flag, list by state, apply as a model save, dismiss.
import assert from "node:assert/strict";
import { insertCredential } from "../access/_testing.ts";
import type { Actor } from "../access/actor.ts";
import { administratorPermissions } from "../access/default_roles.ts";
import { type ContentFacts, NO_CONTENT } from "../models/change_safety.ts";
import { applyModelDefinition, getModel } from "../models/store.ts";
import { code, ok, openProposalWorld, type ProposalWorld } from "./_testing.ts";
import {
  applyModelProposal,
  dismissModelProposal,
} from "./model_proposal_decisions.ts";
import {
  createModelProposal,
  getModelProposal,
  listModelProposals,
  MODEL_PROPOSAL_LIMITS,
  type ModelProposalContext,
} from "./model_proposals.ts";

interface ModelWorld extends ProposalWorld {
  admin: Actor;
  /** A model proposal context for `actor` (the administrator by default). */
  mctx(actor?: Actor): ModelProposalContext;
  /** What the facts answer; tests switch it to pretend the model holds content. */
  facts: ContentFacts;
}

async function withWorld(fn: (w: ModelWorld) => Promise<void>) {
  const base = await openProposalWorld();
  try {
    const admin = await base.person(administratorPermissions());
    const w: ModelWorld = Object.assign(base, {
      admin,
      facts: NO_CONTENT,
      mctx: (actor?: Actor): ModelProposalContext => ({
        ...base.ctx(actor ?? admin),
        facts: () => w.facts,
      }),
    });
    await fn(w);
  } finally {
    await base.close();
  }
}

async function refusedUnchanged<T extends { ok: boolean; code?: string }>(
  w: ProposalWorld,
  run: () => Promise<T>,
  expected: string,
): Promise<T> {
  const before = await w.snapshot();
  const outcome = await run();
  assert.equal(code(outcome), expected);
  assert.deepEqual(await w.snapshot(), before);
  return outcome;
}

const text = (key: string) => ({ key, label: key, type: "text" });

function newModel(fields: unknown[] = [text("name")]) {
  return { model: { name: "Events", slug: "events" }, fields };
}

/** The article's definition as read, with `change` applied to its title field. */
function articleChange(
  w: ProposalWorld,
  change: Record<string, unknown> = {},
) {
  return {
    model: { name: w.model.name, slug: w.model.slug },
    fields: w.model.fields.map((f) =>
      f.key === "title" ? { ...f, ...change } : f
    ),
  };
}

function proposeUpdate(
  w: ModelWorld,
  extra: Record<string, unknown> = {},
) {
  return createModelProposal(w.mctx(), {
    mode: "update",
    model_id: w.model.id,
    base_updated_at: w.model.updatedAt.toISOString(),
    definition: articleChange(w, { label: "Headline" }),
    note: "Rename",
    ...extra,
  });
}

Deno.test("createModelProposal() records an open create proposal with revision 1 and its source (MOD-018)", () =>
  withWorld(async (w) => {
    const credential = await insertCredential(w.db, w.siteId, {
      creatorId: (w.admin as { userId: string }).userId,
      scopes: ["schema:propose"],
      clock: w.clock,
    });
    const created = ok(
      await createModelProposal(w.mctx(credential), {
        mode: "create",
        definition: newModel(),
        note: "For the calendar",
      }),
    );
    const p = created.proposal;
    assert.deepEqual(
      [p.mode, p.model_id, p.base_updated_at, p.state, p.stale, p.revision],
      ["create", null, null, "open", false, 1],
    );
    assert.equal(p.definition.model.slug, "events");
    assert.equal(p.source.kind, "management");
    assert.deepEqual(created.changes, []);
  }));

Deno.test("createModelProposal() refuses an update without model_id or base_updated_at and a create naming them (MOD-018)", () =>
  withWorld(async (w) => {
    await refusedUnchanged(
      w,
      () => proposeUpdate(w, { model_id: undefined }),
      "invalid_request",
    );
    await refusedUnchanged(
      w,
      () => proposeUpdate(w, { base_updated_at: undefined }),
      "invalid_request",
    );
    await refusedUnchanged(
      w,
      () =>
        createModelProposal(w.mctx(), {
          mode: "create",
          model_id: w.model.id,
          definition: newModel(),
        }),
      "invalid_request",
    );
    await refusedUnchanged(
      w,
      () =>
        createModelProposal(w.mctx(), {
          mode: "replace",
          definition: newModel(),
        }),
      "invalid_request",
    );
    await refusedUnchanged(
      w,
      () => proposeUpdate(w, { model_id: crypto.randomUUID() }),
      "not_found",
    );
  }));

Deno.test("createModelProposal() accepts 200 fields and refuses 201 (MOD-019)", () =>
  withWorld(async (w) => {
    assert.equal(MODEL_PROPOSAL_LIMITS.fields, 200);
    const keys = Array.from({ length: 201 }, (_, i) => `f${i}`);
    ok(
      await createModelProposal(w.mctx(), {
        mode: "create",
        definition: newModel(keys.slice(0, 200).map(text)),
      }),
    );
    await refusedUnchanged(
      w,
      () =>
        createModelProposal(w.mctx(), {
          mode: "create",
          definition: newModel(keys.map(text)),
        }),
      "invalid_request",
    );
  }));

Deno.test("createModelProposal() accepts a note of 500 characters and refuses 501 (MOD-019)", () =>
  withWorld(async (w) => {
    ok(await proposeUpdate(w, { note: "n".repeat(500) }));
    await refusedUnchanged(
      w,
      () => proposeUpdate(w, { note: "n".repeat(501) }),
      "invalid_request",
    );
  }));

Deno.test("createModelProposal() allows a change unsafe for existing content and lists it in changes (MOD-019)", () =>
  withWorld(async (w) => {
    w.facts = {
      ...NO_CONTENT,
      countEntriesMissingValue: () => Promise.resolve(3),
    };
    const created = ok(
      await proposeUpdate(w, {
        definition: articleChange(w, { required: true }),
      }),
    );
    assert.deepEqual(
      created.changes.map((c) => [c.kind, c.field, c.affected_count]),
      [["required_missing", "title", 3]],
    );
    assert.equal(created.proposal.state, "open");
  }));

Deno.test("createModelProposal() against a model changed after base_updated_at is refused model_changed with current_updated_at (MOD-020)", () =>
  withWorld(async (w) => {
    w.clock.advance(60_000);
    const changed = ok(
      await applyModelDefinition(
        { db: w.db, clock: w.clock, siteId: w.siteId },
        w.model.id,
        articleChange(w, { label: "Changed" }),
        { baseRevision: w.model.revision, facts: () => NO_CONTENT },
      ),
    );
    const refused = await refusedUnchanged(
      w,
      () => proposeUpdate(w),
      "model_changed",
    );
    assert.deepEqual(
      (refused as { current_updated_at: string }).current_updated_at,
      changed.model.updatedAt.toISOString(),
    );
  }));

Deno.test("createModelProposal() and reads need model:apply (a credential: scope schema:propose) (MCR-021)", () =>
  withWorld(async (w) => {
    await refusedUnchanged(
      w,
      () =>
        createModelProposal(w.mctx(w.ctx().actor), {
          mode: "create",
          definition: newModel(),
        }),
      "missing_permission",
    );
    const noScope = await insertCredential(w.db, w.siteId, {
      creatorId: (w.admin as { userId: string }).userId,
      scopes: ["schema:write"],
      clock: w.clock,
    });
    await refusedUnchanged(
      w,
      () =>
        createModelProposal(w.mctx(noScope), {
          mode: "create",
          definition: newModel(),
        }),
      "missing_permission",
    );
    assert.equal(
      code(await listModelProposals(w.mctx(noScope))),
      "missing_permission",
    );
  }));

Deno.test("listModelProposals() filters by state open, applied, dismissed and getModelProposal() reads one (MOD-021)", () =>
  withWorld(async (w) => {
    const a = ok(
      await createModelProposal(w.mctx(), {
        mode: "create",
        definition: newModel(),
      }),
    )
      .proposal;
    w.clock.advance(1000);
    const b = ok(await proposeUpdate(w)).proposal;
    w.clock.advance(1000);
    const c = ok(
      await createModelProposal(w.mctx(), {
        mode: "create",
        definition: {
          model: { name: "Venues", slug: "venues" },
          fields: [text("name")],
        },
      }),
    ).proposal;
    ok(await applyModelProposal(w.mctx(), a.id));
    ok(await dismissModelProposal(w.mctx(), c.id));
    const ids = async (state?: string) =>
      ok(await listModelProposals(w.mctx(), { state })).proposals.map((p) =>
        p.id
      );
    assert.deepEqual(await ids(), [a.id, b.id, c.id]);
    assert.deepEqual(await ids("open"), [b.id]);
    assert.deepEqual(await ids("applied"), [a.id]);
    assert.deepEqual(await ids("dismissed"), [c.id]);
    assert.equal(
      code(await listModelProposals(w.mctx(), { state: "stale" })),
      "invalid_request",
    );
    const read = ok(await getModelProposal(w.mctx(), b.id)).proposal;
    assert.deepEqual(read, b);
    assert.equal(
      code(await getModelProposal(w.mctx(), crypto.randomUUID())),
      "not_found",
    );
  }));

Deno.test("applyModelProposal() of a create proposal creates the model as the applier and marks it applied (MOD-022)", () =>
  withWorld(async (w) => {
    const p = ok(
      await createModelProposal(w.mctx(), {
        mode: "create",
        definition: newModel(),
      }),
    )
      .proposal;
    const applied = ok(await applyModelProposal(w.mctx(), p.id));
    assert.equal(applied.proposal.state, "applied");
    assert.equal(applied.proposal.revision, 2);
    assert.equal(applied.proposal.applied_model_id, applied.saved.model_id);
    assert.deepEqual(applied.proposal.decided_by, {
      kind: "person",
      person_id: (w.admin as { userId: string }).userId,
      email: `${(w.admin as { userId: string }).userId}@example.test`,
    });
    const model = ok(
      await getModel(
        { db: w.db, clock: w.clock, siteId: w.siteId },
        applied.saved.model_id,
      ),
    );
    assert.equal(model.model.slug, "events");
    await refusedUnchanged(
      w,
      () => applyModelProposal(w.mctx(), p.id),
      "proposal_not_open",
    );
  }));

Deno.test("applyModelProposal() of an update proposal applies the definition with the model's revision (MOD-022)", () =>
  withWorld(async (w) => {
    const p = ok(await proposeUpdate(w)).proposal;
    w.clock.advance(1000);
    const applied = ok(await applyModelProposal(w.mctx(), p.id));
    assert.equal(applied.saved.model.revision, w.model.revision + 1);
    assert.equal(
      applied.saved.model.fields.find((f) => f.key === "title")!.label,
      "Headline",
    );
    assert.equal(applied.proposal.state, "applied");
    assert.equal(applied.proposal.stale, false);
  }));

Deno.test("applyModelProposal() of a proposal whose model changed after base_updated_at is refused schema_proposal_stale; only dismissal remains (MOD-023)", () =>
  withWorld(async (w) => {
    const p = ok(await proposeUpdate(w)).proposal;
    assert.equal(p.stale, false);
    w.clock.advance(60_000);
    ok(
      await applyModelDefinition(
        { db: w.db, clock: w.clock, siteId: w.siteId },
        w.model.id,
        articleChange(w, { label: "Someone else" }),
        { baseRevision: w.model.revision, facts: () => NO_CONTENT },
      ),
    );
    const read = ok(await getModelProposal(w.mctx(), p.id)).proposal;
    assert.equal(read.stale, true);
    await refusedUnchanged(
      w,
      () => applyModelProposal(w.mctx(), p.id),
      "schema_proposal_stale",
    );
    const dismissed = ok(await dismissModelProposal(w.mctx(), p.id)).proposal;
    assert.deepEqual([dismissed.state, dismissed.stale, dismissed.revision], [
      "dismissed",
      false,
      2,
    ]);
  }));

Deno.test("applyModelProposal() keeps the model save's refusals: a change blocked by content stays open and writes nothing", () =>
  withWorld(async (w) => {
    w.facts = {
      ...NO_CONTENT,
      countEntriesMissingValue: () => Promise.resolve(1),
    };
    const p = ok(
      await proposeUpdate(w, {
        definition: articleChange(w, { required: true }),
      }),
    ).proposal;
    await refusedUnchanged(
      w,
      () => applyModelProposal(w.mctx(), p.id),
      "model_change_blocked",
    );
    assert.equal(
      ok(await getModelProposal(w.mctx(), p.id)).proposal.state,
      "open",
    );
  }));

Deno.test("applyModelProposal() and dismissModelProposal() need model:apply; a credential acts as its creator within its scopes, a plugin is forbidden", () =>
  withWorld(async (w) => {
    const p = ok(await proposeUpdate(w)).proposal;
    const other = ok(
      await createModelProposal(w.mctx(), {
        mode: "create",
        definition: newModel(),
      }),
    ).proposal;
    const editor = w.ctx().actor;
    await refusedUnchanged(
      w,
      () => applyModelProposal(w.mctx(editor), p.id),
      "missing_permission",
    );
    await refusedUnchanged(
      w,
      () => dismissModelProposal(w.mctx(editor), p.id),
      "missing_permission",
    );
    const adminId = (w.admin as { userId: string }).userId;
    await refusedUnchanged(
      w,
      () => applyModelProposal(w.mctx(w.plugin(adminId)), p.id),
      "forbidden",
    );
    await refusedUnchanged(
      w,
      () => dismissModelProposal(w.mctx(w.plugin(adminId)), p.id),
      "forbidden",
    );
    const proposer = await insertCredential(w.db, w.siteId, {
      creatorId: adminId,
      scopes: ["schema:propose"],
      clock: w.clock,
    });
    await refusedUnchanged(
      w,
      () => applyModelProposal(w.mctx(proposer), p.id),
      "missing_permission",
    );
    const writer = await insertCredential(w.db, w.siteId, {
      creatorId: adminId,
      scopes: ["schema:write", "schema:propose"],
      clock: w.clock,
    });
    w.clock.advance(1000);
    let hooked = "";
    const applied = ok(
      await applyModelProposal(w.mctx(writer), p.id, {
        onApplied: (_db, saved) =>
          Promise.resolve(void (hooked = saved.model_id)),
      }),
    );
    assert.equal(hooked, w.model.id);
    assert.equal(applied.proposal.state, "applied");
    assert.equal(applied.proposal.decided_by?.kind, "credential");
    assert.equal(
      applied.saved.model.fields.find((f) => f.key === "title")!.label,
      "Headline",
    );
    const dismissed = ok(await dismissModelProposal(w.mctx(proposer), other.id))
      .proposal;
    assert.equal(dismissed.state, "dismissed");
    assert.equal(dismissed.decided_by?.kind, "credential");
  }));
