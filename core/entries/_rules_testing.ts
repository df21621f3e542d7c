// Test fixtures for the entry-rule tests: real models on the world's site and counts of every rule table.
import { createModel } from "../models/store.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { World } from "./_testing.ts";
import { modelValidator } from "./model_validator.ts";
import { saveEntry } from "./save.ts";
import type {
  EntryValidator,
  LifecycleContext,
  LifecycleOutcome,
} from "./types.ts";

/** Creates a model on the world's site from a definition; throws when refused. */
export async function model(
  w: World,
  slug: string,
  fields: unknown[],
  info: Record<string, unknown> = {},
): Promise<StoredModel> {
  const result = await createModel(
    { db: w.db, clock: w.clock, siteId: w.siteId },
    { model: { name: slug, slug, ...info }, fields },
  );
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result.model;
}

/** Row counts of the entry tables and the rule tables, to prove a refusal wrote nothing. */
export async function allCounts(w: World): Promise<Record<string, number>> {
  const out = await w.counts();
  for (
    const table of [
      "entry_links",
      "entry_unique_claims",
      "entry_single_claims",
    ] as const
  ) {
    const row = await w.db.selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
}

let slugs = 0;

/** Creates an entry of `modelId` in `en` with the given values (validated), under a fresh slug. */
export function create(
  w: World,
  modelId: string,
  fields: Record<string, unknown>,
  ctx: LifecycleContext = w.ctx(undefined, { validate: modelValidator() }),
): Promise<LifecycleOutcome> {
  return saveEntry(ctx, {
    model_id: modelId,
    locale: "en",
    slug: `e-${++slugs}`,
    fields,
    expected_current_version_id: null,
  });
}

/** The stored links of a source group, in list order, as `locale:target` strings per field key. */
export async function linksOf(
  w: World,
  groupId: string,
): Promise<Record<string, string[]>> {
  const rows = await w.db.selectFrom("entry_links")
    .select(["field_key", "locale", "target_group_id"])
    .where("source_group_id", "=", groupId)
    .orderBy("field_key").orderBy("locale").orderBy("position").execute();
  const out: Record<string, string[]> = {};
  for (const row of rows) {
    (out[row.field_key] ??= []).push(
      row.locale === null
        ? row.target_group_id
        : `${row.locale}:${row.target_group_id}`,
    );
  }
  return out;
}

/**
 * A validator (called inside the transaction, before the rows are written) that holds each
 * of two commands until both have arrived or 300 ms passed, so that neither has committed
 * when the other checks; without a claim both would pass their checks.
 */
export function rendezvous(): EntryValidator {
  let arrived = 0;
  let release!: () => void;
  const both = new Promise<void>((resolve) => release = resolve);
  return async function meet() {
    if (++arrived === 2) release();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([both, new Promise((r) => timer = setTimeout(r, 300))]);
    clearTimeout(timer);
    return [];
  };
}
