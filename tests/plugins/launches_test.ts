// Launch codes and delegations with the example plugin as a real HTTP server: the code's life,
// who may mint one, what a delegation carries, and the authority re-checked on every command
// (spec 1 parts 2.3, 2.4, 5.6 to 5.8; LAU).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import type { Permissions } from "../../core/access/permissions.ts";
import { type PluginWorld, withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

async function outcome(res: Response): Promise<[number, string]> {
  return [res.status, (await res.json()).outcome?.code];
}

/** Mints a launch as the administrator (or `session`) and answers the created launch. */
async function mint(
  w: PluginWorld,
  id: string,
  body: Json,
  session?: string,
): Promise<Json> {
  const res = await w.admin("POST", `/api/plugins/${id}/launch`, body, {
    session,
  });
  equal(res.status, 201);
  return (await res.json()).data;
}

/** A person on the test site holding `permissions`, with a session. */
async function person(w: PluginWorld, permissions: Permissions) {
  const roleId = await insertRole(
    w.services.db,
    w.siteId,
    permissions,
    w.clock,
  );
  const userId = await insertMember(w.services.db, w.siteId, {
    roleId,
    clock: w.clock,
  });
  return { userId, roleId, session: await w.sessionFor(userId) };
}

const exchange = (w: PluginWorld, id: string, code: unknown) =>
  w.plugin.api(id, "/launch/exchange", { body: { code } });

Deno.test("a launch code is one-time, stored only as a digest, and valid 60 seconds (LAU-002, LAU-030)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const manage = { kind: "manage", view: "calendar" };
    const first = await mint(w, id, manage);
    const stored: string[] = [];
    for await (const entry of w.services.kv.list({ prefix: [] })) {
      stored.push(
        JSON.stringify(entry, (_k, v) => typeof v === "bigint" ? String(v) : v),
      );
    }
    ok(stored.length > 0);
    ok(!stored.some((s) => s.includes(String(first.code))), "only a digest");
    equal(
      new Date(String(first.expires_at)).getTime() - w.clock.now().getTime(),
      60_000,
    );
    w.clock.advance(60_000 - 1);
    const used = await exchange(w, id, first.code);
    equal(used.status, 200, "the last millisecond is still valid");
    ok((await used.json()).data.delegation_id);
    deepEqual(
      await outcome(await exchange(w, id, first.code)),
      [400, "invalid_request"],
      "single use",
    );
    const late = await mint(w, id, manage);
    w.clock.advance(60_000);
    deepEqual(await outcome(await exchange(w, id, late.code)), [
      400,
      "invalid_request",
    ], "expired at 60 s");
    // The link itself: opened once, refused the second time and once expired.
    const link = await mint(w, id, manage);
    const open = async (url: unknown) => {
      const page = await fetch(String(url), { redirect: "manual" });
      await page.body?.cancel();
      return page.status;
    };
    equal(await open(link.url), 303);
    equal(await open(link.url), 403, "the link opens once");
    const unused = await mint(w, id, manage);
    w.clock.advance(61_000);
    equal(await open(unused.url), 403, "an unused link expires");
  }));

Deno.test("the launch URL carries svc_launch=svl_… and, for a named view, svc_view (LAU-004)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const view = new URL(
      String((await mint(w, id, { kind: "manage", view: "calendar" })).url),
    );
    match(view.searchParams.get("svc_launch") ?? "", /^svl_[A-Za-z0-9_-]{43}$/);
    equal(view.searchParams.get("svc_view"), "calendar");
    equal(view.origin, w.plugin.origin);
    const bare = new URL(String((await mint(w, id, { kind: "manage" })).url));
    match(bare.searchParams.get("svc_launch") ?? "", /^svl_/);
    equal(bare.searchParams.has("svc_view"), false);
  }));

Deno.test("minting needs a session with access to the site, and a bare manage launch needs site:plugins (LAU-006, LAU-007)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const launch = (body: Json, session: string) =>
      w.admin("POST", `/api/plugins/${id}/launch`, body, { session });
    const bare = { kind: "manage" };
    const calendar = { kind: "manage", view: "calendar" };
    // A person who no longer belongs to the site.
    const elsewhere = await insertRole(
      w.services.db,
      w.siteId,
      { models: {}, system: [] },
      w.clock,
    );
    const stranger = await insertMember(w.services.db, w.siteId, {
      roleId: elsewhere,
      clock: w.clock,
    });
    await w.services.db.deleteFrom("site_members")
      .where("user_id", "=", stranger).execute();
    const outsider = await launch(calendar, await w.sessionFor(stranger));
    // A session is only a session on the sites the person belongs to.
    equal(outsider.status, 401);
    equal((await outsider.json()).error.code, "unauthenticated");
    const noSession = await w.app.request(
      `http://plugins.test/api/plugins/${id}/launch`,
      {
        method: "POST",
        headers: { host: "plugins.test", "content-type": "application/json" },
        body: JSON.stringify(calendar),
      },
    );
    equal(noSession.status, 401);
    await noSession.body?.cancel();

    const reader = await person(w, { models: { "*": ["read"] }, system: [] });
    const refused = await launch(bare, reader.session);
    equal(refused.status, 403);
    equal((await refused.json()).error.code, "missing_permission");
    equal(
      (await launch(calendar, reader.session)).status,
      201,
      "a declared view needs only a granted model they read",
    );
    const keeper = await person(w, {
      models: { "*": ["read"] },
      system: ["site:plugins"],
    });
    equal((await launch(bare, keeper.session)).status, 201);
  }));

Deno.test("a delegation: content action bound to its instance, manage to none; model_ids read or read:own; the action is not a permission (LAU-016, LAU-017, LAU-018)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "Hello" } });
    await w.delegate(id, instances.en);
    const content = w.plugin.delegations.get(id) as Json;
    equal(content.instance_id, instances.en);
    equal(content.group_id, groupId);
    const manageId = await w.delegate(id);
    const manage = w.plugin.delegations.get(id) as Json;
    equal(manage.action, "manage");
    equal(manage.view, "calendar");
    equal(manage.instance_id, null);
    equal(manage.group_id, null);
    deepEqual(manage.model_ids, [{ model_id: w.modelId, access: "read" }]);

    // The manage ("calendar") delegation publishes for a person who may publish.
    const group = await w.services.db.selectFrom("entry_groups")
      .select(["current_version_id", "revision"]).where("id", "=", groupId)
      .executeTakeFirstOrThrow();
    const applied = await w.plugin.api(
      id,
      `/content/${instances.en}/transitions/published`,
      {
        key: "view-publish",
        body: {
          kind: "publish",
          expected_current_version_id: group.current_version_id,
          expected_workflow_revision: group.revision,
          delegation_id: manageId,
        },
      },
    );
    deepEqual(await outcome(applied), [200, "transition_applied"]);

    const own = await person(w, { models: { "*": ["read:own"] }, system: [] });
    await w.delegate(id, undefined, own.session);
    deepEqual((w.plugin.delegations.get(id) as Json).model_ids, [
      { model_id: w.modelId, access: "read:own" },
    ]);
  }));

Deno.test("a delegation does not expire by time: a day later it still acts while the person's authority holds (LAU-020)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "Later" } });
    const delegation = await w.delegate(id, instances.en);
    w.clock.advance(25 * 60 * 60 * 1000);
    const read = await w.plugin.api(
      id,
      `/content/${instances.en}?delegation_id=${delegation}`,
    );
    equal(read.status, 200);
    const wf = (await read.json()).data.workflow;
    const applied = await w.plugin.api(
      id,
      `/content/${instances.en}/transitions/published`,
      {
        key: "a-day-later",
        body: {
          kind: "publish",
          expected_current_version_id: wf.current_version_id,
          expected_workflow_revision: wf.revision,
          delegation_id: delegation,
        },
      },
    );
    deepEqual(await outcome(applied), [200, "transition_applied"]);
    const group = await w.services.db.selectFrom("entry_groups")
      .select("revision").where("id", "=", groupId).executeTakeFirstOrThrow();
    equal(group.revision, wf.revision + 1);
  }));

Deno.test("a transition command without delegation_id is invalid_request and changes nothing (LAU-015)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "Named" } });
    const group = await w.services.db.selectFrom("entry_groups")
      .select(["current_version_id", "revision"]).where("id", "=", groupId)
      .executeTakeFirstOrThrow();
    const res = await w.plugin.api(
      id,
      `/content/${instances.en}/transitions/published`,
      {
        key: "nameless",
        body: {
          kind: "publish",
          expected_current_version_id: group.current_version_id,
          expected_workflow_revision: group.revision,
        },
      },
    );
    deepEqual(await outcome(res), [400, "invalid_request"]);
    const after = await w.services.db.selectFrom("entry_groups")
      .select("revision").where("id", "=", groupId).executeTakeFirstOrThrow();
    equal(after.revision, group.revision);
  }));

/** A publish of `instance` pinned to its group now, through installation `id`. */
async function publish(
  w: PluginWorld,
  id: string,
  instance: string,
  delegation: string,
  key: string,
) {
  const group = await w.services.db.selectFrom("entries")
    .innerJoin("entry_groups", "entry_groups.id", "entries.group_id")
    .select([
      "entry_groups.id",
      "entry_groups.current_version_id",
      "entry_groups.revision",
    ])
    .where("entries.id", "=", instance).executeTakeFirstOrThrow();
  const res = await w.plugin.api(
    id,
    `/content/${instance}/transitions/published`,
    {
      key,
      body: {
        kind: "publish",
        expected_current_version_id: group.current_version_id,
        expected_workflow_revision: group.revision,
        delegation_id: delegation,
      },
    },
  );
  const after = await w.services.db.selectFrom("entry_groups")
    .select("revision").where("id", "=", group.id).executeTakeFirstOrThrow();
  return { res, moved: after.revision !== group.revision };
}

Deno.test("requester_unauthorized, nothing written: deactivated, no publish permission, another group, another installation's delegation (LAU-025, LAU-014)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const can = { models: { "*": ["read", "update", "publish"] }, system: [] };
    const editor = await person(w, can as Permissions);
    const one = await w.entry({ en: { title: "One" } });
    const two = await w.entry({ en: { title: "Two" } });
    const delegation = await w.delegate(id, one.instances.en, editor.session);
    const db = w.services.db;
    const setStatus = (status: "active" | "deactivated") => async () => {
      await db.updateTable("users").set({ status })
        .where("id", "=", editor.userId).execute();
    };
    const setRole = (permissions: unknown) => async () => {
      await db.updateTable("roles").set({
        permissions: JSON.stringify(permissions),
      }).where("id", "=", editor.roleId).execute();
    };
    const nothing = () => Promise.resolve();
    const cases: [string, () => Promise<void>, () => Promise<void>, string][] =
      [
        [
          "deactivated",
          setStatus("deactivated"),
          setStatus("active"),
          one.instances.en,
        ],
        [
          "lost the publish permission",
          setRole({ models: { "*": ["read", "update"] }, system: [] }),
          setRole(can),
          one.instances.en,
        ],
        ["outside the translation group", nothing, nothing, two.instances.en],
      ];
    let n = 0;
    for (const [label, lose, regain, instance] of cases) {
      await lose();
      const { res, moved } = await publish(
        w,
        id,
        instance,
        delegation,
        `k-${++n}`,
      );
      deepEqual(await outcome(res), [403, "requester_unauthorized"], label);
      equal(moved, false, `${label}: nothing written`);
      await regain();
    }
    const regained = await publish(w, id, one.instances.en, delegation, "ok");
    deepEqual(
      await outcome(regained.res),
      [200, "transition_applied"],
      "with its authority back the same delegation acts",
    );

    // Another installation: this one uninstalled, the plugin installed anew.
    const launch = await mint(w, id, { kind: "manage", view: "calendar" });
    await w.admin("POST", `/api/plugins/${id}/uninstall`, {});
    const next = await w.install();
    // LAU-014: a code minted for one installation is not exchanged by another.
    deepEqual(await outcome(await exchange(w, next, launch.code)), [
      400,
      "invalid_request",
    ]);
    const foreign = await publish(w, next, one.instances.en, delegation, "f");
    deepEqual(await outcome(foreign.res), [403, "requester_unauthorized"]);
    equal(foreign.moved, false);
    // The same person's own delegation with this installation is applied.
    const own = await w.delegate(next, two.instances.en, editor.session);
    const applied = await publish(w, next, two.instances.en, own, "own");
    deepEqual(await outcome(applied.res), [200, "transition_applied"]);
  }));
