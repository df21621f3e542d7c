// Shared steps of the transition commands: lock and read the targets, ask decide(), bump the revision.
import { decide } from "../access/decide.ts";
import type { ModelAction } from "../access/permissions.ts";
import { type CommandScope, refusalOf } from "./command.ts";
import {
  type GroupRow,
  type InstanceRow,
  readGroup,
  readInstances,
} from "./store.ts";
import type { LifecycleRefusal } from "./types.ts";

/** The refusal for a group or language that is not on the site. */
export const NOT_FOUND: LifecycleRefusal = { ok: false, code: "not_found" };

/** A locked group, its languages, and the ones a command acts on. */
export interface Loaded {
  group: GroupRow;
  instances: InstanceRow[];
  targets: InstanceRow[];
}

/** Locks the group and reads its languages; `locale` narrows the targets to one. */
export async function loadTargets(
  scope: CommandScope,
  siteId: string,
  groupId: string,
  locale: string | undefined,
): Promise<Loaded | LifecycleRefusal> {
  const group = await readGroup(scope.tx, siteId, groupId, { lock: true });
  if (!group) return NOT_FOUND;
  const instances = await readInstances(scope.tx, siteId, groupId);
  if (locale === undefined) return { group, instances, targets: instances };
  const one = instances.find((i) => i.locale === locale);
  return one ? { group, instances, targets: [one] } : NOT_FOUND;
}

/** Asks `decide()` for the action on the group in the given languages; null when allowed. */
export function permit(
  scope: CommandScope,
  group: GroupRow,
  action: ModelAction,
  languages: readonly InstanceRow[],
): LifecycleRefusal | null {
  const decision = decide(scope.authority, {
    action,
    model: group.model_id,
    owner: group.created_by,
    languages: languages.map((i) => i.locale),
  });
  return decision.ok ? null : refusalOf(decision);
}

/** Bumps the workflow revision (and moves Trash when `trashedAt` is given), conditional on the read revision. */
export async function bumpRevision(
  scope: CommandScope,
  group: GroupRow,
  trashedAt?: Date | null,
) {
  const result = await scope.tx.updateTable("entry_groups")
    .set({
      revision: group.revision + 1,
      updated_at: scope.now,
      ...(trashedAt === undefined ? {} : { trashed_at: trashedAt }),
    })
    .where("site_id", "=", group.site_id).where("id", "=", group.id)
    .where("revision", "=", group.revision)
    .executeTakeFirst();
  // The row lock makes this unreachable; the condition keeps the rule if the lock is ever lost.
  if (result.numUpdatedRows !== 1n) {
    throw new Error(`Group "${group.id}" moved under a lock`);
  }
}

/** The audit target of a command on the group, or on one language. */
export function auditTarget(group: GroupRow, locale: string | undefined) {
  return {
    kind: "entry" as const,
    group_id: group.id,
    model_id: group.model_id,
    locale: locale ?? null,
  };
}
