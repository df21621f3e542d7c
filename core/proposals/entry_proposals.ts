// Entry proposals: create one pinned to a version, list an entry's, read one (spec 2 parts 2.2, 4.2).
import { decide, readableFields } from "../access/decide.ts";
import { allowedLanguages } from "../access/decide.ts";
import { readGroup } from "../entries/store.ts";
import { getModel } from "../models/model_reads.ts";
import {
  authorityOf,
  type CommandContext,
  runProposalCommand,
} from "./command.ts";
import {
  checkProposalBody,
  checkProposalFields,
} from "./entry_proposal_body.ts";
import {
  type EntryProposal,
  presentProposal,
  readProposalRow,
} from "./entry_proposal_rows.ts";
import {
  type AiJob,
  PROPOSAL_STATES,
  type ProposalRefusal,
  type ProposalState,
  sourceOf,
} from "./types.ts";

/** The body of a new entry proposal (`POST /entries/{id}/proposals`). */
export interface CreateEntryProposalOptions {
  /** The entry (translation group) proposed to. */
  group_id: string;
  /** The version the proposer read; it names the language and is the apply's pin. */
  base_version_id: unknown;
  /** Proposed values by field key. */
  fields: unknown;
  note?: unknown;
  /** Set when an AI batch job made the proposal; recorded as its source. */
  ai_job?: AiJob;
}

/** A proposal answer. */
export interface EntryProposalResult {
  ok: true;
  proposal: EntryProposal;
}

/** An entry's proposals. */
export interface EntryProposalList {
  ok: true;
  proposals: EntryProposal[];
}

/** Filters of {@linkcode listEntryProposals}. */
export interface ListEntryProposalsOptions {
  group_id: string;
  /** Only proposals in this state. */
  state?: string;
  /** Only proposals to this language. */
  locale?: string;
}

/**
 * Creates an open proposal on one language of an entry (ENT-020 to ENT-024). The actor
 * needs `read` on the model in that language (a credential: scope `content:propose`);
 * the base version must be the language's current version (else `version_conflict`).
 * Refusals: `invalid_request` (limits, each problem named), `not_found`,
 * `field_not_found`, `proposal_field_unsupported`, `field_denied` (a field the actor
 * cannot read), `missing_permission`, `locale_denied`, `version_conflict`.
 * A plugin's proposal records the plugin's name and the delegating person's email.
 */
export function createEntryProposal(
  ctx: CommandContext,
  options: CreateEntryProposalOptions,
): Promise<EntryProposalResult | ProposalRefusal> {
  return runProposalCommand<EntryProposalResult>(ctx, async (scope) => {
    const checked = checkProposalBody(options);
    if (!checked.ok) return checked;
    const { body } = checked;
    const group = await readGroup(scope.tx, ctx.siteId, options.group_id);
    if (!group) return { ok: false, code: "not_found" };
    const base = await scope.tx.selectFrom("entry_versions")
      .select(["entry_id", "locale", "fields"])
      .where("site_id", "=", ctx.siteId).where("group_id", "=", group.id)
      .where("id", "=", body.base_version_id).executeTakeFirst();
    if (!base) {
      return {
        ok: false,
        code: "invalid_request",
        problems: [{
          path: "base_version_id",
          code: "invalid_request",
          message: `No version "${body.base_version_id}" of this entry`,
        }],
      };
    }
    const decision = decide(scope.authority, {
      action: "entries.propose",
      model: group.model_id,
      owner: group.created_by,
      languages: [base.locale],
    });
    if (!decision.ok) return decision;
    const model = await getModel(
      { db: scope.tx, clock: ctx.clock, siteId: ctx.siteId },
      group.model_id,
    );
    if (!model.ok) return { ok: false, code: "not_found" };
    const keys = Object.keys(body.fields);
    const wrong = checkProposalFields(model.model, keys);
    if (wrong) return wrong;
    const hidden = keys.filter((key) =>
      readableFields(scope.authority, group.model_id, [key]).length === 0
    );
    if (hidden.length > 0) {
      return { ok: false, code: "field_denied", fields: hidden };
    }
    const instance = await scope.tx.selectFrom("entries")
      .select("current_version_id")
      .where("site_id", "=", ctx.siteId).where("id", "=", base.entry_id)
      .executeTakeFirstOrThrow();
    if (instance.current_version_id !== body.base_version_id) {
      return { ok: false, code: "version_conflict" };
    }
    const stored = base.fields as Record<string, unknown>;
    const original = Object.fromEntries(
      keys.filter((key) => Object.hasOwn(stored, key)).map((
        key,
      ) => [key, stored[key]]),
    );
    const id = scope.newId();
    await scope.tx.insertInto("entry_proposals").values({
      id,
      site_id: ctx.siteId,
      group_id: group.id,
      entry_id: base.entry_id,
      model_id: group.model_id,
      locale: base.locale,
      base_version_id: body.base_version_id,
      fields: JSON.stringify(body.fields),
      original_fields: JSON.stringify(original),
      note: body.note,
      source: JSON.stringify(sourceOf(scope.actor, options.ai_job)),
      created_by: JSON.stringify(scope.actor),
      state: "open",
      revision: 1,
      applied_version_id: null,
      decided_by: null,
      decided_at: null,
      created_at: scope.now,
      updated_at: scope.now,
    }).execute();
    await scope.audit({
      action: ctx.actor.kind === "plugin"
        ? "plugin.proposal.create"
        : "entry.proposal.create",
      target: {
        kind: "entry",
        group_id: group.id,
        model_id: group.model_id,
        locale: base.locale,
      },
      details: { proposal_id: id, base_version_id: body.base_version_id },
    });
    const row = await readProposalRow(scope.tx, ctx.siteId, id);
    return { ok: true, proposal: presentProposal(row!, scope.authority) };
  });
}

/**
 * Lists an entry's proposals, oldest first, optionally by `state` (`open`, `applied`,
 * `dismissed`) and `locale` (ENT-025). Needs `read` on the model; languages the actor
 * cannot read are left out. Refusals: `invalid_request` (unknown state), `not_found`,
 * `missing_permission`.
 */
export async function listEntryProposals(
  ctx: CommandContext,
  options: ListEntryProposalsOptions,
): Promise<EntryProposalList | ProposalRefusal> {
  const loaded = await authorityOf(ctx);
  if (!loaded.ok) return loaded;
  const { authority } = loaded;
  const state = options.state;
  if (
    state !== undefined && !PROPOSAL_STATES.includes(state as ProposalState)
  ) {
    return {
      ok: false,
      code: "invalid_request",
      problems: [{
        path: "state",
        code: "invalid_request",
        message: `Expected one of open, applied, dismissed, got "${state}"`,
      }],
    };
  }
  const group = await readGroup(ctx.db, ctx.siteId, options.group_id);
  if (!group) return { ok: false, code: "not_found" };
  const decision = decide(authority, {
    action: "entries.read",
    model: group.model_id,
    owner: group.created_by,
  });
  if (!decision.ok) return decision;
  let query = ctx.db.selectFrom("entry_proposals").selectAll()
    .where("site_id", "=", ctx.siteId).where("group_id", "=", group.id);
  if (state !== undefined) {
    query = query.where("state", "=", state as ProposalState);
  }
  if (options.locale !== undefined) {
    query = query.where("locale", "=", options.locale);
  }
  const languages = allowedLanguages(authority, "read");
  if (languages !== null) {
    if (languages.length === 0) return { ok: true, proposals: [] };
    query = query.where("locale", "in", [...languages]);
  }
  const rows = await query.orderBy("created_at").orderBy("id").execute();
  return {
    ok: true,
    proposals: rows.map((row) => presentProposal(row, authority)),
  };
}

/**
 * Reads one proposal of the site. A proposal the actor may not read (model, owner or
 * language) answers `not_found`, the same as none.
 */
export async function getEntryProposal(
  ctx: CommandContext,
  id: string,
): Promise<EntryProposalResult | ProposalRefusal> {
  const loaded = await authorityOf(ctx);
  if (!loaded.ok) return loaded;
  const row = await readProposalRow(ctx.db, ctx.siteId, id);
  if (!row) return { ok: false, code: "not_found" };
  const group = await readGroup(ctx.db, ctx.siteId, row.group_id);
  const decision = decide(loaded.authority, {
    action: "entries.read",
    model: row.model_id,
    owner: group?.created_by ?? null,
    languages: [row.locale],
  });
  if (!decision.ok) return { ok: false, code: "not_found" };
  return { ok: true, proposal: presentProposal(row, loaded.authority) };
}
