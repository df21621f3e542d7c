// Tests of readWorkflow(): the revision and only the transitions the actor may take now, whole and per language.
import assert from "node:assert/strict";
import { ok, openWorld } from "./_testing.ts";
import { publishEntry, saveEntry, trashEntry } from "./lifecycle.ts";
import { readWorkflow } from "./workflow.ts";

async function twoLanguages(w: Awaited<ReturnType<typeof openWorld>>) {
  const en = ok(
    await saveEntry(w.ctx(), {
      model_id: "article",
      locale: "en",
      slug: "a",
      fields: {},
      expected_current_version_id: null,
    }),
  );
  return ok(
    await saveEntry(w.ctx(), {
      group_id: en.group_id,
      locale: "de",
      slug: "a",
      fields: {},
      expected_current_version_id: null,
    }),
  );
}

Deno.test("readWorkflow() offers an editor publish, review and trash on a draft, and per-language publish", async () => {
  const w = await openWorld();
  try {
    const a = await twoLanguages(w);
    const read = ok(await readWorkflow(w.ctx(), { group_id: a.group_id }));
    assert.equal(read.workflow.revision, 0);
    assert.equal(read.workflow.current_version_id, a.current_version_id);
    assert.deepEqual(read.workflow.transitions, [
      { kind: "publish", to: "published" },
      { kind: "submit", to: "in_review" },
      { kind: "trash", to: "trashed" },
    ]);
    assert.deepEqual(Object.keys(read.workflow.locales), ["en", "de"]);
    assert.deepEqual(read.workflow.locales.de.transitions, [{
      kind: "publish",
      to: "published",
    }]);
  } finally {
    await w.close();
  }
});

Deno.test("readWorkflow() after publishing offers unpublish, not publish, until a new draft is saved", async () => {
  const w = await openWorld();
  try {
    const a = await twoLanguages(w);
    const p = ok(
      await publishEntry(w.ctx(), {
        group_id: a.group_id,
        expected_current_version_id: a.current_version_id,
        expected_workflow_revision: 0,
      }),
    );
    let read = ok(await readWorkflow(w.ctx(), { group_id: a.group_id }));
    assert.equal(read.workflow.revision, 1);
    assert.deepEqual(read.workflow.transitions.map((t) => t.kind), [
      "unpublish",
      "trash",
    ]);
    assert.equal(read.workflow.published_version_id, p.published_version_id);
    ok(
      await saveEntry(w.ctx(), {
        group_id: a.group_id,
        locale: "en",
        fields: { title: "new" },
        expected_current_version_id: p.instances[0].current_version_id,
      }),
    );
    read = ok(await readWorkflow(w.ctx(), { group_id: a.group_id }));
    assert.deepEqual(read.workflow.locales.en.transitions.map((t) => t.kind), [
      "publish",
      "unpublish",
    ]);
    assert.deepEqual(read.workflow.locales.de.transitions.map((t) => t.kind), [
      "unpublish",
    ]);
  } finally {
    await w.close();
  }
});

Deno.test("readWorkflow() narrows transitions to the actor's permissions and languages", async () => {
  const w = await openWorld();
  try {
    const a = await twoLanguages(w);
    const enPublisher = await w.person({
      models: { article: ["read", "publish"] },
      system: [],
      languages: { publish: ["en"] },
    });
    const read = ok(
      await readWorkflow(w.ctx(enPublisher), { group_id: a.group_id }),
    );
    assert.deepEqual(read.workflow.transitions, []);
    assert.deepEqual(read.workflow.locales.en.transitions, [{
      kind: "publish",
      to: "published",
    }]);
    assert.deepEqual(read.workflow.locales.de.transitions, []);
  } finally {
    await w.close();
  }
});

Deno.test("readWorkflow() of a trashed item offers only restore, and refuses an unusable delegation with requester_unauthorized", async () => {
  const w = await openWorld();
  try {
    const a = await twoLanguages(w);
    ok(await trashEntry(w.ctx(), { group_id: a.group_id }));
    const read = ok(await readWorkflow(w.ctx(), { group_id: a.group_id }));
    assert.deepEqual(read.workflow.transitions, [{
      kind: "restore",
      to: "draft",
    }]);
    assert.deepEqual(read.workflow.locales.en.transitions, []);
    await w.db.updateTable("users").set({ status: "deactivated" })
      .where("id", "=", w.editorId).execute();
    assert.deepEqual(
      await readWorkflow(w.ctx(w.plugin(w.editorId)), { group_id: a.group_id }),
      {
        ok: false,
        code: "requester_unauthorized",
      },
    );
  } finally {
    await w.close();
  }
});
