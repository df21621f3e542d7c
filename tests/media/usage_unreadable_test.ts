// Removing a file whose usage cannot be read is refused 503 media_usage_unreadable and keeps the
// file and its bytes, never deleting it blind nor answering 500 (MED-026).
import { deepEqual, equal } from "node:assert/strict";
import { sql } from "kysely";
import { refusal } from "../manage/helpers.ts";
import { png, withMediaApp } from "./support.ts";

Deno.test("MED-026: remove-media answers 503 media_usage_unreadable when the entries using the file cannot be read, and removes nothing", () =>
  withMediaApp(async (t) => {
    const item = await (await t.send("POST", "/media", {
      file: { bytes: await png(3), name: "kept.png" },
    })).json();
    const keys = await t.keys();
    const remove = () =>
      t.call("POST", `/media/${item.id}/remove`, {
        secret: t.media,
        key: crypto.randomUUID(),
      });
    // A real failure of the usage read: the versions it scans are not there to read.
    await sql`alter table entry_versions rename to entry_versions_away`
      .execute(t.services.db);
    let refused: Response;
    try {
      refused = await remove();
    } finally {
      await sql`alter table entry_versions_away rename to entry_versions`
        .execute(t.services.db);
    }
    equal(refused.status, 503);
    equal((await refusal(refused)).code, "media_usage_unreadable");
    deepEqual(await t.keys(), keys);
    const still = await t.call("GET", `/media/${item.id}`, { secret: t.media });
    equal(still.status, 200);
    await still.body?.cancel();
    const removed = await remove();
    equal(removed.status, 200);
    equal((await removed.json()).id, item.id);
  }));
