// Releases and addresses through the deploy service process: prove, switch, go back within seven
// days, remove the previous host, and the refusals of each (DLV-001 to DLV-011).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { setMemberPermissions, setupAdmin } from "../admin/helpers.ts";
import { exampleUpload } from "./example.ts";
import {
  DEPLOY_KEY,
  jsonCaller,
  startBuildService,
  templateEnv,
} from "./support.ts";

Deno.test("DLV-001 DLV-002 DLV-005 DLV-006 DLV-007 DLV-008 DLV-009 DLV-010 DLV-011: prove, switch, go back within seven days, remove the previous host", async () => {
  const service = await startBuildService();
  const artifacts = await Deno.makeTempDir({ prefix: "stave-artifacts-" });
  const { t, siteId, userId } = await setupAdmin({
    env: templateEnv(service.origin, artifacts),
  });
  try {
    await setMemberPermissions(
      t.services.db,
      userId,
      administratorPermissions(),
    );
    let call = await jsonCaller(t, userId);
    const base = `/api/sites/${siteId}/managed-renderer`;
    const active = async (host: string) => {
      const res = await fetch(
        `${service.origin}/releases/active?host=${host}`,
        {
          headers: { authorization: `Bearer ${DEPLOY_KEY}` },
        },
      );
      return res.status === 200 ? (await res.json()).number as number : null;
    };
    // DLV-006: a new site has no production release and no address.
    const empty = await (await call(`${base}/releases`)).json();
    deepEqual(empty.data, {
      releases: [],
      active_number: null,
      address: { active: null, previous: null, rollback_until: null },
    });
    equal(
      (await call(
        `/api/sites/${crypto.randomUUID()}/managed-renderer/releases`,
      )).status,
      404,
    );
    const none = await call(`${base}/address/prove`, {
      body: { host: "www.bakery.example" },
    });
    equal(none.status, 409);
    equal((await none.json()).error.code, "no_accepted_template");

    const made = await (await call("/api/managed-templates/candidates", {
      body: await exampleUpload(),
    })).json();
    equal(
      (await call(`/api/managed-templates/candidates/${made.data.id}/accept`, {
        body: { observed_acceptance: 0 },
      })).status,
      200,
    );
    equal(
      (await call(`${base}/address/prove`, { body: { host: "not a host" } }))
        .status,
      400,
    );

    // DLV-007: proving prepares a release pinned to the host; nothing serves it yet.
    const proved = await call(`${base}/address/prove`, {
      body: { host: "WWW.Bakery.example" },
    });
    equal(proved.status, 201);
    const first = (await proved.json()).data;
    equal(first.state, "proven");
    // DLV-005: the origin comes from the host proven, never from the request's Host header.
    equal(first.origin, "https://www.bakery.example");
    equal(await active("www.bakery.example"), null);

    // DLV-008: switching needs the active number the page saw (none yet).
    const stale = await call(
      `${base}/releases/${first.number}/switch-address`,
      { body: { observed_active_number: 7 } },
    );
    equal(stale.status, 409);
    equal((await stale.json()).error.code, "active_release_changed");
    const switched = await call(
      `${base}/releases/${first.number}/switch-address`,
      { body: { observed_active_number: null } },
    );
    equal(switched.status, 200);
    const afterFirst = (await switched.json()).data;
    equal(afterFirst.active_number, 1);
    equal(afterFirst.address.active, "www.bakery.example");
    equal(await active("www.bakery.example"), 1);

    // A second host: proven, then switched; the first host is kept for seven days.
    const second = (await (await call(`${base}/address/prove`, {
      body: { host: "bakery.example" },
    })).json()).data;
    equal(second.number, 2);
    const moved = await (await call(`${base}/releases/2/switch-address`, {
      body: { observed_active_number: 1 },
    })).json();
    equal(moved.data.address.active, "bakery.example");
    equal(moved.data.address.previous, "www.bakery.example");
    const deadline = new Date(t.clock.now().getTime() + 7 * 24 * 3600 * 1000)
      .toISOString();
    equal(moved.data.address.rollback_until, deadline);
    // DLV-001: the previous release is retired, the new one active.
    deepEqual(
      moved.data.releases.map((
        r: { number: number; state: string },
      ) => [r.number, r.state]),
      [[2, "active"], [1, "retired"]],
    );
    equal(await active("bakery.example"), 2);

    // DLV-011: another change waits until the previous host is removed.
    const third = await call(`${base}/address/prove`, {
      body: { host: "shop.bakery.example" },
    });
    equal(third.status, 409);
    deepEqual((await third.json()).error.previous, "www.bakery.example");

    // DLV-009: at the deadline going back still works; just after it is refused with the deadline.
    t.clock.advance(7 * 24 * 3600 * 1000 + 1);
    // A week later the person signs in again.
    call = await jsonCaller(t, userId);
    const late = await call(`${base}/address/rollback`, {
      body: { observed_active_number: 2 },
    });
    equal(late.status, 409);
    deepEqual((await late.json()).error, {
      code: "address_rollback_expired",
      message: "Going back was possible for seven days only",
      deadline,
    });
    t.clock.advance(-1);
    const back = await call(`${base}/address/rollback`, {
      body: { observed_active_number: 2 },
    });
    equal(back.status, 200);
    const backData = (await back.json()).data;
    equal(backData.active_number, 1);
    equal(backData.address.active, "www.bakery.example");
    equal(await active("www.bakery.example"), 1);

    // DLV-010: after another switch, removing the previous host ends going back.
    const again = (await (await call(`${base}/address/prove`, {
      body: { host: "bakery.example" },
    })).json()).data;
    await call(`${base}/releases/${again.number}/switch-address`, {
      body: { observed_active_number: 1 },
    });
    const removed = await call(`${base}/address/remove-previous`, { body: {} });
    equal(removed.status, 200);
    equal((await removed.json()).data.address.previous, null);
    equal(await active("www.bakery.example"), null);
    const noWay = await call(`${base}/address/rollback`, {
      body: { observed_active_number: again.number },
    });
    equal(noWay.status, 409);
    equal((await noWay.json()).error.code, "no_previous_address");
    const listed = await (await call(`${base}/releases`)).json();
    equal(listed.data.releases.length, 3);
    match(listed.data.releases[0].digest, /^[0-9a-f]{64}$/);
  } finally {
    await t.close();
    await service.stop();
    await Deno.remove(artifacts, { recursive: true });
  }
});

Deno.test("DLV-005: the deploy service keeps a release only when its digest, which covers the origin, and its signature check out", async () => {
  const service = await startBuildService();
  try {
    const body = {
      site_id: crypto.randomUUID(),
      number: 1,
      origin: "https://a.example",
      installation_id: "stave-test",
      digest: "0".repeat(64),
      signature: "0".repeat(64),
      candidate_id: crypto.randomUUID(),
      compiled_digest: "0".repeat(64),
      transform_origins: "",
      regions: [],
      files: {},
    };
    const res = await fetch(`${service.origin}/releases/prepare`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${DEPLOY_KEY}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
    equal(res.status, 400);
    equal((await res.json()).error.code, "digest_mismatch");
    const unkeyed = await fetch(`${service.origin}/releases/prepare`, {
      method: "POST",
      body: "{}",
    });
    equal(unkeyed.status, 401);
    await unkeyed.body?.cancel();
  } finally {
    await service.stop();
  }
});

Deno.test("DLV-003 DLV-004: delivery without one of its settings answers 503 naming it; the installation id never changes after a first release", async () => {
  const service = await startBuildService();
  const artifacts = await Deno.makeTempDir({ prefix: "stave-artifacts-" });
  const env = templateEnv(service.origin, artifacts);
  const { t, siteId, userId } = await setupAdmin({
    env: { ...env, MANAGED_RENDER_HMAC_KEY: "" },
  });
  try {
    await setMemberPermissions(
      t.services.db,
      userId,
      administratorPermissions(),
    );
    const call = await jsonCaller(t, userId);
    const res = await call(
      `/api/sites/${siteId}/managed-renderer/address/prove`,
      { body: { host: "a.example" } },
    );
    equal(res.status, 503);
    const { error } = await res.json();
    equal(error.operation, "release");
    deepEqual(error.missing, ["MANAGED_RENDER_HMAC_KEY"]);
    // With every setting, a first release records the installation; another id is refused.
    const made = await (await call("/api/managed-templates/candidates", {
      body: await exampleUpload(),
    })).json();
    await call(`/api/managed-templates/candidates/${made.data.id}/accept`, {
      body: { observed_acceptance: 0 },
    });
    t.services.config.templateSettings = env;
    equal(
      (await call(`/api/sites/${siteId}/managed-renderer/address/prove`, {
        body: { host: "a.example" },
      })).status,
      201,
    );
    t.services.config.templateSettings = {
      ...env,
      MANAGED_RENDER_INSTALLATION_ID: "other-install",
    };
    const changed = await call(
      `/api/sites/${siteId}/managed-renderer/address/prove`,
      { body: { host: "b.example" } },
    );
    equal(changed.status, 409);
    deepEqual((await changed.json()).error.recorded, "stave-test");
    ok(true);
  } finally {
    await t.close();
    await service.stop();
    await Deno.remove(artifacts, { recursive: true });
  }
});

Deno.test("DLV-012: PATCH /api/sites/{id} with a new domain answers 409 managed_address_change_required while the managed renderer keeps a host", async () => {
  const { t, siteId, userId } = await setupAdmin();
  try {
    await setMemberPermissions(
      t.services.db,
      userId,
      administratorPermissions(),
    );
    const call = await jsonCaller(t, userId);
    const path = `/api/sites/${siteId}`;
    // The binding a switch leaves behind (switching itself is tested above).
    await t.services.db.insertInto("managed_addresses").values({
      site_id: siteId,
      host: "www.bakery.example",
      role: "active",
      switched_at: t.clock.now(),
      rollback_until: null,
    }).execute();
    const refused = await call(path, {
      method: "PATCH",
      body: { domain: "new.example.com" },
    });
    equal(refused.status, 409);
    const { error } = await refused.json();
    equal(error.code, "managed_address_change_required");
    deepEqual(error.hosts, ["www.bakery.example"]);
    const site = await t.services.db.selectFrom("sites").select("domain").where(
      "id",
      "=",
      siteId,
    ).executeTakeFirstOrThrow();
    equal(site.domain, "admin.example.com");
    equal(
      (await call(path, {
        method: "PATCH",
        body: { domain: "new.example.com", extra: 1 },
      })).status,
      400,
    );
    // Without a managed address the domain changes.
    await t.services.db.deleteFrom("managed_addresses").execute();
    const changed = await call(path, {
      method: "PATCH",
      body: { domain: "New.Example.com" },
    });
    equal(changed.status, 200);
    equal((await changed.json()).data.domain, "new.example.com");
  } finally {
    await t.close();
  }
});
