// Reads entry proposal rows and shapes them for a reader, leaving out fields the reader cannot read.
import type { Selectable } from "kysely";
import type { Authority } from "../access/authority.ts";
import { readableFields } from "../access/decide.ts";
import type { Db } from "../db/database.ts";
import type { EntryProposalsTable } from "../db/schema.ts";
import { isId } from "../entries/store.ts";
import type { ActorSnapshot } from "../entries/types.ts";
import type { ProposalSource, ProposalState } from "./types.ts";

/** A stored entry proposal row. */
export type EntryProposalRow = Selectable<EntryProposalsTable>;

/** An entry proposal as a reader sees it (spec 2 part 2.2). */
export interface EntryProposal {
  id: string;
  /** The entry (translation group) proposed to. */
  group_id: string;
  /** The language instance of `base_version_id`. */
  entry_id: string;
  model_id: string;
  locale: string;
  base_version_id: string;
  /** Proposed values by field key, without fields the reader cannot read. */
  fields: Record<string, unknown>;
  /** The base version's values of the proposed fields the reader can read; null when none were kept. */
  original_fields: Record<string, unknown> | null;
  note: string;
  source: ProposalSource;
  state: ProposalState;
  /** Starts at 1 and moves with every change of state. */
  revision: number;
  /** The version the apply saved; null unless applied. */
  applied_version_id: string | null;
  /** Who applied or dismissed it; null while open. */
  decided_by: ActorSnapshot | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The proposal row on the site, or undefined; `lock` takes a row lock. */
export async function readProposalRow(
  db: Db,
  siteId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<EntryProposalRow | undefined> {
  if (!isId(id)) return undefined;
  let query = db.selectFrom("entry_proposals").selectAll()
    .where("site_id", "=", siteId).where("id", "=", id.toLowerCase());
  if (options.lock) query = query.forUpdate();
  return await query.executeTakeFirst();
}

function readable(
  authority: Authority,
  modelId: string,
  values: Record<string, unknown>,
): Record<string, unknown> {
  const keys = readableFields(authority, modelId, Object.keys(values));
  return Object.fromEntries(keys.map((key) => [key, values[key]]));
}

/** The row as `authority` may read it. */
export function presentProposal(
  row: EntryProposalRow,
  authority: Authority,
): EntryProposal {
  const original = row.original_fields as Record<string, unknown> | null;
  return {
    id: row.id,
    group_id: row.group_id,
    entry_id: row.entry_id,
    model_id: row.model_id,
    locale: row.locale,
    base_version_id: row.base_version_id,
    fields: readable(
      authority,
      row.model_id,
      row.fields as Record<string, unknown>,
    ),
    original_fields: original === null
      ? null
      : readable(authority, row.model_id, original),
    note: row.note,
    source: row.source as ProposalSource,
    state: row.state,
    revision: row.revision,
    applied_version_id: row.applied_version_id,
    decided_by: (row.decided_by ?? null) as ActorSnapshot | null,
    decided_at: row.decided_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
