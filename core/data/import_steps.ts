// The batches of an import's phases (docs/imports-exports.md): the head (languages, models),
// media, entries as drafts, their values with references, publication, and the receipt. Each
// runs one bounded batch; core/data/import.ts decides which runs next.
import type { Db } from "../db/database.ts";
import {
  type LifecycleOutcome,
  publishEntry,
  saveEntry,
} from "../entries/mod.ts";
import { readGroup, readInstances } from "../entries/store.ts";
import { uploadMedia } from "../media/upload.ts";
import { createModel } from "../models/store.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { sha256Hex } from "../kv/digest.ts";
import { addSiteLanguage } from "../sites/languages.ts";
import type { EntryRecord, MediaRecord, ModelRecord } from "./archive.ts";
import { appendToFile, dropFile, fromBase64 } from "./files.ts";
import type { JobProblem, JobRow } from "./jobs.ts";
import {
  allStaged,
  creationOrder,
  type ImportContext,
  type ImportPlan,
  type SourceOptions,
} from "./import_plan.ts";

type Bump = (name: string, by?: number) => void;

async function mapIds(
  db: Db,
  jobId: string,
  kind: "model" | "media",
  pairs: [string, string][],
): Promise<void> {
  if (pairs.length === 0) return;
  await db.insertInto("data_import_ids").values(
    pairs.map(([old, now]) => ({
      job_id: jobId,
      old_id: old,
      new_id: now,
      kind,
    })),
  ).onConflict((oc) =>
    oc.columns(["job_id", "old_id"]).doUpdateSet((eb) => ({
      new_id: eb.ref("excluded.new_id"),
    }))
  ).execute();
}

export async function idsOf(
  db: Db,
  jobId: string,
  old: string[],
  kind?: "entry",
): Promise<Map<string, string>> {
  if (old.length === 0) return new Map();
  const rows = await db.selectFrom("data_import_ids")
    .select(["old_id", "new_id"]).where("job_id", "=", jobId)
    .where("old_id", "in", [...new Set(old)])
    .$if(kind !== undefined, (q) => q.where("kind", "=", kind!)).execute();
  return new Map(rows.map((r) => [r.old_id, r.new_id]));
}

const UUID_IN_TEXT =
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * Rewrites every archive id inside `value` (relation items, media fields, figures in rich
 * text, components) to the id it has in this site; ids the import did not make stay as they are.
 */
async function rewriteIds<T>(db: Db, jobId: string, value: T): Promise<T> {
  const text = JSON.stringify(value);
  const ids = await idsOf(db, jobId, text.match(UUID_IN_TEXT) ?? []);
  if (ids.size === 0) return value;
  return JSON.parse(text.replace(UUID_IN_TEXT, (id) => ids.get(id) ?? id));
}

export async function importHead(
  ctx: ImportContext,
  job: JobRow,
  problems: JobProblem[],
  bump: Bump,
): Promise<void> {
  const plan = job.plan as ImportPlan;
  for (const language of plan.languages) {
    if (language.action !== "create") continue;
    const added = await addSiteLanguage(
      { db: ctx.db, clock: ctx.clock, siteId: ctx.siteId, actor: ctx.actor },
      { code: language.code, keyDigest: null },
    );
    if (added.ok) bump("languages_created");
  }
  await mapIds(
    ctx.db,
    job.id,
    "model",
    plan.models.filter((m) => m.target_id !== null).map((m) => [
      m.id,
      m.target_id!,
    ]),
  );
  const archived = await allStaged<ModelRecord>(ctx.db, job.id, "model");
  for (const model of creationOrder(archived, plan.models).order) {
    const known = await idsOf(ctx.db, job.id, [model.id]);
    if (known.has(model.id)) continue;
    const definition = await rewriteIds(ctx.db, job.id, {
      model: model.definition.model,
      fields: model.definition.fields.map(({ id: _, ...field }) => field),
    });
    const created = await createModel(ctx, definition);
    if (!created.ok) {
      const first = "problems" in created ? created.problems[0] : undefined;
      problems.push({
        code: created.code,
        id: model.id,
        message:
          `Model "${model.definition.model.slug}" could not be created (${created.code})${
            first ? `: ${first.path} ${first.message}` : ""
          }`,
      });
      continue;
    }
    await mapIds(ctx.db, job.id, "model", [[model.id, created.model_id]]);
    bump("models_created");
  }
}

export async function importMedia(
  ctx: ImportContext,
  job: JobRow,
  record: MediaRecord,
  step: {
    /** The site's language codes, read once per step. */
    languages: ReadonlySet<string>;
    problems: JobProblem[];
    bump: Bump;
  },
): Promise<void> {
  const { languages, problems, bump } = step;
  if ((await idsOf(ctx.db, job.id, [record.id])).has(record.id)) return;
  const bytes = fromBase64(record.content_base64);
  if (!bytes || await sha256Hex(bytes) !== record.sha256) {
    problems.push({
      code: "import_media_digest_mismatch",
      id: record.id,
      message:
        `Media "${record.file_name}": its bytes do not match its SHA-256`,
    });
    return;
  }
  const altTexts = Object.fromEntries(
    Object.entries(record.alt_texts).filter(([code]) => languages.has(code)),
  );
  const uploaded = await uploadMedia(
    {
      db: ctx.db,
      storage: ctx.storage,
      clock: ctx.clock,
      siteId: ctx.siteId,
      publicUrl: ctx.publicUrl,
      keyDigest: null,
    },
    { bytes, fileName: record.file_name },
    {
      altTexts,
      onDuplicate: "use_existing",
      limitBytes: ctx.uploadLimitBytes,
    },
  );
  if (!uploaded.ok) {
    problems.push({
      code: uploaded.code,
      id: record.id,
      message: `Media "${record.file_name}" was refused (${uploaded.code})`,
    });
    return;
  }
  await mapIds(ctx.db, job.id, "media", [[record.id, uploaded.item.id]]);
  bump(uploaded.created ? "media_created" : "media_reused");
}

/**
 * Values without the fields that name other archived entries (relation fields, page sections
 * using a shared section, components): those entries may not exist yet while drafts are made.
 */
async function withoutReferences(
  db: Db,
  jobId: string,
  values: Record<string, unknown>,
  model: StoredModel,
): Promise<Record<string, unknown>> {
  const relations = new Set(
    model.fields.filter((f) => f.type === "relation").map((f) => f.key),
  );
  const named = JSON.stringify(values).match(UUID_IN_TEXT) ?? [];
  const entries = await idsOf(db, jobId, named, "entry");
  return Object.fromEntries(
    Object.entries(values).filter(([key, value]) =>
      !relations.has(key) &&
      !(JSON.stringify(value).match(UUID_IN_TEXT) ?? []).some((id) =>
        entries.has(id)
      )
    ),
  );
}

function refusalProblem(
  entry: EntryRecord,
  locale: string,
  what: string,
  outcome: LifecycleOutcome,
): JobProblem {
  const code = outcome.ok ? "internal_error" : outcome.code;
  const first = !outcome.ok && outcome.errors?.[0];
  return {
    code,
    id: entry.id,
    message: `Entry ${entry.id} (${locale}): ${what} refused (${code})${
      first ? `: ${first.path} ${first.message}` : ""
    }`,
  };
}

/** Ids the next save hands out, in the order `saveEntry` asks for them (group, then language). */
function idsInOrder(ids: string[]): () => string {
  const queue = [...ids];
  return () => queue.shift() ?? crypto.randomUUID();
}

/** Creates the entry's group and languages as drafts, relations left out. */
export async function importDraft(
  ctx: ImportContext,
  job: JobRow,
  entry: EntryRecord,
  models: Map<string, StoredModel>,
  problems: JobProblem[],
  bump: Bump,
): Promise<void> {
  const model = models.get(entry.model_id);
  if (!model) {
    problems.push({
      code: "import_model_missing",
      id: entry.id,
      message: `Entry ${entry.id}: its model was not imported`,
    });
    return;
  }
  const ids = await idsOf(ctx.db, job.id, [
    entry.id,
    ...entry.languages.map((l) => l.id),
  ]);
  const groupId = ids.get(entry.id)!;
  const existing = await readGroup(ctx.db, ctx.siteId, groupId);
  const have = new Set(
    existing
      ? (await readInstances(ctx.db, ctx.siteId, groupId)).map((i) => i.locale)
      : [],
  );
  let created = existing !== undefined;
  for (const language of entry.languages) {
    if (have.has(language.locale)) continue;
    const values = await rewriteIds(
      ctx.db,
      job.id,
      await withoutReferences(
        ctx.db,
        job.id,
        language.published ?? language.current ?? {},
        model,
      ),
    );
    const saved = await saveEntry(
      {
        ...ctx.lifecycle,
        newId: idsInOrder(
          created ? [ids.get(language.id)!] : [groupId, ids.get(language.id)!],
        ),
      },
      {
        ...(created ? { group_id: groupId } : { model_id: model.id }),
        locale: language.locale,
        slug: language.slug,
        fields: values,
        expected_current_version_id: null,
      },
    );
    if (!saved.ok) {
      problems.push(refusalProblem(entry, language.locale, "saving", saved));
      if (!created) return;
      continue;
    }
    created = true;
  }
  bump("entries_created");
}

/** The entry's group here and its model, or null when its draft was not made. */
async function importedGroup(
  ctx: ImportContext,
  job: JobRow,
  entry: EntryRecord,
  models: Map<string, StoredModel>,
) {
  const model = models.get(entry.model_id);
  const groupId = (await idsOf(ctx.db, job.id, [entry.id])).get(entry.id);
  const group = groupId ? await readGroup(ctx.db, ctx.siteId, groupId) : null;
  return model && group ? { model, group } : null;
}

/** Saves one language's values as its next version; a refusal is recorded and answers null. */
async function saveValues(
  ctx: ImportContext,
  job: JobRow,
  entry: EntryRecord,
  groupId: string,
  locale: string,
  values: Record<string, unknown>,
  what: string,
  problems: JobProblem[],
): Promise<boolean> {
  const instances = await readInstances(ctx.db, ctx.siteId, groupId);
  const instance = instances.find((i) => i.locale === locale);
  if (!instance) return false;
  const saved = await saveEntry(ctx.lifecycle, {
    group_id: groupId,
    locale,
    fields: await rewriteIds(ctx.db, job.id, values),
    expected_current_version_id: instance.current_version_id,
  });
  if (!saved.ok) problems.push(refusalProblem(entry, locale, what, saved));
  return saved.ok;
}

/** Saves the full values of languages whose draft left out references to other entries. */
export async function importValues(
  ctx: ImportContext,
  job: JobRow,
  entry: EntryRecord,
  models: Map<string, StoredModel>,
  problems: JobProblem[],
): Promise<void> {
  const found = await importedGroup(ctx, job, entry, models);
  if (!found) return;
  for (const language of entry.languages) {
    const first = language.published ?? language.current ?? {};
    const drafted = await withoutReferences(ctx.db, job.id, first, found.model);
    if (Object.keys(drafted).length === Object.keys(first).length) continue;
    await saveValues(
      ctx,
      job,
      entry,
      found.group.id,
      language.locale,
      first,
      "saving references",
      problems,
    );
  }
}

/**
 * Publishes what the archive had published, then saves any newer draft over it. Entries that
 * name no other entry go first (`plain`), so a page is published after the shared sections
 * and other entries it shows (`linked`).
 */
export async function importPublication(
  ctx: ImportContext,
  job: JobRow,
  entry: EntryRecord,
  models: Map<string, StoredModel>,
  pass: "plain" | "linked",
  problems: JobProblem[],
  bump: Bump,
): Promise<void> {
  const found = await importedGroup(ctx, job, entry, models);
  if (!found) return;
  const { model, group } = found;
  const linked = await Promise.all(entry.languages.map(async (language) => {
    const first = language.published ?? language.current ?? {};
    const drafted = await withoutReferences(ctx.db, job.id, first, model);
    return Object.keys(drafted).length !== Object.keys(first).length;
  }));
  if (linked.some(Boolean) !== (pass === "linked")) return;
  const publish = (job.options as Partial<SourceOptions>).publish !== "drafts";
  for (const language of entry.languages) {
    if (language.published === null) continue;
    const instance = (await readInstances(ctx.db, ctx.siteId, group.id))
      .find((i) => i.locale === language.locale);
    if (!instance) continue;
    if (publish && !instance.published_version_id) {
      const fresh = await readGroup(ctx.db, ctx.siteId, group.id);
      const published = await publishEntry(ctx.lifecycle, {
        group_id: group.id,
        locale: language.locale,
        expected_current_version_id: instance.current_version_id,
        expected_workflow_revision: fresh!.revision,
      });
      if (!published.ok) {
        problems.push(
          refusalProblem(entry, language.locale, "publishing", published),
        );
      } else bump("languages_published");
    }
    if (language.current !== null) {
      await saveValues(
        ctx,
        job,
        entry,
        group.id,
        language.locale,
        language.current,
        "saving the newer draft",
        problems,
      );
    }
  }
}

/** Writes the receipt (archive id -> id here), read in pages once the import is completed. */
export async function writeReceipt(
  ctx: ImportContext,
  job: JobRow,
  problems: JobProblem[],
  counts: Record<string, number>,
): Promise<void> {
  await dropFile(ctx.db, job.id, "receipt");
  const rows = await ctx.db.selectFrom("data_import_ids")
    .select(["old_id", "new_id"]).where("job_id", "=", job.id)
    .orderBy("old_id").execute();
  const receipt = {
    import_id: job.id,
    completed_at: ctx.clock.now().toISOString(),
    counts,
    problem_count: problems.length,
    ids: Object.fromEntries(rows.map((r) => [r.old_id, r.new_id])),
  };
  await appendToFile(
    ctx.db,
    job.id,
    "receipt",
    new TextEncoder().encode(JSON.stringify(receipt)),
  );
}
