// Autosave of the editor: the person's working draft of one entry language (core/drafts), written
// from the editor's form as they type, offered back when they return, dropped when they save.
import {
  discardDraft,
  type DraftRefusal,
  getEditing,
  saveDraft,
} from "../drafts/mod.ts";
import type { AdminContext } from "./context.ts";
import { one } from "./form_values.ts";
import { type FieldControl, parseEntryForm } from "./entry_form.ts";

/** What the editor shows of working drafts in one language. */
export interface DraftState {
  /** The person's own draft; null when none. */
  own: {
    revision: number;
    updatedAt: string;
    baseVersionId: string | null;
    fields: Record<string, unknown>;
  } | null;
  /** Someone else's draft in this language: who, never what. */
  heldBy: string | null;
}

function draftContext(ctx: AdminContext) {
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    siteId: ctx.site.id,
    actor: ctx.actor,
  };
}

/** The person's working draft of a language and whether someone else holds one. */
export async function draftState(
  ctx: AdminContext,
  groupId: string,
  locale: string,
): Promise<DraftState> {
  const editing = await getEditing(draftContext(ctx), {
    group_id: groupId,
    locale,
  });
  if (!editing.ok) return { own: null, heldBy: null };
  return {
    own: editing.draft
      ? {
        revision: editing.draft.revision,
        updatedAt: editing.draft.updated_at.toISOString(),
        baseVersionId: editing.draft.base_version_id,
        fields: editing.draft.fields,
      }
      : null,
    heldBy: editing.held_by?.email ?? null,
  };
}

/** What an autosave answers the editor. */
export type AutosaveResult =
  | { ok: true; revision: number; saved_at: string }
  | { ok: false; code: string; held_by?: string; message: string };

const MESSAGES: Record<string, string> = {
  draft_conflict:
    "Not autosaved: this draft changed in another tab. Reload to continue from it.",
  draft_held: "Not autosaved: someone else is editing this language.",
  form_invalid: "Not autosaved until the marked fields read correctly.",
  missing_permission: "Your role may not change this entry.",
  locale_denied: "Your role may not change this language.",
  not_found: "This entry is gone.",
};

/**
 * Writes the editor's form as the person's working draft, pinned to the draft revision the
 * page holds (`draft_revision`, empty: none yet) and based on the version the page opened.
 */
export async function autosave(
  ctx: AdminContext,
  options: {
    controls: FieldControl[];
    groupId: string;
    locale: string;
    form: Record<string, unknown>;
  },
): Promise<AutosaveResult> {
  const parsed = parseEntryForm(options.controls, options.form);
  if (parsed.problems.length > 0) {
    return { ok: false, code: "form_invalid", message: MESSAGES.form_invalid };
  }
  const revision = one(options.form.draft_revision);
  const base = one(options.form.expected_current_version_id);
  const saved = await saveDraft(draftContext(ctx), {
    group_id: options.groupId,
    locale: options.locale,
    fields: parsed.values,
    base_version_id: base === "" ? null : base,
    expected_revision: revision === "" ? null : Number(revision),
  });
  if (saved.ok) {
    return {
      ok: true,
      revision: saved.draft.revision,
      saved_at: saved.draft.updated_at.toISOString(),
    };
  }
  const refusal = saved as DraftRefusal;
  return {
    ok: false,
    code: refusal.code,
    held_by: refusal.held_by?.email,
    message: MESSAGES[refusal.code] ?? `Not autosaved (${refusal.code}).`,
  };
}

/** Drops the person's draft of a language (after a save, or when they discard it). */
export async function dropDraft(
  ctx: AdminContext,
  groupId: string,
  locale: string,
): Promise<void> {
  await discardDraft(draftContext(ctx), { group_id: groupId, locale });
}
