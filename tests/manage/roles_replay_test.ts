// MAPI-014: role create and delete are written with their record in one transaction, so a retry
// after a lost answer replays the first answer instead of `role_name_taken` or `not_found`.
import assert from "node:assert/strict";
import { createRole, deleteRole } from "../../core/access/roles.ts";
import { loadAuthority } from "../../core/access/authority.ts";
import type { CredentialActor } from "../../core/access/actor.ts";
import { sha256Hex } from "../../core/auth/secrets.ts";
import { IDEMPOTENCY_RETENTION_MS } from "../../core/kv/idempotency_key.ts";
import { IdempotencyStore } from "../../core/kv/idempotency_store.ts";
import { keyDigestOf } from "../../core/manage/idempotency.ts";
import { type ManageFixture, withManageApp } from "./helpers.ts";

const PERMISSIONS = { models: {}, system: [] };

/** Claims `key` as a first request that then died: the claim stays without an answer. */
async function strandClaim(
  t: ManageFixture,
  credentialId: string,
  key: string,
  request: { method: string; path: string; body?: unknown },
) {
  const store = new IdempotencyStore(t.services.kv, { clock: t.clock });
  const scope = ["manage", t.siteId, credentialId];
  const claimed = await store.claim({ scope, key }, {
    method: request.method,
    path: `/api/manage/v1${request.path}`,
    bodyDigest: await sha256Hex(
      request.body === undefined ? "" : JSON.stringify(request.body),
    ),
    retentionMs: IDEMPOTENCY_RETENTION_MS,
  });
  assert.ok(claimed.ok && !claimed.replayed);
  return await keyDigestOf(scope, key);
}

Deno.test("a lost answer of role create and role delete: the retry answers the first result, replayed (MAPI-014)", () =>
  withManageApp(async (t) => {
    const cred = await t.credential(["content:read", "roles:write"]);
    const actor: CredentialActor = {
      kind: "credential",
      credentialId: cred.id,
      creatorId: t.adminId,
      scopes: ["content:read", "roles:write"],
      models: null,
    };
    const loaded = await loadAuthority(t.services.db, {
      siteId: t.siteId,
      actor,
    });
    assert.ok(loaded.ok);
    const roleCtx = (keyDigest: string) => ({
      db: t.services.db,
      clock: t.clock,
      siteId: t.siteId,
      authority: loaded.authority,
      record: { actor, keyDigest },
    });
    const call = (method: string, path: string, key: string, body?: unknown) =>
      t.call(method, path, { secret: cred.secret, key, body });

    // Create: the first request wrote the role and its record, then died before answering.
    const body = { name: "Reviewers", permissions: PERMISSIONS };
    const createDigest = await strandClaim(t, cred.id, "c1", {
      method: "POST",
      path: "/roles",
      body,
    });
    const written = await createRole(roleCtx(createDigest), body);
    assert.ok(written.ok);
    t.clock.advance(60_000);
    const settled = await call("POST", "/roles", "c1", body);
    assert.equal(settled.status, 201, await settled.clone().text());
    const created = await settled.json();
    assert.equal(created.id, written.role.id);
    assert.equal(created.name, "Reviewers");
    assert.equal(created.replayed, true);
    const again = await call("POST", "/roles", "c1", body);
    assert.equal((await again.json()).replayed, true);

    // Delete: same, and the retry does not answer not_found.
    const path = `/roles/${written.role.id}`;
    const deleteDigest = await strandClaim(t, cred.id, "d1", {
      method: "DELETE",
      path,
    });
    const removed = await deleteRole(roleCtx(deleteDigest), written.role.id);
    assert.ok(removed.ok);
    t.clock.advance(60_000);
    const deleted = await call("DELETE", path, "d1");
    assert.equal(deleted.status, 200, await deleted.clone().text());
    assert.deepEqual(await deleted.json(), {
      id: written.role.id,
      deleted: true,
      replayed: true,
    });

    // Nothing written by the first request: the retry runs the command.
    await strandClaim(t, cred.id, "c2", {
      method: "POST",
      path: "/roles",
      body: { name: "Fresh", permissions: PERMISSIONS },
    });
    t.clock.advance(60_000);
    const fresh = await call("POST", "/roles", "c2", {
      name: "Fresh",
      permissions: PERMISSIONS,
    });
    assert.equal(fresh.status, 201);
    assert.equal((await fresh.json()).replayed, undefined);
  }));
