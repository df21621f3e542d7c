// Handlers of the entry workflow routes: moves, assignment, Trash, relations, proposals and working drafts.
import { decide } from "../../access/decide.ts";
import {
  discardDraft,
  getEditing,
  saveDraft,
  takeOverDraft,
} from "../../drafts/mod.ts";
import {
  listRelatedFrom,
  purgeEntry as purge,
  restoreEntry,
  saveEntry,
  trashEntry as trash,
} from "../../entries/mod.ts";
import {
  assignEntry,
  listAssignees,
  moveReview,
  readAssignment,
} from "../../entries/review.ts";
import { readReviewStage } from "../../entries/review_state.ts";
import { readInstances } from "../../entries/store.ts";
import { getModel } from "../../models/model_reads.ts";
import {
  createEntryProposal as propose,
  listEntryProposals as listProposals,
} from "../../proposals/mod.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/entries_more.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import {
  auditByKey,
  iso,
  lifecycleOf,
  pageGroups,
  plain,
  readableGroup,
  refuseWith,
  requireDecision,
  requireModel,
  summaries,
  unwrap,
  writtenAnswer,
} from "./entries_support.ts";
import { readGroup } from "../../entries/store.ts";
import { underPolicies } from "./policy_gate.ts";

async function groupOr404(ctx: ManageContext, id: string) {
  const group = await readGroup(ctx.services.db, ctx.site.id, id);
  if (!group) return refuseWith({ ok: false, code: "not_found" });
  return group;
}

function draftContext(ctx: ManageContext) {
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    siteId: ctx.site.id,
    actor: ctx.actor,
  };
}

/** `transition-entry`: a review move pinned to the workflow revision. */
export const transitionEntry = defineHandler(contract.transitionEntry, {
  async run(ctx, { params, body }) {
    const move = async ({ dryRun }: { dryRun: boolean }) =>
      await moveReview({ ...lifecycleOf(ctx), dryRun }, {
        group_id: params.id,
        move: body.move,
        expected_workflow_revision: body.expected_workflow_revision,
      });
    const group = await readGroup(ctx.services.db, ctx.site.id, params.id);
    const { result, policy_results } = group
      ? await underPolicies(ctx, {
        kind: "transition",
        transition: body.move,
        groupId: group.id,
        modelId: group.model_id,
        locale: null,
      }, move)
      : { result: unwrap(await move({ dryRun: false })), policy_results: [] };
    return {
      body: {
        ...writtenAnswer(result),
        review_stage: await readReviewStage(
          ctx.services.db,
          ctx.site.id,
          result.group_id,
        ),
        policy_results,
      },
    };
  },
});

/** `list-entry-assignees`: who may be named, and who is. */
export const listEntryAssignees = defineHandler(contract.listEntryAssignees, {
  async run(ctx, { params }) {
    const group = await groupOr404(ctx, params.id);
    requireDecision(ctx.authority, {
      action: "entries.assign",
      model: group.model_id,
      owner: group.created_by,
    });
    const { db } = ctx.services;
    const data = (await listAssignees({ db, siteId: ctx.site.id }, group.id)) ??
      [];
    return {
      body: {
        data,
        assignee_id: await readAssignment(db, ctx.site.id, group.id),
      },
    };
  },
});

async function assigned(ctx: ManageContext, groupId: string) {
  const audit = await auditByKey(ctx, "entry.assign", groupId);
  if (!audit) return null;
  return {
    body: {
      id: groupId,
      model_id: String(audit.target.model_id),
      assignee_id: (audit.details.assignee_id ?? null) as string | null,
    },
  };
}

/** `put-entry-assignment`: names who acts next; the first answer is held and proved from its audit entry. */
export const putEntryAssignment = defineHandler(contract.putEntryAssignment, {
  async run(ctx, { params, body }) {
    const group = await groupOr404(ctx, params.id);
    requireDecision(ctx.authority, {
      action: "entries.assign",
      model: group.model_id,
      owner: group.created_by,
    });
    unwrap(
      await assignEntry(lifecycleOf(ctx), {
        group_id: group.id,
        assignee_id: body.assignee_id,
      }),
    );
    const answer = await assigned(ctx, group.id);
    if (!answer) {
      throw new Error(`Cannot read back the assignment of entry "${group.id}"`);
    }
    return answer;
  },
  prove: (ctx, { params }) => assigned(ctx, params.id),
});

/** `list-trash`: a model's entries in Trash, paged in SQL. */
export const listTrash = defineHandler(contract.listTrash, {
  async run(ctx, { query }) {
    requireDecision(ctx.authority, {
      action: "entries.read",
      model: query.model_id,
      owner: ctx.authority.personId,
    });
    const { groups, page } = await pageGroups(ctx, {
      modelId: query.model_id,
      trashed: true,
      limit: query.limit,
      cursor: query.cursor,
    });
    // After the cursor check, so a refusal names the first thing wrong with the request.
    if (groups.length === 0) await requireModel(ctx, query.model_id);
    return {
      body: {
        data: await summaries(
          ctx.services.db,
          ctx.authority,
          ctx.site.id,
          groups,
        ),
        page,
      },
    };
  },
});

/** `get-entry-trash`: the entry's Trash state and the Trash commands allowed now. */
export const getEntryTrash = defineHandler(contract.getEntryTrash, {
  async run(ctx, { params }) {
    const group = await readableGroup(ctx, params.id);
    const instances = await readInstances(
      ctx.services.db,
      ctx.site.id,
      group.id,
    );
    const languages = instances.map((i) => i.locale);
    const may = (
      action: "entries.trash" | "entries.trash_restore" | "entries.purge",
    ) =>
      decide(ctx.authority, {
        action,
        model: group.model_id,
        owner: group.created_by,
        languages,
      }).ok;
    const trashed = group.trashed_at !== null;
    const actions: ("trash" | "restore" | "purge")[] = [];
    if (!trashed && may("entries.trash")) actions.push("trash");
    if (trashed && may("entries.trash_restore")) actions.push("restore");
    if (trashed && may("entries.purge")) actions.push("purge");
    return {
      body: {
        id: group.id,
        model_id: group.model_id,
        trashed,
        trashed_at: iso(group.trashed_at),
        revision: group.revision,
        actions,
      },
    };
  },
});

async function trashMoved(ctx: ManageContext, groupId: string, into: boolean) {
  const audit = await auditByKey(
    ctx,
    into ? "entry.trash" : "entry.restore",
    groupId,
  );
  if (!audit) return null;
  return {
    body: {
      id: groupId,
      model_id: String(audit.target.model_id),
      trashed: into,
      revision: Number(audit.details.revision),
      policy_results: [],
    },
  };
}

function trashHandler(into: boolean) {
  return {
    async run(
      ctx: ManageContext,
      { params, body }: {
        params: { id: string };
        body: { expected_workflow_revision?: number };
      },
    ) {
      const group = await groupOr404(ctx, params.id);
      const instances = await readInstances(
        ctx.services.db,
        ctx.site.id,
        group.id,
      );
      requireDecision(ctx.authority, {
        action: into ? "entries.trash" : "entries.trash_restore",
        model: group.model_id,
        owner: group.created_by,
        languages: instances.map((i) => i.locale),
      });
      const command = into ? trash : restoreEntry;
      const { policy_results } = await underPolicies(ctx, {
        kind: "trash",
        transition: into ? "trash" : "restore",
        groupId: group.id,
        modelId: group.model_id,
        locale: null,
      }, async ({ dryRun }) =>
        await command({ ...lifecycleOf(ctx), dryRun }, {
          group_id: group.id,
          ...body,
        }));
      const answer = await trashMoved(ctx, group.id, into);
      if (!answer) {
        throw new Error(
          `Cannot read back the Trash move of entry "${group.id}"`,
        );
      }
      return { body: { ...answer.body, policy_results } };
    },
    prove: (ctx: ManageContext, { params }: { params: { id: string } }) =>
      trashMoved(ctx, params.id, into),
  };
}

/** `trash-entry`: the whole entry to Trash; the first answer is held and proved from its audit entry. */
export const trashEntry = defineHandler(
  contract.trashEntry,
  trashHandler(true),
);

/** `restore-trashed-entry`: back from Trash as it was; held and proved like trash. */
export const restoreTrashedEntry = defineHandler(
  contract.restoreTrashedEntry,
  trashHandler(false),
);

async function purged(ctx: ManageContext, groupId: string) {
  const audit = await auditByKey(ctx, "entry.purge", groupId);
  if (!audit) return null;
  const d = audit.details;
  return {
    body: {
      id: groupId,
      model_id: String(audit.target.model_id),
      purged: {
        languages: d.languages as string[],
        versions: Number(d.versions),
        links: Number(d.links),
      },
    },
  };
}

/** `purge-entry`: deletes a trashed entry for good; held and proved from the `entry.purge` audit entry. */
export const purgeEntry = defineHandler(contract.purgeEntry, {
  async run(ctx, { params, body }) {
    unwrap(await purge(lifecycleOf(ctx), { group_id: params.id, ...body }));
    const answer = await purged(ctx, params.id);
    if (!answer) {
      throw new Error(`Cannot read back the purge of entry "${params.id}"`);
    }
    return answer;
  },
  prove: (ctx, { params }) => purged(ctx, params.id),
});

/** `relate-entries`: one relation field changed by a write form, saved as a new version of that language. */
export const relateEntries = defineHandler(contract.relateEntries, {
  async run(ctx, { body }) {
    const group = await groupOr404(ctx, body.id);
    const { db, clock } = ctx.services;
    const model = await getModel(
      { db, clock, siteId: ctx.site.id },
      group.model_id,
    );
    const field = model.ok
      ? model.model.fields.find((f) => f.key === body.field)
      : undefined;
    if (!field || field.type !== "relation") {
      refuseWith({ ok: false, code: "field_not_found", fields: [body.field] });
    }
    const instances = await readInstances(db, ctx.site.id, group.id);
    const instance = instances.find((i) => i.locale === body.locale);
    if (!instance) {
      return refuse(
        404,
        "not_found",
        `The entry has no language "${body.locale}"`,
      );
    }
    const {
      id: _id,
      locale,
      field: key,
      expected_current_version_id,
      ...form
    } = body;
    if (Object.keys(form).length === 0) {
      refuse(
        400,
        "invalid_request",
        "Send set, or connect, disconnect and move",
        {
          issues: [{
            path: "body.set",
            message: "required: set, connect, disconnect or move",
          }],
        },
      );
    }
    if (form.set && Object.keys(form).length > 1) {
      refuse(
        400,
        "invalid_request",
        "Send set alone, or connect, disconnect and move",
        {
          issues: [{
            path: "body.set",
            message: "set cannot be combined with connect, disconnect or move",
          }],
        },
      );
    }
    const current = instance.current_version_id === null
      ? {}
      : (await db.selectFrom("entry_versions").select("fields")
        .where("site_id", "=", ctx.site.id).where(
          "id",
          "=",
          instance.current_version_id,
        ).executeTakeFirstOrThrow())
        .fields as Record<string, unknown>;
    const result = unwrap(
      await saveEntry(lifecycleOf(ctx), {
        group_id: group.id,
        locale,
        fields: { ...current, [key]: form },
        expected_current_version_id,
      }),
    );
    return { body: writtenAnswer(result) };
  },
});

/** `list-entry-related-from`: who links to the entry, by source model, field and language. */
export const listEntryRelatedFrom = defineHandler(
  contract.listEntryRelatedFrom,
  {
    async run(ctx, { params }) {
      await readableGroup(ctx, params.id);
      const result = unwrap(
        await listRelatedFrom(lifecycleOf(ctx), { group_id: params.id }),
      );
      return {
        body: {
          data: result.related_from.map((r) => ({
            model_id: r.model_id,
            field: r.field,
            locale: r.locale,
            ids: r.group_ids,
          })),
          hidden: result.hidden,
        },
      };
    },
  },
);

/** `create-entry-proposal`: an open proposal for a person to apply. */
export const createEntryProposal = defineHandler(contract.createEntryProposal, {
  async run(ctx, { params, body }) {
    const result = unwrap(
      await propose(draftContext(ctx), { group_id: params.id, ...body }),
    );
    return { body: plain(result.proposal) };
  },
});

/** `list-entry-proposals`: the entry's proposals, oldest first. */
export const listEntryProposals = defineHandler(contract.listEntryProposals, {
  async run(ctx, { params, query }) {
    await readableGroup(ctx, params.id);
    const result = unwrap(
      await listProposals(draftContext(ctx), { group_id: params.id, ...query }),
    );
    return { body: { data: plain(result.proposals) } };
  },
});

/** `get-entry-editing`: the creator's own draft and who else holds one. */
export const getEntryEditing = defineHandler(contract.getEntryEditing, {
  async run(ctx, { params, query }) {
    const result = unwrap(
      await getEditing(draftContext(ctx), {
        group_id: params.id,
        locale: query.locale,
      }),
    );
    const kind = query.kind ?? "draft";
    // `holder` answers who is editing the language, whoever it is, and no values.
    const holder = result.draft?.holder ?? result.held_by;
    return {
      body: plain({
        id: result.group_id,
        locale: result.locale,
        kind,
        draft: kind === "draft" ? result.draft : null,
        held_by: kind === "draft" ? result.held_by : holder,
      }),
    };
  },
});

/** `put-entry-draft`: writes the creator's working draft, pinned to its revision. */
export const putEntryDraft = defineHandler(contract.putEntryDraft, {
  async run(ctx, { params, body }) {
    const result = unwrap(
      await saveDraft(draftContext(ctx), { group_id: params.id, ...body }),
    );
    return { body: plain({ draft: result.draft }) };
  },
});

/** `take-over-entry-draft`: moves another person's draft to the creator. */
export const takeOverEntryDraft = defineHandler(contract.takeOverEntryDraft, {
  async run(ctx, { params, body }) {
    const result = unwrap(
      await takeOverDraft(draftContext(ctx), { group_id: params.id, ...body }),
    );
    return { body: plain({ draft: result.draft }) };
  },
});

/** `discard-entry-draft`: deletes the creator's own draft. */
export const discardEntryDraft = defineHandler(contract.discardEntryDraft, {
  async run(ctx, { params, body }) {
    const result = unwrap(
      await discardDraft(draftContext(ctx), { group_id: params.id, ...body }),
    );
    return { body: { discarded: result.discarded } };
  },
});
