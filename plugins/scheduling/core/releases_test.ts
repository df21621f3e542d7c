// Release rules that need no running Stave: the 25-item cap at its edge, overlapping language
// scopes, a locked release, `release_changed` when the item set moves during the readiness
// checks, and which states a stop applies to (spec 1 parts 3.3 and 4.5 rule 7; REL rows).
import { deepEqual, equal } from "node:assert/strict";
import { PluginClient } from "../../sdk/mod.ts";
import type { SchedulerDb } from "./db.ts";
import { openTestSchedulerDb } from "../../../tests/scheduling/engines.ts";
import {
  addReleaseItem,
  cancelRelease,
  createRelease,
  RELEASE_MAX_ITEMS,
  releaseItems,
  removeReleaseItem,
  retryRecovers,
  runRelease,
  stopRelease,
} from "./releases.ts";
import type { DelegatedItem } from "./schedules.ts";

const NOW = new Date("2026-11-23T10:00:00Z");

function item(n: number, languages = ["en"]): DelegatedItem {
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const offered = [{ kind: "publish", to: "published" }];
  return {
    instance_id: id,
    group_id: id,
    model_id: "model-1",
    slug: `item-${n}`,
    fields: { title: `Item ${n}` },
    languages: languages.map((l) => ({ instance_id: id, locale: l })),
    workflow: {
      revision: 1,
      current_version_id: id,
      published_version_id: null,
      transitions: offered,
      locales: Object.fromEntries(languages.map((l) => [l, {
        current_version_id: id,
        published_version_id: null,
        transitions: offered,
      }])),
    },
  };
}

async function world(): Promise<
  { db: SchedulerDb; releaseId: string; close(): Promise<void> }
> {
  const { db, close } = await openTestSchedulerDb();
  await db.insertInto("installations").values({
    id: "inst-1",
    site_id: "site-1",
    service_url: "https://cms.example.com",
    token_sealed: "x",
    created_at: NOW,
    updated_at: NOW,
  }).execute();
  const made = await createRelease(db, {
    installationId: "inst-1",
    name: "Spring",
    email: "editor@example.com",
    now: NOW,
  });
  if (!made.ok) throw new Error(made.message);
  return { db, releaseId: made.release.id, close };
}

function adding(
  db: SchedulerDb,
  releaseId: string,
  it: DelegatedItem,
  locale = "",
) {
  return addReleaseItem(db, {
    installationId: "inst-1",
    release: { id: releaseId },
    item: it,
    kind: "publish",
    locale,
    versionMode: "ordinary",
    mayChooseLocale: true,
    email: "editor@example.com",
    now: NOW,
  });
}

Deno.test("a release takes its 25th item and refuses the 26th with release_full", async () => {
  const { db, releaseId, close } = await world();
  try {
    for (let n = 1; n <= RELEASE_MAX_ITEMS; n++) {
      const added = await adding(db, releaseId, item(n));
      equal(added.ok, true, `item ${n}`);
    }
    const full = await adding(db, releaseId, item(26));
    equal(full.ok ? "ok" : full.code, "release_full");
    equal((await releaseItems(db, releaseId)).length, 25);
  } finally {
    await close();
  }
});

Deno.test("languages of one entry coexist; the same language twice or a whole-group item overlaps (REL-018)", async () => {
  const { db, releaseId, close } = await world();
  try {
    const both = item(1, ["en", "de"]);
    equal((await adding(db, releaseId, both, "en")).ok, true);
    equal((await adding(db, releaseId, both, "de")).ok, true);
    const again = await adding(db, releaseId, both, "de");
    equal(again.ok ? "ok" : again.code, "already_in_release");
    const whole = await adding(db, releaseId, both, "");
    equal(whole.ok ? "ok" : whole.code, "already_in_release");
    const unknown = await adding(db, releaseId, item(2), "fr");
    equal(unknown.ok ? "ok" : unknown.code, "locale_unavailable");
    // REL-002: a release name has at most 80 characters; the 81st refuses and stores nothing.
    const name = await createRelease(db, {
      installationId: "inst-1",
      name: "x".repeat(81),
      email: "e@example.com",
      now: NOW,
    });
    equal(name.ok ? "ok" : name.code, "invalid_request");
    const releases = await db.selectFrom("releases").select("name").execute();
    deepEqual(releases.map((r) => r.name), ["Spring"]);
    const eighty = await createRelease(db, {
      installationId: "inst-1",
      name: "x".repeat(80),
      email: "e@example.com",
      now: NOW,
    });
    equal(eighty.ok, true);
  } finally {
    await close();
  }
});

Deno.test("an item added while the readiness checks run makes the start refuse release_changed, sending nothing (REL-016)", async () => {
  const { db, releaseId, close } = await world();
  try {
    await adding(db, releaseId, item(1));
    const sent: string[] = [];
    const client = new PluginClient({
      serviceUrl: "https://cms.example.com",
      readToken: () => `svp_${"a".repeat(43)}`,
      fetch: async (input) => {
        const url = String(input);
        sent.push(new URL(url).pathname);
        if (url.includes("/content/")) {
          // Someone adds an entry while the run reads the first one.
          await adding(db, releaseId, item(sent.length + 1));
          return Response.json({ data: item(1) });
        }
        return Response.json({
          outcome: { code: "release_applied", message: "ok", retry: false },
        });
      },
    });
    const run = await runRelease(
      {
        db,
        client,
        installationId: "inst-1",
        now: () => NOW.getTime(),
      },
      releaseId,
      {
        mode: "run_now",
        delegationId: "deleg-1",
        email: "editor@example.com",
      },
    );
    equal(run.ok ? run.state : run.code, "release_changed");
    deepEqual(sent.filter((p) => p.endsWith("/releases/commit")), []);
    const row = await db.selectFrom("releases").selectAll()
      .where("id", "=", releaseId).executeTakeFirstOrThrow();
    equal(row.state, "draft");
  } finally {
    await close();
  }
});

Deno.test("items are added and removed only while a release is a draft or scheduled: a running one refuses release_locked (REL-015)", async () => {
  const { db, releaseId, close } = await world();
  try {
    const first = await adding(db, releaseId, item(1));
    if (!first.ok) throw new Error(first.message);
    await db.updateTable("releases").set({ state: "scheduled" })
      .where("id", "=", releaseId).execute();
    equal((await adding(db, releaseId, item(2))).ok, true, "scheduled");
    await db.updateTable("releases").set({ state: "running" })
      .where("id", "=", releaseId).execute();
    const added = await adding(db, releaseId, item(3));
    equal(added.ok ? "ok" : added.code, "release_locked");
    const removed = await removeReleaseItem(db, {
      installationId: "inst-1",
      releaseId,
      itemId: first.item.id,
      groupId: null,
      now: NOW,
    });
    equal(removed.ok ? "ok" : removed.code, "release_locked");
    deepEqual(
      (await releaseItems(db, releaseId)).map((i) => i.title),
      ["Item 1", "Item 2"],
    );
  } finally {
    await close();
  }
});

Deno.test("an item whose change is not offered to the person now is refused transition_unavailable (REL-017)", async () => {
  const { db, releaseId, close } = await world();
  try {
    // Item 1 offers only a publish: its unpublish is not offered.
    const added = await addReleaseItem(db, {
      installationId: "inst-1",
      release: { id: releaseId },
      item: item(1),
      kind: "unpublish",
      locale: "",
      versionMode: "ordinary",
      mayChooseLocale: true,
      email: "editor@example.com",
      now: NOW,
    });
    equal(added.ok ? "ok" : added.code, "transition_unavailable");
    const oneLanguage = await adding(db, releaseId, {
      ...item(2),
      workflow: {
        ...item(2).workflow!,
        locales: {
          en: { ...item(2).workflow!.locales.en, transitions: [] },
        },
      },
    }, "en");
    equal(
      oneLanguage.ok ? "ok" : oneLanguage.code,
      "transition_unavailable",
    );
    deepEqual(await releaseItems(db, releaseId), []);
  } finally {
    await close();
  }
});

Deno.test("stopRelease() stops only a running release; cancelRelease() unschedules a scheduled one and stops a running one (REL-006, REL-013)", async () => {
  const { db, releaseId, close } = await world();
  try {
    await adding(db, releaseId, item(1));
    const input = {
      installationId: "inst-1",
      releaseId,
      email: "editor@example.com",
      now: NOW,
    };
    const state = async () => (await db.selectFrom("releases").selectAll()
      .where("id", "=", releaseId).executeTakeFirstOrThrow());
    const draft = await stopRelease(db, input);
    equal(draft.ok ? "ok" : draft.code, "release_locked");
    await db.updateTable("releases").set({ state: "scheduled" })
      .where("id", "=", releaseId).execute();
    const scheduled = await stopRelease(db, input);
    equal(scheduled.ok ? "ok" : scheduled.code, "release_locked");
    equal((await state()).state, "scheduled");
    const unscheduled = await cancelRelease(db, input);
    deepEqual(
      unscheduled.ok ? [unscheduled.stopped, unscheduled.release.state] : [],
      [false, "draft"],
    );

    await db.updateTable("releases").set({
      state: "running",
      attempt: 1,
      command_key: `rel:${releaseId}:a1`,
    }).where("id", "=", releaseId).execute();
    const stopped = await cancelRelease(db, input);
    deepEqual(
      stopped.ok ? [stopped.stopped, stopped.release.state] : [],
      [true, "cancelled"],
    );
    const row = await state();
    equal(row.last_code, "release_stopped");
    deepEqual(
      typeof row.receipt === "string" ? JSON.parse(row.receipt) : row.receipt,
      {
        kind: "stopped",
        at: NOW.toISOString(),
        by: "editor@example.com",
        key: `rel:${releaseId}:a1`,
        outcome: "unknown",
      },
    );
    deepEqual(
      (await releaseItems(db, releaseId)).map((i) => [i.status, i.last_code]),
      [["cancelled", "release_stopped"]],
    );
    // Nobody knows yet whether a command went out: Retry repeats it under its key first.
    equal(retryRecovers(row), true);
    const again = await stopRelease(db, input);
    equal(again.ok ? "ok" : again.code, "release_locked");
    const missing = await stopRelease(db, { ...input, releaseId: "nope" });
    equal(missing.ok ? "ok" : missing.code, "not_found");
  } finally {
    await close();
  }
});
