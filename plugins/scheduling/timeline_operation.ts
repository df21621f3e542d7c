// The `timeline-preview` operation (automation): what will have changed by a release's time,
// for the person of the run's delegation.
import { z } from "zod";
import { readRelease, type Release, releaseItems } from "./core/releases.ts";
import { type BoundRun, type OperationAnswer, refused } from "./operations.ts";
import {
  id,
  ok,
  type ReleaseOperationDeps,
} from "./release_operation_support.ts";

const timelineInput = z.strictObject({ release_id: id });

/**
 * `timeline-preview` (automation): every scheduled release and pending schedule due up to and
 * including the named release's time, in order, with the changes each makes: what the site
 * will have changed by then. Reads only.
 */
export async function timelinePreviewOperation(
  deps: ReleaseOperationDeps,
  run: BoundRun,
): Promise<OperationAnswer> {
  const input = timelineInput.safeParse(run.input);
  if (!input.success) {
    return refused("invalid_request", "Input is { release_id }");
  }
  const target = await readRelease(
    deps.db,
    deps.installationId,
    input.data.release_id,
  );
  if (!target) return refused("not_found", "No such release");
  if (target.state !== "scheduled" || !target.due_at) {
    return refused(
      "release_time_required",
      "The release has no time: schedule it first",
    );
  }
  const until = target.due_at;
  const releases = (await deps.db.selectFrom("releases").selectAll()
    .where("installation_id", "=", deps.installationId)
    .where("state", "=", "scheduled").where("due_at", "<=", until)
    .orderBy("due_at").orderBy("created_at").execute()) as Release[];
  const schedules = await deps.db.selectFrom("schedules").selectAll()
    .where("installation_id", "=", deps.installationId)
    .where("status", "in", ["pending", "retrying"])
    .where("due_at", "<=", until).orderBy("due_at").execute();
  const steps: {
    at: string;
    kind: "release" | "schedule";
    id: string;
    name: string;
    changes: {
      instance_id: string;
      transition: string;
      locale: string | null;
    }[];
  }[] = [];
  // Each step's language scopes, to find two changes of one entry at one instant.
  const scopes: { at: number; step: string; group: string; locale: string }[] =
    [];
  for (const r of releases) {
    const items = await releaseItems(deps.db, r.id);
    for (const i of items) {
      scopes.push({
        at: r.due_at!.getTime(),
        step: r.id,
        group: i.group_id,
        locale: i.locale,
      });
    }
    steps.push({
      at: r.due_at!.toISOString(),
      kind: "release",
      id: r.id,
      name: r.name,
      changes: items.map((i) => ({
        instance_id: i.instance_id,
        transition: `${i.kind}:${i.target_state}`,
        locale: i.locale === "" ? null : i.locale,
      })),
    });
  }
  for (const s of schedules) {
    scopes.push({
      at: s.due_at.getTime(),
      step: s.id,
      group: s.group_id,
      locale: s.locale,
    });
    steps.push({
      at: s.due_at.toISOString(),
      kind: "schedule",
      id: s.id,
      name: s.title,
      changes: [{
        instance_id: s.instance_id,
        transition: `${s.kind}:${s.target_state}`,
        locale: s.locale === "" ? null : s.locale,
      }],
    });
  }
  // Steps at one instant have no order, so two of them changing the same entry and language
  // leave what the site holds afterwards unknowable.
  const clash = scopes.find((a, n) =>
    scopes.slice(n + 1).some((b) =>
      a.at === b.at && a.step !== b.step && a.group === b.group &&
      (a.locale === "" || b.locale === "" || a.locale === b.locale)
    )
  );
  if (clash) {
    return refused(
      "release_time_ambiguous",
      `Two changes of one entry fall on ${
        new Date(clash.at).toISOString()
      }: move one of them`,
    );
  }
  steps.sort((a, b) =>
    a.at.localeCompare(b.at) || a.kind.localeCompare(b.kind)
  );
  return ok([{
    type: "json",
    filename: "timeline.json",
    data: { through: target.id, until: until.toISOString(), steps },
  }]);
}
