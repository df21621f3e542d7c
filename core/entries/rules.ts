// The entry rules a save keeps, in its transaction: single-entry models, unique values, relation links.
import type { Db } from "../db/database.ts";
import { getModelOnce } from "../models/model_reads.ts";
import { inspectEntryValues } from "../models/validate_values.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { CommandScope } from "./command.ts";
import { checkMediaReferences } from "./media_refs.ts";
import { checkRichBlockReferences } from "./rich_block_refs.ts";
import { writeRelationLinks } from "./relations.ts";
import { claimUniqueValues } from "./unique.ts";
import type { LifecycleRefusal } from "./types.ts";

export { claimSingleEntry } from "./single_entry.ts";
export { resolveRelationWrites } from "./relations.ts";

/** The entry's live model on the site, or null when there is none (then no rule applies). */
export async function loadRuleModel(
  db: Db,
  siteId: string,
  modelId: string,
): Promise<StoredModel | null> {
  const found = await getModelOnce(
    { db, siteId, clock: { now: () => new Date(0) } },
    modelId,
  );
  return found.ok ? found.model : null;
}

/** A version just written, as the rules see it. */
export interface WrittenVersion {
  siteId: string;
  model: StoredModel | null;
  groupId: string;
  locale: string;
  /** The values of the new version. */
  fields: Record<string, unknown>;
  /** The values this language held before (empty for a new language). */
  previous: Record<string, unknown>;
  /** True when the command created the group just now: it holds no claims yet. */
  created?: boolean;
  /** True when the save's own write cleared the group's claims already. */
  claimsCleared?: boolean;
}

/**
 * Applies the rules after a new version's rows are written and before the command records
 * it: media references (MOD-055), plugin blocks in rich text (PEXT-027), relation targets and
 * links, then unique claims. A refusal rolls the command back.
 */
export async function enforceEntryRules(
  scope: CommandScope,
  written: WrittenVersion,
): Promise<LifecycleRefusal | null> {
  const { model } = written;
  if (model === null) return null;
  // Every check reads the references of the same two versions: inspect each once.
  const referencesOf = (values: Record<string, unknown>) =>
    inspectEntryValues(model, values, { mode: "save", locale: written.locale })
      .references;
  const references = {
    siteId: written.siteId,
    locale: written.locale,
    previous: referencesOf(written.previous),
    written: referencesOf(written.fields),
  };
  const media = await checkMediaReferences(scope, references);
  if (media) return media;
  const blocks = await checkRichBlockReferences(scope, references);
  if (blocks) return blocks;
  const links = await writeRelationLinks(scope, {
    ...written,
    model,
    references,
  });
  if (links) return links;
  return await claimUniqueValues(
    scope,
    written.siteId,
    model,
    written.groupId,
    written.created === true || written.claimsCleared === true,
  );
}
