// Model proposal rows, their reader-facing shape and the stale flag computed from the model now.
import type { Selectable } from "kysely";
import type { Db } from "../db/database.ts";
import type { ModelProposalsTable } from "../db/schema.ts";
import { isId } from "../entries/store.ts";
import type { ActorSnapshot } from "../entries/types.ts";
import type { ModelDefinition } from "../models/definition.ts";
import type { ProposalSource, ProposalState } from "./types.ts";

/** A stored model proposal row. */
export type ModelProposalRow = Selectable<ModelProposalsTable>;

/** A model proposal as a reader sees it (spec 2 parts 2.3, 3). */
export interface ModelProposal {
  id: string;
  mode: "create" | "update";
  /** The model changed (update); null for create. */
  model_id: string | null;
  /** The model's `updated_at` the proposer read (update); null for create. */
  base_updated_at: Date | null;
  definition: ModelDefinition;
  note: string;
  source: ProposalSource;
  state: ProposalState;
  /**
   * True while open when the model changed (or was removed) after `base_updated_at`;
   * such a proposal can only be dismissed.
   */
  stale: boolean;
  /** Starts at 1 and moves with every change of state. */
  revision: number;
  /** The model the apply created or changed; null unless applied. */
  applied_model_id: string | null;
  decided_by: ActorSnapshot | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The row on the site, or undefined; `lock` takes a row lock. */
export async function readModelProposalRow(
  db: Db,
  siteId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<ModelProposalRow | undefined> {
  if (!isId(id)) return undefined;
  let query = db.selectFrom("model_proposals").selectAll()
    .where("site_id", "=", siteId).where("id", "=", id.toLowerCase());
  if (options.lock) query = query.forUpdate();
  return await query.executeTakeFirst();
}

/** The `updated_at` of the site's live models among `ids`, by id. */
export async function modelTimes(
  db: Db,
  siteId: string,
  ids: readonly string[],
): Promise<Map<string, Date>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom("models").select(["id", "updated_at"])
    .where("site_id", "=", siteId).where("deleted_at", "is", null)
    .where("id", "in", [...ids]).execute();
  return new Map(rows.map((r) => [r.id, r.updated_at]));
}

/** True when an open update proposal's model changed or went away after its base. */
export function isStale(
  row: ModelProposalRow,
  times: ReadonlyMap<string, Date>,
): boolean {
  if (row.state !== "open" || row.mode !== "update") return false;
  const now = times.get(row.model_id!);
  return now === undefined ||
    now.getTime() !== row.base_updated_at!.getTime();
}

/** The row as a reader sees it, its stale flag computed from `times`. */
export function presentModelProposal(
  row: ModelProposalRow,
  times: ReadonlyMap<string, Date>,
): ModelProposal {
  return {
    id: row.id,
    mode: row.mode,
    model_id: row.model_id,
    base_updated_at: row.base_updated_at,
    definition: row.definition as ModelDefinition,
    note: row.note,
    source: row.source as ProposalSource,
    state: row.state,
    stale: isStale(row, times),
    revision: row.revision,
    applied_model_id: row.applied_model_id,
    decided_by: (row.decided_by ?? null) as ActorSnapshot | null,
    decided_at: row.decided_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Reads the row again and shapes it with its stale flag. */
export async function readModelProposal(
  db: Db,
  siteId: string,
  id: string,
): Promise<ModelProposal> {
  const row = await readModelProposalRow(db, siteId, id);
  if (!row) {
    throw new Error(`Cannot read model proposal "${id}" after writing it`);
  }
  const times = await modelTimes(
    db,
    siteId,
    row.model_id ? [row.model_id] : [],
  );
  return presentModelProposal(row, times);
}
