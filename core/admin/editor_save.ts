// The editor's commands: save (create, translate, update) pinned to the version read, and workflow actions.
import { assignEntry, moveReview } from "../entries/review.ts";
import { isReviewMove } from "../entries/review_stage.ts";
import {
  publishEntry,
  restoreEntry,
  saveEntry,
  trashEntry,
  unpublishEntry,
} from "../entries/mod.ts";
import type { LifecycleOutcome, LifecycleRefusal } from "../entries/types.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { AdminContext } from "./context.ts";
import { one } from "./form_values.ts";
import {
  type FieldControl,
  type ParsedForm,
  parseEntryForm,
  problemsByField,
  rawOf,
} from "./entry_form.ts";

/** What a refused save tells the page: field messages, and for a conflict the saved values. */
export interface SaveRefusal {
  ok: false;
  code: string;
  errors: Record<string, string[]>;
  parsed: ParsedForm;
  /** `version_conflict`: the language's current version now, and its values. */
  current?: { versionId: string | null; values: Record<string, unknown> };
}

/** Field messages of a refusal, by field key; `_slug` for the entry's slug. */
export function refusalErrors(
  refusal: LifecycleRefusal,
  locale: string,
): Record<string, string[]> {
  if (refusal.code === "field_validation_failed") {
    return problemsByField(
      (refusal.errors ?? []).filter((p) => !p.locale || p.locale === locale),
    );
  }
  if (refusal.code === "slug_taken") {
    return {
      _slug: [
        "Another entry of this model already uses this slug in this language",
      ],
    };
  }
  if (refusal.code === "unique_value_taken" && refusal.unique) {
    return Object.fromEntries(
      refusal.unique.fields.map((
        f,
      ) => [f, ["Another entry already holds this value"]]),
    );
  }
  if (refusal.code === "field_denied") {
    return Object.fromEntries(
      (refusal.fields ?? []).map((
        f,
      ) => [f.split(/[.[]/)[0], ["Your role may not change this field"]]),
    );
  }
  if (refusal.relation) {
    return {
      [refusal.relation.field]: [
        `Refused items: ${refusal.relation.ids.join(", ")}`,
      ],
    };
  }
  return {};
}

/** Saves the posted form as the entry's next version in `locale` (or creates the entry). */
export async function saveFromForm(
  ctx: AdminContext,
  options: {
    model: StoredModel;
    controls: FieldControl[];
    groupId: string | null;
    locale: string;
    form: Record<string, unknown>;
  },
): Promise<{ ok: true; groupId: string } | SaveRefusal> {
  const parsed = parseEntryForm(options.controls, options.form);
  const slug = one(options.form.slug).trim();
  if (parsed.problems.length > 0) {
    return {
      ok: false,
      code: "form_invalid",
      errors: problemsByField(parsed.problems),
      parsed,
    };
  }
  const expected = one(options.form.expected_current_version_id);
  const outcome = await saveEntry(ctx.lifecycle, {
    ...(options.groupId
      ? { group_id: options.groupId }
      : { model_id: options.model.id }),
    locale: options.locale,
    slug: slug === "" ? undefined : slug,
    fields: parsed.values,
    expected_current_version_id: expected === "" ? null : expected,
  });
  if (outcome.ok) return { ok: true, groupId: outcome.group_id };
  const refusal: SaveRefusal = {
    ok: false,
    code: outcome.code,
    errors: refusalErrors(outcome, options.locale),
    parsed,
  };
  if (outcome.code === "version_conflict" && options.groupId) {
    const instance = await ctx.services.db.selectFrom("entries")
      .select("current_version_id").where("site_id", "=", ctx.site.id)
      .where("group_id", "=", options.groupId)
      .where("locale", "=", options.locale).executeTakeFirst();
    const versionId = instance?.current_version_id ?? null;
    const version = versionId
      ? await ctx.services.db.selectFrom("entry_versions").select("fields")
        .where("site_id", "=", ctx.site.id).where("id", "=", versionId)
        .executeTakeFirst()
      : undefined;
    refusal.current = {
      versionId,
      values: (version?.fields ?? {}) as Record<string, unknown>,
    };
  }
  return refusal;
}

/** The rows of a conflict: each field whose text differs between the form and the saved version. */
export function conflictRows(
  controls: readonly FieldControl[],
  parsed: ParsedForm,
  saved: Record<string, unknown>,
): { key: string; label: string; mine: string; theirs: string }[] {
  const show = (v: unknown) => Array.isArray(v) ? v.join("\n") : String(v);
  return controls.filter((c) => !c.readOnly).flatMap((c) => {
    const mine = show(parsed.raw[c.key] ?? "");
    const theirs = show(rawOf(c, saved[c.key]));
    return mine === theirs
      ? []
      : [{ key: c.key, label: c.label, mine, theirs }];
  });
}

/** Runs a workflow action of the editor's sidebar, pinned to what the page showed. */
export async function runEditorAction(
  ctx: AdminContext,
  options: { groupId: string; action: string; form: Record<string, unknown> },
): Promise<LifecycleOutcome> {
  const { form, groupId } = options;
  const locale = one(form.lang);
  const revision = Number(one(form.revision));
  const pin = (name: string) => {
    const v = one(form[name]);
    return v === "" ? null : v;
  };
  if (options.action !== "assign" && !Number.isInteger(revision)) {
    return { ok: false, code: "workflow_conflict" };
  }
  switch (options.action) {
    case "publish":
      return await publishEntry(ctx.lifecycle, {
        group_id: groupId,
        locale,
        expected_current_version_id: pin("expected_current_version_id"),
        expected_workflow_revision: revision,
      });
    case "unpublish":
      return await unpublishEntry(ctx.lifecycle, {
        group_id: groupId,
        locale,
        expected_published_version_id: pin("expected_published_version_id"),
        expected_workflow_revision: revision,
      });
    case "trash":
      return await trashEntry(ctx.lifecycle, {
        group_id: groupId,
        expected_workflow_revision: revision,
      });
    case "restore":
      return await restoreEntry(ctx.lifecycle, {
        group_id: groupId,
        expected_workflow_revision: revision,
      });
    case "assign":
      return await assignEntry(ctx.lifecycle, {
        group_id: groupId,
        assignee_id: pin("assignee"),
      });
    default:
      if (isReviewMove(options.action)) {
        return await moveReview(ctx.lifecycle, {
          group_id: groupId,
          move: options.action,
          expected_workflow_revision: revision,
        });
      }
      return { ok: false, code: "transition_unavailable" };
  }
}
