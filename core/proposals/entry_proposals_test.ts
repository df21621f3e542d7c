// Tests of entry proposals: create with limits and field rules, list, read, apply, dismiss.
import assert from "node:assert/strict";
import { insertCredential } from "../access/_testing.ts";
import { saveEntry } from "../entries/save.ts";
import {
  code,
  EXTRA_KEYS,
  ok,
  openProposalWorld,
  type ProposalWorld,
} from "./_testing.ts";
import {
  applyEntryProposal,
  dismissEntryProposal,
} from "./entry_proposal_decisions.ts";
import { ENTRY_PROPOSAL_LIMITS } from "./entry_proposal_body.ts";
import {
  createEntryProposal,
  getEntryProposal,
  listEntryProposals,
} from "./entry_proposals.ts";

async function withWorld(fn: (w: ProposalWorld) => Promise<void>) {
  const w = await openProposalWorld();
  try {
    await fn(w);
  } finally {
    await w.close();
  }
}

function propose(
  w: ProposalWorld,
  body: Record<string, unknown>,
  ctx = w.ctx(),
) {
  return createEntryProposal(ctx, {
    group_id: w.groupId,
    base_version_id: w.versionId,
    fields: { title: "New title" },
    ...body,
  });
}

/** Asserts the command was refused with `expected` and the world is exactly as before. */
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

Deno.test("createEntryProposal() by a credential stores an open proposal with revision 1, original_fields and a management source (ENT-020, ENT-023, ENT-024)", () =>
  withWorld(async (w) => {
    const credential = await insertCredential(w.db, w.siteId, {
      creatorId: w.editorId,
      scopes: ["content:propose"],
      clock: w.clock,
    });
    const created = ok(
      await propose(w, {
        fields: { title: "New title", t02: "two" },
        note: "Sharper title",
      }, w.ctx(credential)),
    );
    const p = created.proposal;
    assert.equal(p.state, "open");
    assert.equal(p.revision, 1);
    assert.equal(p.group_id, w.groupId);
    assert.equal(p.entry_id, w.entryId);
    assert.equal(p.locale, "en");
    assert.equal(p.base_version_id, w.versionId);
    assert.deepEqual(p.fields, { title: "New title", t02: "two" });
    assert.deepEqual(p.original_fields, { title: "Old title" });
    assert.equal(p.note, "Sharper title");
    assert.deepEqual(p.source, {
      kind: "management",
      id: (credential as { credentialId: string }).credentialId,
      label: "script",
    });
    const audit = await w.db.selectFrom("audit_entries").select("action")
      .where("action", "like", "%proposal%").execute();
    assert.deepEqual(audit.map((a) => a.action), ["entry.proposal.create"]);
  }));

Deno.test("createEntryProposal() by a plugin stores the plugin's name and the person's email and audits plugin.proposal.create (PAPI-025, AUD-010)", () =>
  withWorld(async (w) => {
    const p = ok(await propose(w, {}, w.ctx(w.plugin(w.editorId)))).proposal;
    assert.deepEqual(p.source, {
      kind: "plugin",
      id: "0f0f0f0f-0000-4000-8000-000000000001",
      label: "Scheduler",
      requested_by: {
        person_id: w.editorId,
        email: `${w.editorId}@example.test`,
      },
    });
    const audit = await w.db.selectFrom("audit_entries").selectAll()
      .where("action", "=", "plugin.proposal.create").executeTakeFirstOrThrow();
    assert.deepEqual(
      (audit.details as { proposal_id: string }).proposal_id,
      p.id,
    );
  }));

Deno.test("createEntryProposal() accepts 50 fields and refuses 51 with invalid_request, writing nothing (ENT-021)", () =>
  withWorld(async (w) => {
    const keys = ["title", "body", ...EXTRA_KEYS];
    assert.equal(keys.length, 51);
    const fifty = Object.fromEntries(keys.slice(0, 50).map((k) => [k, "x"]));
    assert.equal(ENTRY_PROPOSAL_LIMITS.fields, 50);
    ok(await propose(w, { fields: fifty }));
    const fiftyOne = Object.fromEntries(keys.map((k) => [k, "x"]));
    const refused = await refusedUnchanged(
      w,
      () => propose(w, { fields: fiftyOne }),
      "invalid_request",
    );
    assert.deepEqual(
      (refused as { problems: { path: string }[] }).problems.map((p) => p.path),
      ["fields"],
    );
  }));

Deno.test("createEntryProposal() accepts exactly 64 KiB of values (JSON bytes) and refuses one byte more (ENT-021)", () =>
  withWorld(async (w) => {
    // Two values: "é" is two bytes in UTF-8; each JSON string adds its two quotes.
    const first = "é".repeat(1000); // 2,002 bytes as JSON
    const rest = 64 * 1024 - 2002 - 2;
    ok(await propose(w, { fields: { title: first, body: "x".repeat(rest) } }));
    await refusedUnchanged(
      w,
      () =>
        propose(w, { fields: { title: first, body: "x".repeat(rest + 1) } }),
      "invalid_request",
    );
  }));

Deno.test("createEntryProposal() accepts a note of 2,000 characters and refuses 2,001 (ENT-022)", () =>
  withWorld(async (w) => {
    // Code points, not UTF-16 units: an emoji counts once.
    ok(await propose(w, { note: "😀".repeat(2000) }));
    await refusedUnchanged(
      w,
      () => propose(w, { note: "n".repeat(2001) }),
      "invalid_request",
    );
  }));

Deno.test("createEntryProposal() refuses a missing base_version_id and a base that is not this entry's version (ENT-020)", () =>
  withWorld(async (w) => {
    await refusedUnchanged(
      w,
      () => propose(w, { base_version_id: undefined }),
      "invalid_request",
    );
    await refusedUnchanged(
      w,
      () => propose(w, { base_version_id: crypto.randomUUID() }),
      "invalid_request",
    );
    await refusedUnchanged(
      w,
      () =>
        createEntryProposal(w.ctx(), {
          group_id: crypto.randomUUID(),
          base_version_id: w.versionId,
          fields: { title: "x" },
        }),
      "not_found",
    );
  }));

Deno.test("createEntryProposal() refuses a base that is no longer current with version_conflict", () =>
  withWorld(async (w) => {
    ok(
      await saveEntry(w.ctx(), {
        group_id: w.groupId,
        locale: "en",
        fields: { title: "Edited" },
        expected_current_version_id: w.versionId,
      }),
    );
    await refusedUnchanged(w, () => propose(w, {}), "version_conflict");
  }));

Deno.test("createEntryProposal() refuses an unknown field naming it with field_not_found", () =>
  withWorld(async (w) => {
    const refused = await refusedUnchanged(
      w,
      () => propose(w, { fields: { title: "x", subtitle: "y" } }),
      "field_not_found",
    );
    assert.deepEqual((refused as { fields: string[] }).fields, ["subtitle"]);
  }));

Deno.test("createEntryProposal() refuses relation, media and media-holding component fields with proposal_field_unsupported (ENT-021)", () =>
  withWorld(async (w) => {
    for (const key of ["author", "cover", "hero"]) {
      const refused = await refusedUnchanged(
        w,
        () => propose(w, { fields: { title: "x", [key]: null } }),
        "proposal_field_unsupported",
      );
      assert.deepEqual((refused as { fields: string[] }).fields, [key]);
    }
    // A component of plain fields is a value field like any other.
    ok(await propose(w, { fields: { seo: { meta_title: "M" } } }));
  }));

Deno.test("createEntryProposal() needs read on the model through decide: scope content:propose for a credential, read for a person (MCR-012)", () =>
  withWorld(async (w) => {
    const withoutScope = await insertCredential(w.db, w.siteId, {
      creatorId: w.editorId,
      scopes: ["content:write"],
      clock: w.clock,
    });
    await refusedUnchanged(
      w,
      () => propose(w, {}, w.ctx(withoutScope)),
      "missing_permission",
    );
    const stranger = await w.person({ models: {}, system: [] });
    await refusedUnchanged(
      w,
      () => propose(w, {}, w.ctx(stranger)),
      "missing_permission",
    );
    const reader = await w.person({ models: { "*": ["read"] }, system: [] });
    ok(await propose(w, {}, w.ctx(reader)));
    const enOnly = await w.person({
      models: { "*": ["read"] },
      system: [],
      languages: { read: ["de"] },
    });
    await refusedUnchanged(
      w,
      () => propose(w, {}, w.ctx(enOnly)),
      "locale_denied",
    );
    const limited = await w.person({
      models: { "*": ["read"] },
      system: [],
      fields: { "*": { read: ["title"] } },
    });
    const denied = await refusedUnchanged(
      w,
      () => propose(w, { fields: { body: "b" } }, w.ctx(limited)),
      "field_denied",
    );
    assert.deepEqual((denied as { fields: string[] }).fields, ["body"]);
  }));

Deno.test("listEntryProposals() lists an entry's proposals by state with their sources, ai included (ENT-023, ENT-025)", () =>
  withWorld(async (w) => {
    const a = ok(await propose(w, { note: "a" })).proposal;
    w.clock.advance(1000);
    const b = ok(
      await propose(w, {
        note: "b",
        ai_job: { id: "job-7", label: "Tone pass" },
      }),
    ).proposal;
    ok(await dismissEntryProposal(w.ctx(), a.id));
    const all = ok(await listEntryProposals(w.ctx(), { group_id: w.groupId }));
    assert.deepEqual(all.proposals.map((p) => [p.id, p.state]), [
      [a.id, "dismissed"],
      [b.id, "open"],
    ]);
    assert.deepEqual(all.proposals[1].source, {
      kind: "ai",
      id: "job-7",
      label: "Tone pass",
    });
    const open = ok(
      await listEntryProposals(w.ctx(), { group_id: w.groupId, state: "open" }),
    );
    assert.deepEqual(open.proposals.map((p) => p.id), [b.id]);
    const de = ok(
      await listEntryProposals(w.ctx(), { group_id: w.groupId, locale: "de" }),
    );
    assert.deepEqual(de.proposals, []);
    assert.equal(
      code(
        await listEntryProposals(w.ctx(), {
          group_id: w.groupId,
          state: "stale",
        }),
      ),
      "invalid_request",
    );
    assert.equal(
      code(
        await listEntryProposals(w.ctx(), { group_id: crypto.randomUUID() }),
      ),
      "not_found",
    );
  }));

Deno.test("getEntryProposal() reads one proposal, leaves out unreadable fields, and answers not_found to a reader without read", () =>
  withWorld(async (w) => {
    const p = ok(
      await propose(w, { fields: { title: "T", body: "B" } }),
    ).proposal;
    const read = ok(await getEntryProposal(w.ctx(), p.id)).proposal;
    assert.deepEqual(read, p);
    const limited = await w.person({
      models: { "*": ["read"] },
      system: [],
      fields: { "*": { read: ["title"] } },
    });
    const partial = ok(await getEntryProposal(w.ctx(limited), p.id)).proposal;
    assert.deepEqual(partial.fields, { title: "T" });
    assert.deepEqual(partial.original_fields, { title: "Old title" });
    const stranger = await w.person({ models: {}, system: [] });
    assert.equal(
      code(await getEntryProposal(w.ctx(stranger), p.id)),
      "not_found",
    );
    assert.equal(code(await getEntryProposal(w.ctx(), "nope")), "not_found");
  }));

Deno.test("applyEntryProposal() saves the proposal through saveEntry pinned to base_version_id and marks it applied (ENT-026)", () =>
  withWorld(async (w) => {
    const p = ok(
      await propose(w, { fields: { title: "New title", t02: "two" } }),
    ).proposal;
    w.clock.advance(60_000);
    const applied = ok(await applyEntryProposal(w.ctx(), p.id));
    assert.equal(applied.proposal.state, "applied");
    assert.equal(applied.proposal.revision, 2);
    assert.equal(
      applied.proposal.applied_version_id,
      applied.entry.current_version_id,
    );
    assert.deepEqual(applied.proposal.decided_by, {
      kind: "person",
      person_id: w.editorId,
      email: `${w.editorId}@example.test`,
    });
    const version = await w.db.selectFrom("entry_versions").selectAll()
      .where("id", "=", applied.entry.current_version_id!)
      .executeTakeFirstOrThrow();
    assert.equal(version.number, 2);
    assert.deepEqual(version.fields, {
      title: "New title",
      body: "Old body",
      t01: "one",
      t02: "two",
    });
    const audit = await w.db.selectFrom("audit_entries").selectAll()
      .where("action", "=", "entry.save").executeTakeFirstOrThrow();
    assert.equal((audit.details as { proposal_id: string }).proposal_id, p.id);
    // Applied once: a second apply is refused and writes nothing.
    await refusedUnchanged(
      w,
      () => applyEntryProposal(w.ctx(), p.id),
      "proposal_not_open",
    );
  }));

Deno.test("applyEntryProposal() refuses proposal_stale when the entry changed after the proposal, writing nothing (ENT-026)", () =>
  withWorld(async (w) => {
    const p = ok(await propose(w, {})).proposal;
    ok(
      await saveEntry(w.ctx(), {
        group_id: w.groupId,
        locale: "en",
        fields: { title: "Someone else's edit" },
        expected_current_version_id: w.versionId,
      }),
    );
    await refusedUnchanged(
      w,
      () => applyEntryProposal(w.ctx(), p.id),
      "proposal_stale",
    );
    const still = ok(await getEntryProposal(w.ctx(), p.id)).proposal;
    assert.equal(still.state, "open");
  }));

Deno.test("applyEntryProposal() keeps the save's own refusals: a person without update is refused and the proposal stays open", () =>
  withWorld(async (w) => {
    const p = ok(await propose(w, {})).proposal;
    const reader = await w.person({ models: { "*": ["read"] }, system: [] });
    await refusedUnchanged(
      w,
      () => applyEntryProposal(w.ctx(reader), p.id),
      "missing_permission",
    );
    await refusedUnchanged(
      w,
      () => applyEntryProposal(w.ctx(w.plugin(w.editorId)), p.id),
      "forbidden",
    );
    await refusedUnchanged(
      w,
      () => applyEntryProposal(w.ctx(), crypto.randomUUID()),
      "not_found",
    );
  }));

Deno.test("applyEntryProposal() of one proposal twice at once applies it once", () =>
  withWorld(async (w) => {
    const p = ok(await propose(w, {})).proposal;
    const outcomes = await Promise.all([
      applyEntryProposal(w.ctx(), p.id),
      applyEntryProposal(w.ctx(), p.id),
    ]);
    assert.equal(outcomes.filter((o) => o.ok).length, 1);
    const versions = await w.db.selectFrom("entry_versions").select("id")
      .execute();
    assert.equal(versions.length, 2);
  }));

Deno.test("dismissEntryProposal() dismisses an open proposal and leaves the entry unchanged (ENT-027)", () =>
  withWorld(async (w) => {
    const p = ok(await propose(w, {})).proposal;
    const entryBefore = await w.db.selectFrom("entries").selectAll().execute();
    const versionsBefore = await w.db.selectFrom("entry_versions").selectAll()
      .execute();
    const dismissed = ok(await dismissEntryProposal(w.ctx(), p.id)).proposal;
    assert.equal(dismissed.state, "dismissed");
    assert.equal(dismissed.revision, 2);
    assert.deepEqual(
      await w.db.selectFrom("entries").selectAll().execute(),
      entryBefore,
    );
    assert.deepEqual(
      await w.db.selectFrom("entry_versions").selectAll().execute(),
      versionsBefore,
    );
    await refusedUnchanged(
      w,
      () => applyEntryProposal(w.ctx(), p.id),
      "proposal_not_open",
    );
    await refusedUnchanged(
      w,
      () => dismissEntryProposal(w.ctx(), p.id),
      "proposal_not_open",
    );
  }));

Deno.test("applyEntryProposal() by a credential applies as its creator: scope content:write is needed, and the credential is recorded", () =>
  withWorld(async (w) => {
    const p = ok(await propose(w, { fields: { title: "By script" } }))
      .proposal;
    const proposer = await insertCredential(w.db, w.siteId, {
      creatorId: w.editorId,
      scopes: ["content:propose"],
      clock: w.clock,
    });
    await refusedUnchanged(
      w,
      () => applyEntryProposal(w.ctx(proposer), p.id),
      "missing_permission",
    );
    const writer = await insertCredential(w.db, w.siteId, {
      creatorId: w.editorId,
      scopes: ["content:write"],
      clock: w.clock,
    });
    const applied = ok(await applyEntryProposal(w.ctx(writer), p.id));
    assert.equal(applied.proposal.state, "applied");
    assert.equal(applied.proposal.decided_by?.kind, "credential");
    const version = await w.db.selectFrom("entry_versions").select("fields")
      .where("id", "=", applied.entry.current_version_id!)
      .executeTakeFirstOrThrow();
    assert.equal((version.fields as { title: string }).title, "By script");
    const second = ok(
      await propose(w, {
        base_version_id: applied.entry.current_version_id!,
        fields: { body: "Dismiss me" },
      }),
    ).proposal;
    await refusedUnchanged(
      w,
      () => dismissEntryProposal(w.ctx(proposer), second.id),
      "missing_permission",
    );
    const dismissed = ok(await dismissEntryProposal(w.ctx(writer), second.id))
      .proposal;
    assert.equal(dismissed.state, "dismissed");
    assert.equal(dismissed.decided_by?.kind, "credential");
  }));

Deno.test("dismissEntryProposal() needs update on the model and refuses a plugin", () =>
  withWorld(async (w) => {
    const p = ok(await propose(w, {})).proposal;
    const reader = await w.person({ models: { "*": ["read"] }, system: [] });
    await refusedUnchanged(
      w,
      () => dismissEntryProposal(w.ctx(reader), p.id),
      "missing_permission",
    );
    await refusedUnchanged(
      w,
      () => dismissEntryProposal(w.ctx(w.plugin(w.editorId)), p.id),
      "forbidden",
    );
  }));

Deno.test("applyEntryProposal() rolls the save back when the proposal stopped being open inside the save's transaction", () =>
  withWorld(async (w) => {
    const p = ok(await propose(w, {})).proposal;
    // The validator runs inside the save's transaction: close the proposal there, as a
    // concurrent dismissal would, and the save must not survive.
    const ctx = w.ctx(undefined, {
      async validate({ db }) {
        await db.updateTable("entry_proposals").set({
          state: "dismissed",
          decided_at: new Date(),
        }).where("id", "=", p.id).execute();
        return [];
      },
    });
    await refusedUnchanged(
      w,
      () => applyEntryProposal(ctx, p.id),
      "proposal_not_open",
    );
  }));
