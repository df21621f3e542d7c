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
import type {
  LifecycleContext,
  LifecycleOutcome,
  LifecycleRefusal,
} from "../entries/types.ts";
import {
  type PolicyKind,
  type PolicyRefusal,
  type PolicyResult,
} from "../plugins/policies.ts";
import { policyRefusalText, underPolicies } from "./policy_checks.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { AdminContext } from "./context.ts";
import { one } from "./form_values.ts";
import { decide } from "../access/decide.ts";
import { keylessMediaContext } from "../media/storage_of.ts";
import { updateMedia } from "../media/edit.ts";
import { readMediaRow } from "../media/items.ts";
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
  /** The words of a plugin policy's refusal, shown above the form. */
  alert?: string;
}

/** A policy refusal as the form shows it: the words above, its fields marked. */
function policyRefusalOf(
  refusal: PolicyRefusal,
  parsed: ParsedForm,
): SaveRefusal {
  const fields = (refusal.details.fields ?? []) as string[];
  return {
    ok: false,
    code: refusal.code,
    errors: Object.fromEntries(fields.map((f) => [f, [refusal.message]])),
    parsed,
    alert: policyRefusalText(refusal),
  };
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

/** The longest alt text a library item keeps per language. */
const ALT_TEXT_MAX = 1000;

/** An alt text a single image field's picker posted for the image chosen in it. */
interface PostedAlt {
  key: string;
  mediaId: string;
  text: string;
}

/**
 * The alt texts posted beside single image choices (`alt.<key>`), each only when it was shown
 * for the image chosen now (`alt_for.<key>`): a choice changed without script keeps the text
 * shown for the previous image, which must not be given to the new one.
 */
function postedAltTexts(
  controls: readonly FieldControl[],
  form: Record<string, unknown>,
  values: Record<string, unknown>,
): PostedAlt[] {
  return controls.flatMap((control) => {
    if (control.type !== "media" || control.multiple) return [];
    const posted = form[`alt.${control.key}`];
    const chosen = values[control.key];
    if (typeof posted !== "string" || typeof chosen !== "string") return [];
    if (one(form[`alt_for.${control.key}`]) !== chosen) return [];
    return [{ key: control.key, mediaId: chosen, text: posted.trim() }];
  });
}

/**
 * Writes each changed alt text on its library image in `locale`, as the person (who needs
 * `media:update`; the editor offers the field only then). The entry is saved already: an image
 * removed meanwhile, or not an image, is left alone.
 */
async function saveAltTexts(
  ctx: AdminContext,
  locale: string,
  alts: readonly PostedAlt[],
): Promise<void> {
  if (alts.length === 0) return;
  // The request's authority, loaded for this page, decides; it is not read again.
  if (!decide(ctx.authority, { action: "media:update" }).ok) return;
  const media = keylessMediaContext(ctx.services, ctx.site.id);
  for (const alt of alts) {
    const row = await readMediaRow(media.db, media.siteId, alt.mediaId);
    if (!row || row.kind !== "image" || row.external) continue;
    const current = (row.alt_texts as Record<string, string>)[locale] ?? "";
    if (current === alt.text) continue;
    await updateMedia(media, alt.mediaId, {
      alt_texts: { [locale]: alt.text },
    });
  }
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
): Promise<
  { ok: true; groupId: string; policyResults: PolicyResult[] } | SaveRefusal
> {
  const parsed = parseEntryForm(options.controls, options.form);
  const slug = one(options.form.slug).trim();
  const expected = one(options.form.expected_current_version_id);
  const errors = problemsByField(parsed.problems);
  // A new entry or language has no slug to keep: without one (a form posted without the
  // script that fills it in) the person is asked for it rather than the save failing.
  if (slug === "" && (options.groupId === null || expected === "")) {
    errors._slug = ["Give this entry a slug"];
  }
  const alts = postedAltTexts(options.controls, options.form, parsed.values);
  for (const alt of alts) {
    if (alt.text.length > ALT_TEXT_MAX) {
      errors[alt.key] = [
        `The alt text is at most ${ALT_TEXT_MAX} characters (${alt.text.length} now)`,
      ];
    }
  }
  if (Object.keys(errors).length > 0) {
    return { ok: false, code: "form_invalid", errors, parsed };
  }
  const save = (
    lifecycle: LifecycleContext,
    transform: Record<string, unknown> | null,
  ) =>
    saveEntry(lifecycle, {
      ...(options.groupId
        ? { group_id: options.groupId }
        : { model_id: options.model.id }),
      locale: options.locale,
      slug: slug === "" ? undefined : slug,
      fields: { ...parsed.values, ...transform },
      expected_current_version_id: expected === "" ? null : expected,
    });
  // A new entry or language has nothing for a save policy to check yet.
  const checked = options.groupId && expected !== ""
    ? await underPolicies(ctx, {
      kind: "save",
      groupId: options.groupId,
      modelId: options.model.id,
      locale: options.locale,
      values: { pinnedVersionId: expected, after: parsed.values },
    }, save)
    : {
      ok: true as const,
      outcome: await save(ctx.lifecycle, null),
      results: [],
    };
  if (!checked.ok) return policyRefusalOf(checked, parsed);
  const outcome = checked.outcome;
  if (outcome.ok) {
    await saveAltTexts(ctx, options.locale, alts);
    return {
      ok: true,
      groupId: outcome.group_id,
      policyResults: checked.results,
    };
  }
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

/** What a workflow action did: the outcome and what policies said, or a policy's refusal. */
export type EditorActionOutcome =
  | { ok: true; outcome: LifecycleOutcome; results: PolicyResult[] }
  | PolicyRefusal;

/** The policy kind and transition an editor action is checked as (assignment is not checked). */
function policyKindOf(
  action: string,
): { kind: PolicyKind; transition: string } | null {
  if (action === "publish" || action === "unpublish") {
    return { kind: "transition", transition: action };
  }
  if (action === "trash" || action === "restore") {
    return { kind: "trash", transition: action };
  }
  if (isReviewMove(action)) return { kind: "transition", transition: action };
  return null;
}

/** Runs a workflow action of the editor's sidebar under the site's policies. */
export async function runCheckedEditorAction(
  ctx: AdminContext,
  options: {
    groupId: string;
    modelId: string;
    action: string;
    form: Record<string, unknown>;
  },
): Promise<EditorActionOutcome> {
  const kind = policyKindOf(options.action);
  const run = (lifecycle: LifecycleContext) =>
    runEditorAction({ ...ctx, lifecycle }, options);
  if (!kind) {
    return { ok: true, outcome: await run(ctx.lifecycle), results: [] };
  }
  const locale = one(options.form.lang);
  return await underPolicies(ctx, {
    ...kind,
    groupId: options.groupId,
    modelId: options.modelId,
    locale: kind.kind === "transition" && !isReviewMove(options.action)
      ? locale
      : null,
  }, (lifecycle) => run(lifecycle));
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
