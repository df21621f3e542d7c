// Decides an open entry proposal: a person or credential applies it (an ordinary pinned save) or dismisses it.
import { decide } from "../access/decide.ts";
import { type AuditWriter, ledgerAuditWriter } from "../entries/audit.ts";
import { saveEntry } from "../entries/save.ts";
import { readGroup } from "../entries/store.ts";
import type { LifecycleContext, LifecycleResult } from "../entries/types.ts";
import { runProposalCommand } from "./command.ts";
import {
  type EntryProposal,
  presentProposal,
  readProposalRow,
} from "./entry_proposal_rows.ts";
import type { ProposalRefusal } from "./types.ts";
import { authorityOf } from "./command.ts";

/** What an apply answers: the proposal, now applied, and the save it made. */
export interface AppliedEntryProposal {
  ok: true;
  proposal: EntryProposal;
  entry: LifecycleResult;
}

/** What a dismissal answers. */
export interface DismissedEntryProposal {
  ok: true;
  proposal: EntryProposal;
}

const NOT_OPEN: ProposalRefusal = { ok: false, code: "proposal_not_open" };

/**
 * A person, or a management credential acting as its creator (spec 2 part 5.1), applies an
 * open proposal (ENT-026): the base version's values with the proposed
 * values over them, saved through `saveEntry` pinned to `base_version_id`, so the save
 * makes the ordinary permission, language, field and validation checks and its ordinary
 * audit entry (which names the proposal). The proposal turns `applied` in the same
 * transaction. Refusals: `forbidden` (a plugin), `not_found`, `proposal_not_open`,
 * `proposal_stale` (the language changed after the proposal; nothing written), and every
 * refusal of the save.
 */
export async function applyEntryProposal(
  ctx: LifecycleContext,
  id: string,
): Promise<AppliedEntryProposal | ProposalRefusal> {
  if (ctx.actor.kind === "plugin") return { ok: false, code: "forbidden" };
  const loaded = await authorityOf(ctx);
  if (!loaded.ok) return loaded;
  const row = await readProposalRow(ctx.db, ctx.siteId, id);
  if (!row) return { ok: false, code: "not_found" };
  if (row.state !== "open") return NOT_OPEN;
  const instance = await ctx.db.selectFrom("entries")
    .select("current_version_id")
    .where("site_id", "=", ctx.siteId).where("id", "=", row.entry_id)
    .executeTakeFirst();
  if (instance?.current_version_id !== row.base_version_id) {
    return { ok: false, code: "proposal_stale" };
  }
  const base = await ctx.db.selectFrom("entry_versions").select("fields")
    .where("site_id", "=", ctx.siteId).where("id", "=", row.base_version_id)
    .executeTakeFirstOrThrow();
  let lost = false;
  const writer = ctx.audit ?? ledgerAuditWriter;
  // The save's own transaction hands its audit writer the transaction handle, so the
  // proposal turns applied atomically with the version it made (or not at all).
  const audit: AuditWriter = {
    async write(tx, entry) {
      const versionId = String(entry.details.version_id);
      const updated = await tx.updateTable("entry_proposals").set((eb) => ({
        state: "applied",
        applied_version_id: versionId,
        revision: eb("revision", "+", 1),
        decided_by: JSON.stringify(entry.actor),
        decided_at: entry.at,
        updated_at: entry.at,
      })).where("site_id", "=", ctx.siteId).where("id", "=", row.id)
        .where("state", "=", "open").executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) {
        lost = true;
        throw new Error(`Proposal "${row.id}" is no longer open`);
      }
      await writer.write(tx, {
        ...entry,
        details: { ...entry.details, proposal_id: row.id },
      });
    },
  };
  const saved = await saveEntry({ ...ctx, audit }, {
    group_id: row.group_id,
    locale: row.locale,
    fields: {
      ...(base.fields as Record<string, unknown>),
      ...(row.fields as Record<string, unknown>),
    },
    expected_current_version_id: row.base_version_id,
  });
  if (!saved.ok) {
    if (lost) return NOT_OPEN;
    if (saved.code === "version_conflict") {
      return { ok: false, code: "proposal_stale" };
    }
    return saved;
  }
  const after = await readProposalRow(ctx.db, ctx.siteId, row.id);
  return {
    ok: true,
    proposal: presentProposal(after!, loaded.authority),
    entry: saved,
  };
}

/**
 * A person or a management credential dismisses an open proposal (ENT-027); the entry is
 * unchanged. Needs `update` on the model in the proposal's language (a credential: scope
 * `content:write`). Refusals: `forbidden` (a plugin), `not_found`,
 * `proposal_not_open`, `missing_permission`, `locale_denied`.
 */
export function dismissEntryProposal(
  ctx: LifecycleContext,
  id: string,
): Promise<DismissedEntryProposal | ProposalRefusal> {
  if (ctx.actor.kind === "plugin") {
    return Promise.resolve({ ok: false, code: "forbidden" });
  }
  return runProposalCommand<DismissedEntryProposal>(ctx, async (scope) => {
    const row = await readProposalRow(scope.tx, ctx.siteId, id, { lock: true });
    if (!row) return { ok: false, code: "not_found" };
    const group = await readGroup(scope.tx, ctx.siteId, row.group_id);
    const decision = decide(scope.authority, {
      action: "update",
      model: row.model_id,
      owner: group?.created_by ?? null,
      languages: [row.locale],
    });
    if (!decision.ok) return decision;
    if (row.state !== "open") return NOT_OPEN;
    await scope.tx.updateTable("entry_proposals").set({
      state: "dismissed",
      revision: row.revision + 1,
      decided_by: JSON.stringify(scope.actor),
      decided_at: scope.now,
      updated_at: scope.now,
    }).where("site_id", "=", ctx.siteId).where("id", "=", row.id).execute();
    await scope.audit({
      action: "entry.proposal.dismiss",
      target: {
        kind: "entry",
        group_id: row.group_id,
        model_id: row.model_id,
        locale: row.locale,
      },
      details: { proposal_id: row.id },
    });
    const after = await readProposalRow(scope.tx, ctx.siteId, row.id);
    return { ok: true, proposal: presentProposal(after!, scope.authority) };
  });
}
