// A crash between writing the bytes and the row leaves only an orphan object, which daily maintenance removes.
import { deepEqual } from "node:assert/strict";
import { runDailyMaintenance } from "../../core/maintenance.ts";
import { png, withMediaApp } from "./support.ts";

Deno.test("runDailyMaintenance() removes objects no row names once past the grace hour, never a named one or another database's", () =>
  withMediaApp(async (t) => {
    const item = await (await t.send("POST", "/media", {
      file: { bytes: await png(1), name: "a.png" },
    })).json();
    // What a crash after the put and before the commit leaves behind.
    const orphan = `sites/${t.siteId}/${crypto.randomUUID()}.png`;
    await t.storage.put(orphan, await png(2), "image/png");
    const foreign = `sites/${crypto.randomUUID()}/${crypto.randomUUID()}.png`;
    await t.storage.put(foreign, await png(3), "image/png");
    const named = `sites/${t.siteId}/${item.object_id}.png`;
    // Within the grace hour an object may be an upload whose row is being written: kept.
    t.clock.set(new Date(Date.now() + 30 * 60 * 1000));
    let done = await runDailyMaintenance(t.services);
    deepEqual(done.mediaOrphans, 0);
    t.clock.set(new Date(Date.now() + 2 * 60 * 60 * 1000));
    done = await runDailyMaintenance(t.services);
    deepEqual(done.mediaOrphans, 1);
    deepEqual((await t.keys()).sort(), [foreign, named].sort());
    deepEqual(
      await t.services.db.selectFrom("media_files").select("id").execute(),
      [{ id: item.id }],
    );
  }));
