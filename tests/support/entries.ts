// Saves a test entry with one version per language, as a person, through the lifecycle service.
import { personActor } from "../../core/access/actor.ts";
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../core/db/database.ts";
import { modelValidator, saveEntry } from "../../core/entries/mod.ts";

/** The entry's group and its language instances by locale. */
export interface SavedTestEntry {
  groupId: string;
  instances: Record<string, string>;
}

/** Saves `values` (fields by locale) as one entry of `modelId`, languages in the order given. */
export async function saveTestEntry(
  ctx: {
    db: Db;
    clock: Clock;
    siteId: string;
    userId: string;
    modelId: string;
  },
  values: Record<string, Record<string, unknown>>,
): Promise<SavedTestEntry> {
  let groupId: string | undefined;
  const instances: Record<string, string> = {};
  for (const [locale, fields] of Object.entries(values)) {
    const saved = await saveEntry({
      db: ctx.db,
      clock: ctx.clock,
      siteId: ctx.siteId,
      actor: personActor(ctx.userId),
      validate: modelValidator(),
    }, {
      group_id: groupId,
      model_id: ctx.modelId,
      locale,
      slug: `${locale}-${crypto.randomUUID().slice(0, 8)}`,
      fields,
      expected_current_version_id: null,
    });
    if (!saved.ok) throw new Error(`Cannot save the entry: ${saved.code}`);
    groupId = saved.group_id;
    for (const i of saved.instances) instances[i.locale] = i.entry_id;
  }
  return { groupId: groupId!, instances };
}
