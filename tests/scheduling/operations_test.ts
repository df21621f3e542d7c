// The plugin's operations through Stave's Management API, as a script or an agent runs them:
// schedule-draft pins exactly the given version (draft_changed when it moved), answers the
// schedule it made on a repeat and never replaces a live one; schedule-status lists them.
import { deepEqual, equal, ok } from "node:assert/strict";
import type { Scope } from "../../core/access/scopes.ts";
import {
  type SchedulingWorld,
  SITE_HOST,
  withSchedulingWorld,
} from "./world.ts";

type Json = Record<string, unknown>;

async function manager(w: SchedulingWorld, scopes: Scope[]) {
  const secret = await w.credential(scopes);
  return async (path: string, body: unknown, key = crypto.randomUUID()) => {
    const res = await w.app.request(
      `http://${SITE_HOST}/api/manage/v1${path}`,
      {
        method: "POST",
        headers: {
          host: SITE_HOST,
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          "idempotency-key": key,
        },
        body: JSON.stringify(body),
      },
    );
    return { status: res.status, body: await res.json() as Json };
  };
}

function answer(res: { body: Json }): Json {
  const result = res.body.result as { blocks?: { data: Json }[] } | undefined;
  return result?.blocks?.[0]?.data ?? (res.body.error as Json) ?? res.body;
}

Deno.test("schedule-draft through the Management API pins the given version, repeats its answer, refuses a moved draft (SOP-011, SOP-012, SOP-013); schedule-status lists live schedules as rows (SOP-009)", () =>
  withSchedulingWorld(async (w) => {
    const call = await manager(w, [
      "content:read",
      "lifecycle:publish",
      "plugins:use",
    ]);
    const { groupId, instances } = await w.entry({
      en: { title: "Agent post" },
    });
    const current = (await w.services.db.selectFrom("entry_groups")
      .select("current_version_id").where("id", "=", groupId)
      .executeTakeFirstOrThrow()).current_version_id!;
    const path =
      `/plugins/${w.installationId}/operations/schedule-draft/invoke`;
    const input = {
      transition: "publish:published",
      due_at: "2026-11-24T08:00:00Z",
      timezone: "Europe/Berlin",
      version_id: current,
    };
    const first = await call(path, { instance_id: instances.en, input });
    equal(first.status, 200, JSON.stringify(first.body));
    equal(first.body.outcome, "completed");
    const made = answer(first);
    // SOP-013: the schedule.json block holds exactly these keys.
    const block = (first.body.result as { blocks: Json[] }).blocks[0];
    equal(block.filename, "schedule.json");
    deepEqual(Object.keys(made).sort(), [
      "due_at",
      "local_datetime",
      "locale",
      "pinned_version_id",
      "schedule_id",
      "status",
      "timezone",
      "transition",
    ]);
    equal(made.due_at, "2026-11-24T08:00:00.000Z");
    equal(made.timezone, "Europe/Berlin");
    equal(made.locale, null);
    equal(made.status, "pending");
    equal(made.local_datetime, "2026-11-24T09:00");
    // SOP-011: pinned to exactly the given version.
    equal(made.pinned_version_id, current);
    equal(made.transition, "publish:published");

    // Same request again (a new run): the same schedule, nothing new.
    const again = await call(path, { instance_id: instances.en, input });
    equal(answer(again).schedule_id, made.schedule_id);
    const rows = await w.scheduler.db.selectFrom("schedules").selectAll()
      .execute();
    // SOP-012: a repeat answers the same schedule; the caller's delegation and email are kept.
    equal(rows.length, 1);
    equal(rows[0].pinned_version_id, current);
    equal(rows[0].requester_email, "admin@schedules.test");
    const delegation = await w.services.db.selectFrom("plugin_delegations")
      .selectAll().where("id", "=", rows[0].delegation_id)
      .executeTakeFirstOrThrow();
    equal(delegation.installation_id, w.installationId);
    equal(delegation.source, "invocation");
    equal(delegation.user_id, w.adminId);
    equal(delegation.instance_id, instances.en);

    // SOP-009: schedule-status answers the live schedule as a rows block and writes nothing.
    const listed = await call(
      `/plugins/${w.installationId}/operations/schedule-status/invoke`,
      { instance_id: instances.en, input: {} },
    );
    equal(listed.status, 200, JSON.stringify(listed.body));
    const rowsBlock = (listed.body.result as { blocks: Json[] }).blocks[0];
    equal(rowsBlock.type, "rows");
    deepEqual(rowsBlock.rows, [{
      change: "Publish, all languages",
      due_at: "2026-11-24T08:00:00.000Z",
      local: "2026-11-24 09:00 Europe/Berlin",
      status: "pending",
    }]);
    deepEqual(
      await w.scheduler.db.selectFrom("schedules").selectAll().execute(),
      rows,
    );

    // SOP-012: another time for the same change: the live schedule is not replaced.
    const other = await call(path, {
      instance_id: instances.en,
      input: { ...input, due_at: "2026-11-24T09:00:00Z" },
    });
    const refusal = other.body.error as { code: string; plugin: Json };
    equal(refusal.code, "plugin_refused");
    equal(refusal.plugin.code, "schedule_exists");
    deepEqual(
      (await w.scheduler.db.selectFrom("schedules").select("status").execute())
        .map((r) => r.status),
      ["pending"],
    );

    // SOP-012: a version that is no longer the draft is refused draft_changed; a past time and
    // an instant off the minute are refused by name too.
    const cases: [Json, string][] = [
      [{ ...input, version_id: crypto.randomUUID() }, "draft_changed"],
      [{ ...input, due_at: "2026-11-23T09:00:00Z" }, "past_time"],
      [{ ...input, due_at: "2026-11-24T08:00:30Z" }, "invalid_instant"],
    ];
    for (const [bad, code] of cases) {
      const res = await call(path, { instance_id: instances.en, input: bad });
      equal(
        (res.body.error as { plugin?: Json })?.plugin?.code,
        code,
        `${code}: ${JSON.stringify(res.body)}`,
      );
    }
    equal(
      (await w.scheduler.db.selectFrom("schedules").selectAll().execute())
        .length,
      1,
    );

    // The tick publishes it at its time.
    w.clock.advance(22 * 60 * 60_000);
    const ticked = await w.scheduler.tick();
    const after = await w.scheduler.db.selectFrom("schedules").selectAll()
      .executeTakeFirstOrThrow();
    equal(ticked.completed, 1, JSON.stringify(after));
    equal((await w.states(groupId)).en, "published");

    const status = await call(
      `/plugins/${w.installationId}/operations/schedule-status/invoke`,
      { instance_id: instances.en, input: {} },
    );
    equal(status.body.outcome, "completed", JSON.stringify(status.body));
    // SOP-009: a completed schedule is no longer listed.
    deepEqual(
      (status.body.result as { blocks: { rows: unknown[] }[] }).blocks[0].rows,
      [],
    );
  }));

Deno.test("schedule-draft is offered only while the grant holds content:read, workflow:read, workflow:publish and workflow:locale (SOP-014); site operations need site:plugins (SOP-020)", () =>
  withSchedulingWorld(async (w) => {
    const secret = await w.credential([
      "content:read",
      "lifecycle:publish",
      "plugins:use",
    ]);
    const offered = async () => {
      const res = await w.app.request(
        `http://${SITE_HOST}/api/manage/v1/plugins/operations`,
        { headers: { host: SITE_HOST, authorization: `Bearer ${secret}` } },
      );
      equal(res.status, 200);
      return ((await res.json()).data as { id: string }[]).map((o) => o.id);
    };
    const grant = async (capabilities: string[]) =>
      await w.services.db.updateTable("plugin_installations")
        .set({ grant_capabilities: JSON.stringify(capabilities) })
        .where("id", "=", w.installationId).execute();
    const full = [
      "content:read",
      "workflow:read",
      "workflow:publish",
      "workflow:unpublish",
      "workflow:locale",
      "workflow:release",
    ];
    equal((await offered()).includes("schedule-draft"), true);
    for (
      const missing of ["workflow:read", "workflow:publish", "workflow:locale"]
    ) {
      await grant(full.filter((c) => c !== missing));
      const ids = await offered();
      equal(ids.includes("schedule-draft"), false, missing);
      equal(ids.includes("schedule-status"), true, missing);
    }
    await grant(full);
    equal((await offered()).includes("schedule-draft"), true);

    // SOP-020: the administrator's role without site:plugins: no site operation is offered
    // or runs; entry operations still are.
    const member = await w.services.db.selectFrom("site_members")
      .select("role_id").where("user_id", "=", w.adminId)
      .where("site_id", "=", w.siteId).executeTakeFirstOrThrow();
    const role = await w.services.db.selectFrom("roles").select("permissions")
      .where("id", "=", member.role_id).executeTakeFirstOrThrow();
    const permissions = (typeof role.permissions === "string"
      ? JSON.parse(role.permissions)
      : role.permissions) as { system: string[] };
    const runReleases = async () =>
      await (await manager(w, ["content:read", "plugins:use"]))(
        `/plugins/${w.installationId}/operations/releases/invoke`,
        { input: {} },
      );
    const allowed = await runReleases();
    equal(allowed.status, 200, JSON.stringify(allowed.body));
    // The run is bound to a manage delegation of the caller (no entry).
    const bound = await w.services.db.selectFrom("plugin_delegations")
      .selectAll().where("installation_id", "=", w.installationId)
      .where("action", "=", "releases").executeTakeFirstOrThrow();
    equal(bound.user_id, w.adminId);
    equal(bound.instance_id, null);
    ok(permissions.system.includes("site:plugins"));
    equal((await offered()).includes("releases"), true);
    await w.services.db.updateTable("roles").set({
      permissions: JSON.stringify({
        ...permissions,
        system: permissions.system.filter((p) =>
          p !== "site:plugins"
        ),
      }),
    }).where("id", "=", member.role_id).execute();
    const ids = await offered();
    equal(ids.includes("releases"), false);
    equal(ids.includes("schedule-status"), true);
    const refused = await runReleases();
    equal(refused.status, 403, JSON.stringify(refused.body));
    equal((refused.body.error as Json).code, "missing_permission");
  }));
