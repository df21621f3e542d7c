// Schedule rows for tests that write the plugin's store directly: every column filled, due at
// `due`, for one installation and delegation.
import type { Schedule } from "./schedules.ts";

/** A pending publish schedule of installation `inst-1`, due at `due`, with `fields` over it. */
export function scheduleRow(
  id: string,
  due: Date,
  fields: Partial<Schedule> = {},
): Schedule {
  return {
    id,
    installation_id: "inst-1",
    instance_id: crypto.randomUUID(),
    group_id: crypto.randomUUID(),
    model_id: "m-1",
    title: "T",
    kind: "publish",
    target_state: "published",
    pinned_version_id: "v-1",
    expected_workflow_revision: 1,
    locale: "",
    local_datetime: "2026-11-23T10:00",
    timezone: "UTC",
    fold: "later",
    due_at: due,
    status: "pending",
    attempts: 0,
    last_code: null,
    last_message: null,
    next_attempt_at: due,
    revision: 1,
    delegation_id: "d-1",
    requester_email: "a@b.test",
    created_at: due,
    updated_at: due,
    ...fields,
  };
}
