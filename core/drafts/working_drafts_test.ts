// Tests of working drafts: own drafts pinned to their revision, discard, explicit takeover, plugin reads.
import assert from "node:assert/strict";
import type { Actor } from "../access/actor.ts";
import { editorPermissions } from "../access/default_roles.ts";
import {
  code,
  ok,
  openProposalWorld,
  type ProposalWorld,
} from "../proposals/_testing.ts";
import {
  discardDraft,
  DRAFT_LIMITS,
  getEditing,
  saveDraft,
  takeOverDraft,
} from "./working_drafts.ts";

interface DraftWorld extends ProposalWorld {
  /** A second editor. */
  other: Actor;
  otherId: string;
}

async function withWorld(fn: (w: DraftWorld) => Promise<void>) {
  const base = await openProposalWorld();
  try {
    const other = await base.person(editorPermissions());
    await fn(Object.assign(base, {
      other,
      otherId: (other as { userId: string }).userId,
    }));
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

function write(
  w: ProposalWorld,
  fields: Record<string, unknown>,
  expected_revision: number | null,
  actor?: Actor,
) {
  return saveDraft(w.ctx(actor), {
    group_id: w.groupId,
    locale: "en",
    fields,
    base_version_id: w.versionId,
    expected_revision,
  });
}

const target = (w: ProposalWorld) => ({ group_id: w.groupId, locale: "en" });

Deno.test("saveDraft() writes and getEditing() reads the person's own draft, pinned to its revision; a stale revision is draft_conflict (ENT-019, PAPI-021)", () =>
  withWorld(async (w) => {
    const first = ok(await write(w, { title: "Half done" }, null)).draft;
    assert.equal(first.revision, 1);
    assert.deepEqual(first.holder, {
      person_id: w.editorId,
      email: `${w.editorId}@example.test`,
    });
    const second = ok(await write(w, { title: "Almost" }, 1)).draft;
    assert.equal(second.revision, 2);
    await refusedUnchanged(
      w,
      () => write(w, { title: "Lost" }, 1),
      "draft_conflict",
    );
    await refusedUnchanged(
      w,
      () => write(w, { title: "Lost" }, null),
      "draft_conflict",
    );
    const editing = ok(await getEditing(w.ctx(), target(w)));
    assert.deepEqual(editing.draft?.fields, { title: "Almost" });
    assert.equal(editing.draft?.base_version_id, w.versionId);
    assert.equal(editing.held_by, null);
  }));

Deno.test("Working drafts are neither versions nor audit: writes, takeover and discard leave versions, events and the ledger unchanged (PAPI-023)", () =>
  withWorld(async (w) => {
    const before = await w.counts();
    ok(await write(w, { title: "x" }, null));
    ok(await write(w, { title: "y" }, 1));
    ok(await takeOverDraft(w.ctx(w.other), target(w)));
    ok(await discardDraft(w.ctx(w.other), target(w)));
    assert.deepEqual(await w.counts(), before);
  }));

Deno.test("discardDraft() discards the person's own draft and a read then answers none (ENT-019, PAPI-022)", () =>
  withWorld(async (w) => {
    ok(await write(w, { title: "x" }, null));
    await refusedUnchanged(
      w,
      () => discardDraft(w.ctx(), { ...target(w), expected_revision: 7 }),
      "draft_conflict",
    );
    assert.deepEqual(
      ok(await discardDraft(w.ctx(), target(w))).discarded,
      true,
    );
    const editing = ok(await getEditing(w.ctx(), target(w)));
    assert.deepEqual([editing.draft, editing.held_by], [null, null]);
    assert.deepEqual(
      ok(await discardDraft(w.ctx(), target(w))).discarded,
      false,
    );
  }));

Deno.test("Another person sees who holds a draft but not its values, and cannot write or discard it (draft_held) (ENT-017)", () =>
  withWorld(async (w) => {
    ok(await write(w, { title: "Mine" }, null));
    const seen = ok(await getEditing(w.ctx(w.other), target(w)));
    assert.equal(seen.draft, null);
    assert.deepEqual(seen.held_by, {
      person_id: w.editorId,
      email: `${w.editorId}@example.test`,
    });
    const refused = await refusedUnchanged(
      w,
      () => write(w, { title: "Theirs" }, null, w.other),
      "draft_held",
    );
    assert.equal(refused.ok ? "" : refused.held_by?.person_id, w.editorId);
    await refusedUnchanged(
      w,
      () => discardDraft(w.ctx(w.other), target(w)),
      "draft_held",
    );
  }));

Deno.test("takeOverDraft() moves another person's draft to the actor explicitly, keeps its values and records who held it (ENT-018)", () =>
  withWorld(async (w) => {
    ok(await write(w, { title: "Started" }, null));
    await refusedUnchanged(
      w,
      () =>
        takeOverDraft(w.ctx(w.other), { ...target(w), expected_revision: 2 }),
      "draft_conflict",
    );
    w.clock.advance(5000);
    const taken = ok(
      await takeOverDraft(w.ctx(w.other), {
        ...target(w),
        expected_revision: 1,
      }),
    ).draft;
    assert.equal(taken.holder.person_id, w.otherId);
    assert.deepEqual(taken.fields, { title: "Started" });
    assert.equal(taken.revision, 2);
    assert.deepEqual(taken.taken_over_from, {
      person_id: w.editorId,
      email: `${w.editorId}@example.test`,
    });
    assert.equal(
      taken.taken_over_at?.toISOString(),
      w.clock.now().toISOString(),
    );
    // The former holder now sees the session held by the other person.
    const seen = ok(await getEditing(w.ctx(), target(w)));
    assert.deepEqual([seen.draft, seen.held_by?.person_id], [null, w.otherId]);
    await refusedUnchanged(
      w,
      () => write(w, { title: "Mine again" }, 1),
      "draft_held",
    );
    ok(await write(w, { title: "Continued" }, 2, w.other));
    await refusedUnchanged(
      w,
      () => takeOverDraft(w.ctx(), { group_id: w.groupId, locale: "de" }),
      "not_found",
    );
  }));

Deno.test("A plugin acting for a person reads only that person's drafts and cannot take over (PAPI-023)", () =>
  withWorld(async (w) => {
    ok(await write(w, { title: "Editor's work" }, null));
    const forOther = ok(
      await getEditing(w.ctx(w.plugin(w.otherId)), target(w)),
    );
    assert.deepEqual([forOther.draft, forOther.held_by], [null, null]);
    await refusedUnchanged(
      w,
      () => write(w, { title: "x" }, null, w.plugin(w.otherId)),
      "draft_held",
    );
    const forEditor = ok(
      await getEditing(w.ctx(w.plugin(w.editorId)), target(w)),
    );
    assert.deepEqual(forEditor.draft?.fields, { title: "Editor's work" });
    ok(await write(w, { title: "Plugin wrote" }, 1, w.plugin(w.editorId)));
    await refusedUnchanged(
      w,
      () => takeOverDraft(w.ctx(w.plugin(w.otherId)), target(w)),
      "forbidden",
    );
  }));

Deno.test("saveDraft() accepts 1 MiB of values as JSON and refuses one byte more", () =>
  withWorld(async (w) => {
    const overhead = JSON.stringify({ title: "" }).length;
    const fits = { title: "x".repeat(DRAFT_LIMITS.bytes - overhead) };
    ok(await write(w, fits, null));
    await refusedUnchanged(
      w,
      () =>
        write(w, { title: "x".repeat(DRAFT_LIMITS.bytes - overhead + 1) }, 1),
      "invalid_request",
    );
  }));

Deno.test("saveDraft() needs update on the model in that language and a known entry, language and base version", () =>
  withWorld(async (w) => {
    const reader = await w.person({ models: { "*": ["read"] }, system: [] });
    await refusedUnchanged(
      w,
      () => write(w, { title: "x" }, null, reader),
      "missing_permission",
    );
    const deOnly = await w.person({
      models: { "*": ["read", "update"] },
      system: [],
      languages: { update: ["de"] },
    });
    await refusedUnchanged(
      w,
      () => write(w, { title: "x" }, null, deOnly),
      "locale_denied",
    );
    await refusedUnchanged(
      w,
      () =>
        saveDraft(w.ctx(), {
          group_id: w.groupId,
          locale: "xx",
          fields: {},
          base_version_id: null,
          expected_revision: null,
        }),
      "unknown_locale",
    );
    await refusedUnchanged(
      w,
      () =>
        saveDraft(w.ctx(), {
          group_id: crypto.randomUUID(),
          locale: "en",
          fields: {},
          base_version_id: null,
          expected_revision: null,
        }),
      "not_found",
    );
    await refusedUnchanged(
      w,
      () =>
        saveDraft(w.ctx(), {
          group_id: w.groupId,
          locale: "de",
          fields: {},
          base_version_id: w.versionId,
          expected_revision: null,
        }),
      "invalid_request",
    );
    // A language not saved yet may be drafted from nothing.
    ok(
      await saveDraft(w.ctx(), {
        group_id: w.groupId,
        locale: "de",
        fields: { title: "Neu" },
        base_version_id: null,
        expected_revision: null,
      }),
    );
  }));
