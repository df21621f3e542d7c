// Test fixtures for the entry tests: a migrated database with a site, languages, people and roles.
import type { Actor, PluginActor } from "../access/actor.ts";
import { insertMember, insertRole, insertSite } from "../access/_testing.ts";
import { editorPermissions } from "../access/default_roles.ts";
import type { Permissions } from "../access/permissions.ts";
import { ManualClock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { saveEntry } from "./save.ts";
import type { LifecycleContext, LifecycleResult } from "./types.ts";

/** One test's world: a site with `en`, `de` and `fr`, and an editor. */
export interface World {
  db: Db;
  clock: ManualClock;
  siteId: string;
  editorId: string;
  /** A lifecycle context for `actor` (the editor by default), with overrides. */
  ctx(actor?: Actor, extra?: Partial<LifecycleContext>): LifecycleContext;
  /** A new active member holding `permissions`, as a person actor. */
  person(permissions: Permissions): Promise<Actor>;
  /** A plugin installation acting for `userId`. */
  plugin(userId: string): PluginActor;
  /** Row counts of every entry table, to prove a refusal wrote nothing. */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** Opens a fresh world on the engine of this run. */
export async function openWorld(): Promise<World> {
  const test = await openTestDb();
  const { db } = test;
  const clock = new ManualClock("2026-03-01T10:00:00.000Z");
  const siteId = await insertSite(db, clock);
  await db.insertInto("site_languages").values(
    ["en", "de", "fr"].map((code, position) => ({
      site_id: siteId,
      code,
      position,
      is_default: position === 0,
    })),
  ).execute();
  async function member(permissions: Permissions): Promise<string> {
    const roleId = await insertRole(db, siteId, permissions, clock);
    return await insertMember(db, siteId, { roleId, clock });
  }
  const editorId = await member(editorPermissions());
  return {
    db,
    clock,
    siteId,
    editorId,
    ctx: (actor, extra) => ({
      db,
      clock,
      siteId,
      actor: actor ?? { kind: "person", userId: editorId },
      ...extra,
    }),
    person: async (permissions) => ({
      kind: "person",
      userId: await member(permissions),
    }),
    plugin: (userId) => ({
      kind: "plugin",
      installationId: "0f0f0f0f-0000-4000-8000-000000000001",
      name: "Scheduler",
      version: "1.1.0",
      delegatedUserId: userId,
      delegatedEmail: `${userId}@example.test`,
    }),
    async counts() {
      const tables = [
        "entry_groups",
        "entries",
        "entry_versions",
        "workflow_events",
        "audit_entries",
      ] as const;
      const out: Record<string, number> = {};
      for (const table of tables) {
        const row = await db.selectFrom(table).select((eb) =>
          eb.fn.countAll<number>().as("n")
        )
          .executeTakeFirstOrThrow();
        out[table] = Number(row.n);
      }
      return out;
    },
    close: () => test.close(),
  };
}

/** Asserts an outcome succeeded and narrows it. */
export function ok<T extends { ok: boolean }>(
  outcome: T,
): Extract<T, { ok: true }> {
  if (!outcome.ok) {
    throw new Error(`Expected success, got ${JSON.stringify(outcome)}`);
  }
  return outcome as Extract<T, { ok: true }>;
}

/** An article in `en` and `de`, saved by the editor. */
export async function article(
  w: World,
  ctx: LifecycleContext = w.ctx(),
): Promise<LifecycleResult> {
  const en = ok(
    await saveEntry(ctx, {
      model_id: "article",
      locale: "en",
      slug: "a",
      fields: { title: "A" },
      expected_current_version_id: null,
    }),
  );
  return ok(
    await saveEntry(ctx, {
      group_id: en.group_id,
      locale: "de",
      slug: "a-de",
      fields: { title: "A de" },
      expected_current_version_id: null,
    }),
  );
}

/** The code of an outcome, or "ok". */
export function code(outcome: { ok: boolean; code?: string }): string {
  return outcome.ok ? "ok" : outcome.code!;
}
