// The scheduling plugin's embedded store in tests, on engines lent from a pool: a new engine runs
// initdb and the plugin's migrations (about 1.2 s of a 2-core machine's CPU), an engine put back
// after a test about a tenth of that, and the scheduling tests open one per test.
import type { PGlite } from "@electric-sql/pglite";
import {
  newSchedulerEngine,
  openSchedulerDb,
  type SchedulerDb,
} from "../../plugins/scheduling/core/db.ts";
import { lendEngine } from "../support/db.ts";

/** The pool's key: engines holding the plugin's migrated, empty store. */
const MIGRATED_SCHEDULER = {};

/** An engine holding the plugin's migrated, empty store, and the way to give it back. */
export function lendSchedulerEngine(): Promise<
  { pglite: PGlite; giveBack(): Promise<void> }
> {
  return lendEngine(MIGRATED_SCHEDULER, async () => {
    const pglite = newSchedulerEngine();
    await (await openSchedulerDb({ engine: pglite })).destroy();
    return pglite;
  });
}

/** The plugin's store on a lent engine; `close` ends it and gives the engine back. */
export async function openTestSchedulerDb(): Promise<
  { db: SchedulerDb; close(): Promise<void> }
> {
  const engine = await lendSchedulerEngine();
  const db = await openSchedulerDb({ engine: engine.pglite });
  return {
    db,
    close: async () => {
      await db.destroy();
      await engine.giveBack();
    },
  };
}
