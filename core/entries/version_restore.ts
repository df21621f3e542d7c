// Version restore: writes an old version's values as a new draft version, checked like a save.
import { decide } from "../access/decide.ts";
import { stableJson } from "../models/problems.ts";
import { listTitleOf } from "../models/title_field.ts";
import { refusalOf, runCommand } from "./command.ts";
import { enforceEntryRules, loadRuleModel } from "./rules.ts";
import {
  instanceState,
  isId,
  readGroup,
  readInstances,
  readResult,
} from "./store.ts";
import type { LifecycleContext, LifecycleOutcome } from "./types.ts";

/** A version restore, pinned to the language's current version the caller saw. */
export interface RestoreVersionOptions {
  group_id: string;
  /** The version to restore; its language is the one written. */
  version_id: string;
  expected_current_version_id: string | null;
  /** Values that replace the old version's (a restore policy's transform). */
  overrides?: Record<string, unknown>;
}

function changedKeys(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) =>
    stableJson(before[k]) !== stableJson(after[k])
  );
}

/**
 * Restores an old version of one language as a new draft version
 * (`POST /entries/{id}/versions/{versionId}/restore`, ENT-009): the new version holds the
 * old values exactly; the published version is untouched. Needs the `restore_version`
 * command: `update` and `restore` on the model and the `content:restore` system permission
 * (for credentials the `content:write` scope), in the version's language. Refusals:
 * `not_found` (group or version), `missing_permission`, `locale_denied`, `field_denied`
 * (the restore would rewrite a field the actor cannot write; MOD-041),
 * `version_conflict` (stale pin), `transition_unavailable` (in Trash),
 * `field_validation_failed` (the values no longer fit the current model; MOD-037), and the
 * save rules (`unique_value_taken`, `relation_*`).
 */
export function restoreVersion(
  ctx: LifecycleContext,
  options: RestoreVersionOptions,
): Promise<LifecycleOutcome> {
  return runCommand(ctx, async (scope) => {
    const { siteId } = ctx;
    const { tx } = scope;
    const group = await readGroup(tx, siteId, options.group_id, { lock: true });
    if (!group || !isId(options.version_id)) {
      return { ok: false, code: "not_found" };
    }
    const version = await tx.selectFrom("entry_versions")
      .select(["id", "locale", "fields"])
      .where("site_id", "=", siteId).where("group_id", "=", group.id)
      .where("id", "=", options.version_id).executeTakeFirst();
    const instances = await readInstances(tx, siteId, group.id);
    const instance = instances.find((i) => i.locale === version?.locale);
    if (!version || !instance) return { ok: false, code: "not_found" };
    const current = instance.current_version_id === null
      ? {}
      : (await tx.selectFrom("entry_versions").select("fields")
        .where("site_id", "=", siteId)
        .where("id", "=", instance.current_version_id)
        .executeTakeFirstOrThrow()).fields as Record<string, unknown>;
    const fields = {
      ...version.fields as Record<string, unknown>,
      ...options.overrides,
    };
    const decision = decide(scope.authority, {
      action: "entries.restore_version",
      model: group.model_id,
      owner: group.created_by,
      languages: [instance.locale],
      fields: changedKeys(current, fields),
    });
    if (!decision.ok) return refusalOf(decision);
    if (instance.current_version_id !== options.expected_current_version_id) {
      return { ok: false, code: "version_conflict" };
    }
    if (group.trashed_at !== null) {
      return { ok: false, code: "transition_unavailable" };
    }
    if (ctx.validate) {
      const errors = await ctx.validate({
        db: tx,
        siteId,
        modelId: group.model_id,
        values: fields,
        mode: "save",
        locale: instance.locale,
      });
      if (errors.length > 0) {
        return {
          ok: false,
          code: "field_validation_failed",
          errors: [...errors],
        };
      }
    }
    const versionId = scope.newId();
    const last = await tx.selectFrom("entry_versions")
      .select((eb) => eb.fn.max("number").as("n"))
      .where("site_id", "=", siteId).where("group_id", "=", group.id)
      .executeTakeFirst();
    await tx.insertInto("entry_versions").values({
      id: versionId,
      site_id: siteId,
      group_id: group.id,
      entry_id: instance.id,
      locale: instance.locale,
      number: Number(last?.n ?? 0) + 1,
      fields: JSON.stringify(fields),
      created_by: JSON.stringify(scope.actor),
      created_at: scope.now,
    }).execute();
    const model = await loadRuleModel(tx, siteId, group.model_id);
    await tx.updateTable("entries")
      .set({
        current_version_id: versionId,
        list_title: listTitleOf(model, fields),
        updated_at: scope.now,
      })
      .where("site_id", "=", siteId).where("id", "=", instance.id).execute();
    await tx.updateTable("entry_groups")
      .set({ current_version_id: versionId, updated_at: scope.now })
      .where("site_id", "=", siteId).where("id", "=", group.id).execute();
    const refused = await enforceEntryRules(scope, {
      siteId,
      model,
      groupId: group.id,
      locale: instance.locale,
      fields,
      previous: current,
    });
    if (refused) return refused;
    const state = instanceState(group, instance);
    await scope.record([{
      groupId: group.id,
      entryId: instance.id,
      locale: instance.locale,
      kind: "version_restore",
      from: state,
      to: state,
      versionId,
      previousVersionId: instance.current_version_id,
    }], {
      action: "entry.version.restore",
      target: {
        kind: "entry",
        group_id: group.id,
        model_id: group.model_id,
        locale: instance.locale,
      },
      details: { version_id: versionId, restored_from: version.id },
    });
    return await readResult(tx, siteId, group.id);
  });
}
