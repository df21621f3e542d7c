// Tests that truly concurrent commands with the same pins let exactly one through (row lock on the group).
import assert from "node:assert/strict";
import { article, code, openWorld } from "./_testing.ts";
import { publishEntry, saveEntry } from "./lifecycle.ts";
import type { EntryValidator, LifecycleContext } from "./types.ts";

/**
 * A validator (called inside the transaction, after the pins are checked) that holds each
 * command until both have arrived or 300 ms passed. Without the group's row lock both
 * commands pass their pins before either writes; with it the second waits for the first.
 */
function rendezvous(): EntryValidator {
  let arrived = 0;
  let release!: () => void;
  const both = new Promise<void>((resolve) => release = resolve);
  return async function meet() {
    if (++arrived === 2) release();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([both, new Promise((r) => timer = setTimeout(r, 300))]);
    clearTimeout(timer);
    return [];
  };
}

Deno.test("publishEntry() run twice at once with the same pins: exactly one wins, the other is workflow_conflict", async () => {
  const w = await openWorld();
  try {
    const a = await article(w);
    const pins = {
      group_id: a.group_id,
      expected_current_version_id: a.current_version_id,
      expected_workflow_revision: 0,
    };
    const ctx = w.ctx(undefined, { validate: rendezvous() });
    const outcomes = await Promise.all([
      publishEntry(ctx, pins),
      publishEntry(ctx, pins),
    ]);
    assert.deepEqual(outcomes.map(code).sort(), ["ok", "workflow_conflict"]);
    const group = await w.db.selectFrom("entry_groups").select("revision")
      .executeTakeFirstOrThrow();
    assert.equal(group.revision, 1);
    const events = await w.db.selectFrom("workflow_events").select("id")
      .where("kind", "=", "publish").execute();
    assert.equal(events.length, 2);
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() run twice at once with the same pin: exactly one new version, the other is version_conflict", async () => {
  const w = await openWorld();
  try {
    const a = await article(w);
    const en = a.instances.find((i) => i.locale === "en")!;
    const save = (ctx: LifecycleContext, title: string) =>
      saveEntry(ctx, {
        group_id: a.group_id,
        locale: "en",
        fields: { title },
        expected_current_version_id: en.current_version_id,
      });
    for (let round = 0; round < 3; round++) {
      const ctx = w.ctx(undefined, { validate: rendezvous() });
      const outcomes = await Promise.all([save(ctx, "x"), save(ctx, "y")]);
      const codes = outcomes.map(code).sort();
      // After round 0 the pin is stale for both.
      assert.deepEqual(
        codes,
        round === 0
          ? ["ok", "version_conflict"]
          : ["version_conflict", "version_conflict"],
      );
    }
    const versions = await w.db.selectFrom("entry_versions").select("id")
      .where("entry_id", "=", en.entry_id).execute();
    assert.equal(versions.length, 2);
  } finally {
    await w.close();
  }
});
