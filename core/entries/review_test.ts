// Review moves and assignment: pinned, permitted, evented and audited (ENT workflow moves, AUD-001).
import { deepEqual, equal } from "node:assert/strict";
import { editorPermissions } from "../access/default_roles.ts";
import { article, code, ok, openWorld } from "./_testing.ts";
import {
  assignEntry,
  listAssignees,
  moveReview,
  readAssignment,
} from "./review.ts";
import { readReviewStage } from "./review_state.ts";
import { saveEntry } from "./save.ts";
import { publishEntry } from "./lifecycle.ts";
import { readWorkflow } from "./workflow.ts";
import { putSettings } from "../sites/settings.ts";

Deno.test("moveReview() submits a draft for review, bumping the revision with an event and an audit entry", async () => {
  const w = await openWorld();
  try {
    const saved = await article(w);
    const moved = ok(
      await moveReview(w.ctx(), {
        group_id: saved.group_id,
        move: "submit",
        expected_workflow_revision: saved.revision,
      }),
    );
    equal(moved.revision, saved.revision + 1);
    equal(await readReviewStage(w.db, w.siteId, saved.group_id), "in_review");
    const event = await w.db.selectFrom("workflow_events").selectAll().where(
      "kind",
      "=",
      "review.submit",
    )
      .executeTakeFirstOrThrow();
    deepEqual([event.from_state, event.to_state], ["draft", "in_review"]);
    const audit = await w.db.selectFrom("audit_entries").select("action").where(
      "action",
      "=",
      "entry.review.submit",
    )
      .execute();
    equal(audit.length, 1);
  } finally {
    await w.close();
  }
});

Deno.test("moveReview() refuses a stale revision with workflow_conflict and a move from the wrong stage, changing nothing", async () => {
  const w = await openWorld();
  try {
    const saved = await article(w);
    const before = await w.counts();
    equal(
      code(
        await moveReview(w.ctx(), {
          group_id: saved.group_id,
          move: "submit",
          expected_workflow_revision: 99,
        }),
      ),
      "workflow_conflict",
    );
    equal(
      code(
        await moveReview(w.ctx(), {
          group_id: saved.group_id,
          move: "approve",
          expected_workflow_revision: saved.revision,
        }),
      ),
      "transition_unavailable",
    );
    deepEqual(await w.counts(), before);
    equal(await readReviewStage(w.db, w.siteId, saved.group_id), "draft");
  } finally {
    await w.close();
  }
});

Deno.test("moveReview() needs review to approve; an editor without it is refused missing_permission", async () => {
  const w = await openWorld();
  try {
    const saved = await article(w);
    const submitted = ok(
      await moveReview(w.ctx(), {
        group_id: saved.group_id,
        move: "submit",
        expected_workflow_revision: saved.revision,
      }),
    );
    const permissions = editorPermissions();
    permissions.models["*"] = permissions.models["*"].filter((p) =>
      p !== "review"
    );
    const writer = await w.person(permissions);
    const refused = await moveReview(w.ctx(writer), {
      group_id: saved.group_id,
      move: "approve",
      expected_workflow_revision: submitted.revision,
    });
    equal(code(refused), "missing_permission");
    ok(
      await moveReview(w.ctx(), {
        group_id: saved.group_id,
        move: "approve",
        expected_workflow_revision: submitted.revision,
      }),
    );
    equal(await readReviewStage(w.db, w.siteId, saved.group_id), "approved");
  } finally {
    await w.close();
  }
});

Deno.test("an approval speaks about one version: a newer save reads as draft again", async () => {
  const w = await openWorld();
  try {
    const saved = await article(w);
    const s1 = ok(
      await moveReview(w.ctx(), {
        group_id: saved.group_id,
        move: "submit",
        expected_workflow_revision: saved.revision,
      }),
    );
    ok(
      await moveReview(w.ctx(), {
        group_id: saved.group_id,
        move: "approve",
        expected_workflow_revision: s1.revision,
      }),
    );
    const en = saved.instances.find((i) => i.locale === "en")!;
    ok(
      await saveEntry(w.ctx(), {
        group_id: saved.group_id,
        locale: "en",
        fields: { title: "A, edited" },
        expected_current_version_id: en.current_version_id,
      }),
    );
    equal(await readReviewStage(w.db, w.siteId, saved.group_id), "draft");
  } finally {
    await w.close();
  }
});

Deno.test("assignEntry() names an eligible person, refuses one who cannot act, and clears with null", async () => {
  const w = await openWorld();
  try {
    const saved = await article(w);
    const outsider = await w.person({
      models: { other: ["read"] },
      system: [],
    });
    const candidates = await listAssignees(
      { db: w.db, siteId: w.siteId },
      saved.group_id,
    );
    deepEqual(candidates?.map((c) => c.user_id), [w.editorId]);
    ok(
      await assignEntry(w.ctx(), {
        group_id: saved.group_id,
        assignee_id: w.editorId,
      }),
    );
    equal(await readAssignment(w.db, w.siteId, saved.group_id), w.editorId);
    const outsiderId = outsider.kind === "person" ? outsider.userId : "";
    equal(
      code(
        await assignEntry(w.ctx(), {
          group_id: saved.group_id,
          assignee_id: outsiderId,
        }),
      ),
      "assignee_not_eligible",
    );
    equal(await readAssignment(w.db, w.siteId, saved.group_id), w.editorId);
    ok(
      await assignEntry(w.ctx(), {
        group_id: saved.group_id,
        assignee_id: null,
      }),
    );
    equal(await readAssignment(w.db, w.siteId, saved.group_id), null);
  } finally {
    await w.close();
  }
});

Deno.test("with review required, publish waits for approval and the workflow block offers submit, not publish", async () => {
  const w = await openWorld();
  try {
    const saved = await article(w);
    ok(
      await putSettings(
        { db: w.db, clock: w.clock, siteId: w.siteId, personId: w.editorId },
        "editorial",
        {
          document: { version_retention_days: null, review_required: true },
          expectedRevision: 0,
        },
      ),
    );
    const block =
      ok(await readWorkflow(w.ctx(), { group_id: saved.group_id })).workflow;
    deepEqual(block.transitions.map((t) => t.kind), ["submit", "trash"]);
    const publish = (revision: number, current: string | null) =>
      publishEntry(w.ctx(), {
        group_id: saved.group_id,
        expected_current_version_id: current,
        expected_workflow_revision: revision,
      });
    equal(
      code(await publish(saved.revision, saved.current_version_id)),
      "transition_unavailable",
    );
    const submitted = ok(
      await moveReview(w.ctx(), {
        group_id: saved.group_id,
        move: "submit",
        expected_workflow_revision: saved.revision,
      }),
    );
    const approved = ok(
      await moveReview(w.ctx(), {
        group_id: saved.group_id,
        move: "approve",
        expected_workflow_revision: submitted.revision,
      }),
    );
    const after =
      ok(await readWorkflow(w.ctx(), { group_id: saved.group_id })).workflow;
    deepEqual(after.transitions.map((t) => t.kind), ["publish", "trash"]);
    equal(
      code(await publish(approved.revision, saved.current_version_id)),
      "ok",
    );
  } finally {
    await w.close();
  }
});
