// What every release operation shares: its dependencies, the id and transition inputs, and
// how a release and a refusal become result blocks.
import { z } from "zod";
import type { PluginClient } from "../sdk/mod.ts";
import type { SchedulerDb } from "./core/db.ts";
import type { Release, ReleaseItem, ReleaseRefusal } from "./core/releases.ts";
import { type OperationAnswer, refused } from "./operations.ts";

/** What the release operations reach. */
export interface ReleaseOperationDeps {
  db: SchedulerDb;
  kv: Deno.Kv;
  client: PluginClient;
  installationId: string;
  now: () => number;
  leaseMs: number;
}

export const id = z.string().max(64);
export const transition = z.enum(["publish:published", "unpublish:draft"]);

export function refusedBy(r: ReleaseRefusal): OperationAnswer {
  return refused(r.code, r.message);
}

export function ok(blocks: unknown[]): OperationAnswer {
  return { status: "ok", blocks };
}

/** A release as its JSON file shows it; items only those the person may read. */
export function releaseJson(release: Release, items?: ReleaseItem[]) {
  const receipt = typeof release.receipt === "string"
    ? JSON.parse(release.receipt)
    : release.receipt;
  return {
    release_id: release.id,
    name: release.name,
    state: release.state,
    due_at: release.due_at?.toISOString() ?? null,
    timezone: release.timezone,
    local_datetime: release.local_datetime,
    attempt: release.attempt,
    last_code: release.last_code,
    receipt: receipt ?? null,
    ...(items
      ? {
        items: items.map((i) => ({
          item_id: i.id,
          instance_id: i.instance_id,
          title: i.title,
          transition: `${i.kind}:${i.target_state}`,
          locale: i.locale === "" ? null : i.locale,
          version_mode: i.version_mode,
          status: i.status,
          // Spec 1 part 2's release item: the attempt that sent it and what it published.
          attempt: i.attempt,
          published_version_id: i.published_version_id,
          last_code: i.last_code,
        })),
      }
      : {}),
  };
}
