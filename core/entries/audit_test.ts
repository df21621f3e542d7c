// Tests that every lifecycle command is audited or not done at all, and that attribution is a frozen snapshot.
import assert from "node:assert/strict";
import { sql } from "kysely";
import { insertCredential } from "../access/_testing.ts";
import { ok, openWorld } from "./_testing.ts";
import type { AuditWriter } from "./audit.ts";
import { publishEntry, saveEntry, trashEntry } from "./lifecycle.ts";

const failingAudit: AuditWriter = {
  write: () => Promise.reject(new Error("ledger is down")),
};

const draft = {
  model_id: "article",
  locale: "en",
  slug: "a",
  fields: { title: "A" },
  expected_current_version_id: null,
};

Deno.test("lifecycle commands answer audit_unavailable for people and write nothing when the audit write fails (AUD-005)", async () => {
  const w = await openWorld();
  try {
    const a = ok(await saveEntry(w.ctx(), draft));
    const before = await w.counts();
    const broken = w.ctx(undefined, { audit: failingAudit });
    const pins = {
      group_id: a.group_id,
      expected_current_version_id: a.current_version_id,
      expected_workflow_revision: 0,
    };
    assert.deepEqual(await publishEntry(broken, pins), {
      ok: false,
      code: "audit_unavailable",
    });
    assert.deepEqual(await trashEntry(broken, { group_id: a.group_id }), {
      ok: false,
      code: "audit_unavailable",
    });
    assert.deepEqual(await saveEntry(broken, { ...draft, slug: "b" }), {
      ok: false,
      code: "audit_unavailable",
    });
    assert.deepEqual(await w.counts(), before);
    const entry = await w.db.selectFrom("entries").select(
      "published_version_id",
    )
      .executeTakeFirstOrThrow();
    assert.equal(entry.published_version_id, null);
    ok(await publishEntry(w.ctx(), pins));
  } finally {
    await w.close();
  }
});

Deno.test("with the default ledger, whose row rides with the command's next statement, a ledger that cannot be written still answers audit_unavailable for people and temporary_failure for plugins, and nothing is written (AUD-005, AUD-007)", async () => {
  const w = await openWorld();
  try {
    const a = ok(await saveEntry(w.ctx(), draft));
    const before = await w.counts();
    const pins = {
      group_id: a.group_id,
      expected_current_version_id: a.current_version_id,
      expected_workflow_revision: 0,
    };
    await sql`alter table audit_entries rename to audit_entries_offline`
      .execute(w.db);
    try {
      // A publish's ledger row is followed by its projections, a save's and a trash's by the
      // plugin notification queue or the commit.
      assert.deepEqual(await publishEntry(w.ctx(), pins), {
        ok: false,
        code: "audit_unavailable",
      });
      assert.deepEqual(await trashEntry(w.ctx(), { group_id: a.group_id }), {
        ok: false,
        code: "audit_unavailable",
      });
      assert.deepEqual(await saveEntry(w.ctx(), { ...draft, slug: "b" }), {
        ok: false,
        code: "audit_unavailable",
      });
      assert.deepEqual(
        await publishEntry(w.ctx(w.plugin(w.editorId)), pins),
        { ok: false, code: "temporary_failure" },
      );
    } finally {
      await sql`alter table audit_entries_offline rename to audit_entries`
        .execute(w.db);
    }
    assert.deepEqual(await w.counts(), before);
    ok(await publishEntry(w.ctx(), pins));
    assert.equal((await w.counts()).audit_entries, before.audit_entries + 1);
  } finally {
    await w.close();
  }
});

Deno.test("a lifecycle command whose audit write lost the database connection throws that error (answered 503 temporary_failure with Retry-After) and writes nothing", async () => {
  const w = await openWorld();
  try {
    const before = await w.counts();
    const lost = Object.assign(
      new Error("terminating connection due to administrator command"),
      { code: "57P01" },
    );
    const dropped = w.ctx(undefined, {
      audit: { write: () => Promise.reject(lost) },
    });
    await assert.rejects(saveEntry(dropped, draft), (error) => error === lost);
    assert.deepEqual(await w.counts(), before);
  } finally {
    await w.close();
  }
});

Deno.test("lifecycle commands answer temporary_failure for plugin actors and write nothing when the audit write fails (AUD-007)", async () => {
  const w = await openWorld();
  try {
    const a = ok(await saveEntry(w.ctx(), draft));
    const before = await w.counts();
    const broken = w.ctx(w.plugin(w.editorId), { audit: failingAudit });
    assert.deepEqual(
      await publishEntry(broken, {
        group_id: a.group_id,
        expected_current_version_id: a.current_version_id,
        expected_workflow_revision: 0,
      }),
      { ok: false, code: "temporary_failure" },
    );
    assert.deepEqual(
      await saveEntry(broken, {
        group_id: a.group_id,
        locale: "en",
        fields: { title: "B" },
        expected_current_version_id: a.current_version_id,
      }),
      { ok: false, code: "temporary_failure" },
    );
    assert.deepEqual(await w.counts(), before);
  } finally {
    await w.close();
  }
});

Deno.test("a plugin save is audited as plugin.content.save with the person as actor plus installation and plugin (AUD-006, AUD-008)", async () => {
  const w = await openWorld();
  try {
    const plugin = w.plugin(w.editorId);
    ok(await saveEntry(w.ctx(plugin), draft));
    const audit = await w.db.selectFrom("audit_entries").selectAll()
      .executeTakeFirstOrThrow();
    assert.equal(audit.action, "plugin.content.save");
    assert.deepEqual(audit.actor, {
      kind: "plugin",
      installation_id: plugin.installationId,
      name: "Scheduler",
      version: "1.1.0",
      person_id: w.editorId,
      person_email: `${w.editorId}@example.test`,
    });
  } finally {
    await w.close();
  }
});

Deno.test("a plugin publish writes a workflow event naming installation, version, person and key digest, never the key (AUD-001, AUD-002, AUD-003)", async () => {
  const w = await openWorld();
  try {
    const a = ok(await saveEntry(w.ctx(), draft));
    const plugin = w.plugin(w.editorId);
    const trace = {
      idempotency_key_digest: "sha256:abc",
      protocol_version: "1",
    };
    ok(
      await publishEntry(w.ctx(plugin, { trace }), {
        group_id: a.group_id,
        expected_current_version_id: a.current_version_id,
        expected_workflow_revision: 0,
      }),
    );
    const event = await w.db.selectFrom("workflow_events").selectAll()
      .where("kind", "=", "publish").executeTakeFirstOrThrow();
    assert.equal(event.to_state, "published");
    assert.equal(event.version_id, a.current_version_id);
    assert.deepEqual(event.details, trace);
    const actor = event.actor as Record<string, string>;
    assert.equal(actor.installation_id, plugin.installationId);
    assert.equal(actor.version, "1.1.0");
    assert.equal(actor.person_email, plugin.delegatedEmail);
    const audit = await w.db.selectFrom("audit_entries").selectAll()
      .where("action", "=", "entry.publish").executeTakeFirstOrThrow();
    assert.equal(
      (audit.details as Record<string, unknown>).idempotency_key_digest,
      "sha256:abc",
    );
    // A snapshot, not a reference: a later change of the person leaves history as it was.
    await w.db.updateTable("users").set({ email: "renamed@example.test" })
      .where("id", "=", w.editorId).execute();
    const again = await w.db.selectFrom("workflow_events").select("actor")
      .where("id", "=", event.id).executeTakeFirstOrThrow();
    assert.deepEqual(again.actor, event.actor);
  } finally {
    await w.close();
  }
});

Deno.test("a credential's act is attributed to the credential's id and name and its creator's email", async () => {
  const w = await openWorld();
  try {
    const credential = await insertCredential(w.db, w.siteId, {
      creatorId: w.editorId,
      scopes: ["content:read", "content:write"],
      clock: w.clock,
    });
    ok(await saveEntry(w.ctx(credential), draft));
    const version = await w.db.selectFrom("entry_versions").select("created_by")
      .executeTakeFirstOrThrow();
    assert.deepEqual(version.created_by, {
      kind: "credential",
      credential_id: credential.kind === "credential"
        ? credential.credentialId
        : "",
      name: "script",
      creator_id: w.editorId,
      creator_email: `${w.editorId}@example.test`,
    });
  } finally {
    await w.close();
  }
});
