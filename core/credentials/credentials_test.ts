// Creating, listing and revoking management credentials (MCR-001..MCR-005, MCR-008).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import {
  administratorPermissions,
  editorPermissions,
} from "../access/default_roles.ts";
import { insertMember, insertRole, insertSite } from "../access/_testing.ts";
import type { Permissions } from "../access/permissions.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { ManualClock } from "../clock.ts";
import type { AuditWriter } from "../entries/audit.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { findCredentialBySecret } from "./credential_store.ts";
import {
  createCredential,
  type CredentialContext,
  listCredentials,
  revokeCredential,
} from "./credentials.ts";

async function world(permissions: Permissions) {
  const test = await openTestDb();
  const clock = new ManualClock();
  const siteId = await insertSite(test.db, clock);
  const roleId = await insertRole(test.db, siteId, permissions, clock);
  const personId = await insertMember(test.db, siteId, { roleId, clock });
  const ctx: CredentialContext = { db: test.db, clock, siteId, personId };
  const count = async () =>
    (await test.db.selectFrom("management_credentials").selectAll().execute())
      .length;
  return { ...test, ctx, count };
}

Deno.test("createCredential() shows an svm_ secret once and stores only its digest, with an audit entry (MCR-002)", async () => {
  const w = await world(administratorPermissions());
  try {
    const created = await createCredential(w.ctx, {
      name: " ci ",
      scopes: ["content:read", "lifecycle:publish"],
      models: null,
    });
    ok(created.ok);
    match(created.secret, /^svm_[A-Za-z0-9_-]{43}$/);
    equal(created.credential.name, "ci");
    const row = await w.db.selectFrom("management_credentials").selectAll()
      .executeTakeFirstOrThrow();
    equal(row.secret_digest, await sha256Hex(created.secret));
    equal(JSON.stringify(row).includes(created.secret), false);
    equal(
      (await findCredentialBySecret(w.db, created.secret))?.id,
      created.credential.id,
    );
    const audit = await w.db.selectFrom("audit_entries").selectAll()
      .executeTakeFirstOrThrow();
    equal(audit.action, "credential.create");
    equal(JSON.stringify(audit).includes(created.secret), false);
  } finally {
    await w.close();
  }
});

Deno.test("createCredential() needs site:settings: an editor is refused missing_permission and nothing is stored (MCR-004)", async () => {
  const w = await world(editorPermissions());
  try {
    const refused = await createCredential(w.ctx, {
      name: "x",
      scopes: ["content:read"],
      models: null,
    });
    equal(refused.ok, false);
    equal(!refused.ok && refused.code, "missing_permission");
    equal(await w.count(), 0);
  } finally {
    await w.close();
  }
});

Deno.test("createCredential() refuses a scope the creator does not hold with grant_not_held naming it", async () => {
  const w = await world({
    models: { "*": ["read", "update"] },
    system: ["site:settings"],
  });
  try {
    const refused = await createCredential(w.ctx, {
      name: "x",
      scopes: ["content:read", "lifecycle:publish"],
      models: null,
    });
    equal(!refused.ok && refused.code, "grant_not_held");
    ok(
      !refused.ok && "not_held" in refused &&
        refused.not_held.some((n) => n.scope === "lifecycle:publish"),
    );
    equal(await w.count(), 0);
  } finally {
    await w.close();
  }
});

Deno.test("createCredential() needs a name and a list of scopes, takes an optional list of models, and refuses unknown scopes, unknown models, an empty or 201-character name (MCR-001)", async () => {
  const w = await world(administratorPermissions());
  try {
    const problems = async (input: Parameters<typeof createCredential>[1]) => {
      const result = await createCredential(w.ctx, input);
      return !result.ok && "problems" in result
        ? result.problems.map((p) => p.path)
        : [];
    };
    deepEqual(
      await problems({ name: "x", scopes: ["everything"], models: null }),
      ["scopes.0"],
    );
    deepEqual(await problems({ name: "x", scopes: [], models: null }), [
      "scopes",
    ]);
    deepEqual(
      await problems({
        name: "x",
        scopes: ["content:read"],
        models: [crypto.randomUUID()],
      }),
      ["models.0"],
    );
    deepEqual(
      await problems({ name: "", scopes: ["content:read"], models: null }),
      ["name"],
    );
    deepEqual(
      await problems({
        name: "n".repeat(201),
        scopes: ["content:read"],
        models: null,
      }),
      ["name"],
    );
    ok(
      (await createCredential(w.ctx, {
        name: "n".repeat(200),
        scopes: ["content:read"],
        models: null,
      })).ok,
    );
    equal(await w.count(), 1);
  } finally {
    await w.close();
  }
});

Deno.test("revokeCredential() stops the secret at once; listCredentials() never shows secrets, and no use of a credential is counted or timed (MCR-003)", async () => {
  const w = await world(administratorPermissions());
  try {
    const created = await createCredential(w.ctx, {
      name: "ci",
      scopes: ["content:read"],
      models: null,
    });
    ok(created.ok);
    const listed = await listCredentials(w.ctx);
    ok(listed.ok);
    equal(listed.credentials.length, 1);
    equal(JSON.stringify(listed).includes("svm_"), false);
    // Using a credential leaves no trace on it: no counter, no last-used time, listed or stored.
    ok(await findCredentialBySecret(w.db, created.secret));
    const stored = await w.db.selectFrom("management_credentials").selectAll()
      .executeTakeFirstOrThrow();
    deepEqual(Object.keys(stored).filter((k) => /use|count|seen/.test(k)), []);
    deepEqual(
      Object.keys(listed.credentials[0]).filter((k) =>
        /use|count|seen/.test(k)
      ),
      [],
    );
    ok((await revokeCredential(w.ctx, created.credential.id)).ok);
    equal(await findCredentialBySecret(w.db, created.secret), null);
    const again = await revokeCredential(w.ctx, created.credential.id);
    equal(!again.ok && again.code, "not_found");
  } finally {
    await w.close();
  }
});

Deno.test("a failing audit write refuses audit_unavailable and stores no credential", async () => {
  const w = await world(administratorPermissions());
  try {
    const failing: AuditWriter = {
      write: () => Promise.reject(new Error("ledger down")),
    };
    const refused = await createCredential({ ...w.ctx, audit: failing }, {
      name: "x",
      scopes: ["content:read"],
      models: null,
    });
    equal(!refused.ok && refused.code, "audit_unavailable");
    equal(await w.count(), 0);
  } finally {
    await w.close();
  }
});
