// Shared helpers of the models tests: a database with two sites, model inputs, fake facts.
import { ManualClock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { type ContentFacts, NO_CONTENT } from "./change_safety.ts";
import { createModel } from "./store.ts";
import type { ModelContext, StoredModel } from "./store_rows.ts";

export async function withDb(
  fn: (
    ctx: ModelContext,
    other: ModelContext,
    clock: ManualClock,
  ) => Promise<void>,
) {
  const { db, close } = await openTestDb();
  try {
    const clock = new ManualClock();
    const site = async (slug: string) => {
      const id = crypto.randomUUID();
      await db.insertInto("sites").values({
        id,
        slug,
        name: slug,
        domain: `${slug}.test`,
        created_at: clock.now(),
      }).execute();
      return { db, clock, siteId: id };
    };
    await fn(await site("one"), await site("two"), clock);
  } finally {
    await close();
  }
}

export const noContent = () => NO_CONTENT;
export const withEntries =
  (entries: number, extra: Partial<ContentFacts> = {}) => (): ContentFacts => ({
    ...NO_CONTENT,
    countEntries: () => Promise.resolve(entries),
    countEntriesMissingValue: () => Promise.resolve(entries),
    ...extra,
  });

export function posts(
  fields: unknown[] = [{ key: "title", label: "Title", type: "text" }],
  model: Record<string, unknown> = {},
) {
  return { model: { name: "Posts", slug: "posts", ...model }, fields };
}

export async function create(
  ctx: ModelContext,
  input: unknown,
): Promise<StoredModel> {
  const result = await createModel(ctx, input);
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result.model;
}

/** The wire-like definition of a saved model, to edit and send back. */
export function fieldsOf(model: StoredModel): Record<string, unknown>[] {
  return model.fields.map((f) => ({ ...f }));
}

export async function count(
  db: Db,
  table: "models" | "model_fields" | "model_field_keys",
) {
  const row = await db.selectFrom(table).select((eb) =>
    eb.fn.countAll<number>().as("n")
  ).executeTakeFirstOrThrow();
  return Number(row.n);
}
