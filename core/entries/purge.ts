// Purge: permanently deletes a trashed group with its languages, versions, links, claims and workflow events.
import { decide } from "../access/decide.ts";
import { refusalOf, runCommand } from "./command.ts";
import { auditTarget, loadTargets } from "./targets.ts";
import type {
  LifecycleContext,
  LifecycleRefusal,
  LifecycleResult,
} from "./types.ts";

/** A purge, optionally pinned to the workflow revision the caller read. */
export interface PurgeOptions {
  group_id: string;
  /** When given, a different revision is refused `workflow_conflict`. */
  expected_workflow_revision?: number;
}

/** What a purge answers: what was deleted for good. */
export interface PurgeResult {
  ok: true;
  group_id: string;
  model_id: string;
  purged: {
    languages: string[];
    versions: number;
    /** Links from this entry and links to it, both removed. */
    links: number;
  };
}

/**
 * Deletes a group that is in Trash for good (`POST /entries/{id}/trash/purge`, ENT-015):
 * its language instances, every version, relation links from and to it, unique and
 * single-entry claims, and its workflow events (they describe an item that no longer
 * exists; the audit entry `entry.purge` written in the same transaction keeps the record).
 * Needs `delete` on the model in every language (for credentials the `content:purge`
 * scope). Refusals: `not_found`, `missing_permission`, `locale_denied`,
 * `workflow_conflict`, `transition_unavailable` (not in Trash).
 */
export async function purgeEntry(
  ctx: LifecycleContext,
  options: PurgeOptions,
): Promise<PurgeResult | LifecycleRefusal> {
  let purged: PurgeResult | undefined;
  const outcome = await runCommand(ctx, async (scope) => {
    const { siteId } = ctx;
    const loaded = await loadTargets(
      scope,
      siteId,
      options.group_id,
      undefined,
    );
    if ("ok" in loaded) return loaded;
    const { group, instances } = loaded;
    const decision = decide(scope.authority, {
      action: "entries.purge",
      model: group.model_id,
      owner: group.created_by,
      languages: instances.map((i) => i.locale),
    });
    if (!decision.ok) return refusalOf(decision);
    const pin = options.expected_workflow_revision;
    if (pin !== undefined && pin !== group.revision) {
      return { ok: false, code: "workflow_conflict" };
    }
    if (group.trashed_at === null) {
      return { ok: false, code: "transition_unavailable" };
    }
    const versions = await scope.tx.selectFrom("entry_versions")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("site_id", "=", siteId).where("group_id", "=", group.id)
      .executeTakeFirstOrThrow();
    const links = await scope.tx.deleteFrom("entry_links")
      .where("site_id", "=", siteId)
      .where((eb) =>
        eb.or([
          eb("source_group_id", "=", group.id),
          eb("target_group_id", "=", group.id),
        ])
      ).executeTakeFirst();
    await scope.tx.deleteFrom("entry_unique_claims")
      .where("site_id", "=", siteId).where("group_id", "=", group.id)
      .execute();
    await scope.tx.deleteFrom("entry_single_claims")
      .where("site_id", "=", siteId).where("group_id", "=", group.id)
      .execute();
    // Languages, versions and workflow events go with the group (foreign keys cascade).
    await scope.tx.deleteFrom("entry_groups")
      .where("site_id", "=", siteId).where("id", "=", group.id).execute();
    purged = {
      ok: true,
      group_id: group.id,
      model_id: group.model_id,
      purged: {
        languages: instances.map((i) => i.locale),
        versions: Number(versions.n),
        links: Number(links.numDeletedRows),
      },
    };
    await scope.record([], {
      action: "entry.purge",
      target: auditTarget(group, undefined),
      details: {
        revision: group.revision,
        slugs: Object.fromEntries(instances.map((i) => [i.locale, i.slug])),
        ...purged.purged,
      },
    });
    return {
      ok: true,
      group_id: group.id,
      model_id: group.model_id,
      state: "trashed",
      revision: group.revision,
      current_version_id: null,
      published_version_id: null,
      instances: [],
    } satisfies LifecycleResult;
  });
  return outcome.ok ? purged! : outcome;
}
