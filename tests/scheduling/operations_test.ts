// The plugin's operations through Stave's Management API, as a script or an agent runs them:
// schedule-draft pins exactly the given version (draft_changed when it moved), answers the
// schedule it made on a repeat and never replaces a live one; schedule-status lists them.
import { equal } from "node:assert/strict";
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

Deno.test("schedule-draft through the Management API pins the given version, repeats its answer, refuses a moved draft", () =>
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
    equal(made.status, "pending");
    equal(made.local_datetime, "2026-11-24T09:00");
    equal(made.pinned_version_id, current);
    equal(made.transition, "publish:published");

    // Same request again (a new run): the same schedule, nothing new.
    const again = await call(path, { instance_id: instances.en, input });
    equal(answer(again).schedule_id, made.schedule_id);
    const rows = await w.scheduler.db.selectFrom("schedules").selectAll()
      .execute();
    equal(rows.length, 1);
    equal(rows[0].requester_email, "admin@schedules.test");

    // Another time for the same change: the live schedule is not replaced.
    const other = await call(path, {
      instance_id: instances.en,
      input: { ...input, due_at: "2026-11-24T09:00:00Z" },
    });
    const refusal = other.body.error as { code: string; plugin: Json };
    equal(refusal.code, "plugin_refused");
    equal(refusal.plugin.code, "schedule_exists");

    // A version that is no longer the draft, a past time, a bad zone: refused by name.
    const cases: [Json, string][] = [
      [{ ...input, version_id: crypto.randomUUID() }, "draft_changed"],
      [{ ...input, due_at: "2026-11-23T09:00:00Z" }, "past_time"],
      [{ ...input, due_at: "2026-11-24T08:00:30Z" }, "invalid_instant"],
    ];
    for (const [bad, code] of cases) {
      const res = await call(path, { instance_id: instances.en, input: bad });
      equal(
        JSON.stringify(res.body).includes(code),
        true,
        `${code}: ${JSON.stringify(res.body)}`,
      );
    }

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
  }));
