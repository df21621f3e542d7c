// Exports: created, built step by step, read in 1 MiB pages with the file's SHA-256; refused to
// a role or credential that does not read everything (MOD-043). IMP-007, IMP-008, MAPI-016.
import assert from "node:assert/strict";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { sha256Hex } from "../../core/auth/secrets.ts";
import { IDEMPOTENCY_RETENTION_MS } from "../../core/kv/idempotency_key.ts";
import { IdempotencyStore } from "../../core/kv/idempotency_store.ts";
import { keyDigestOf } from "../../core/manage/idempotency.ts";
import {
  insertPerson,
  PASSWORD,
  setMemberPermissions,
} from "../admin/helpers.ts";
import { refusal, withManageApp } from "../manage/helpers.ts";
import { callerOf, exportSite, key, ok } from "./helpers.ts";

async function exporter(t: Parameters<Parameters<typeof withManageApp>[0]>[0]) {
  const cred = await t.credential(["data:export", "content:write"]);
  return { id: cred.id, call: callerOf(t, cred.secret) };
}

Deno.test("IMP-007: an export is built in steps, then read page by page; its lines and SHA-256 check out", () =>
  withManageApp(async (t) => {
    const { call } = await exporter(t);
    const model = await t.call("POST", "/models", {
      body: {
        definition: {
          model: { name: "Notes", slug: "notes" },
          fields: [{ key: "text", label: "Text", type: "text" }],
        },
      },
      key: key(),
      secret: (await t.credential(["schema:write"])).secret,
    });
    assert.equal(model.status, 201, await model.clone().text());
    const { model_id } = await model.json();
    const saved = await call("POST", `/entries`, {
      body: { model_id, locale: "en", slug: "first", fields: { text: "One" } },
      key: key(),
    });
    assert.equal(saved.status, 201, await saved.clone().text());

    const created = await ok(
      await call("POST", "/exports", { body: {}, key: "e1" }),
      201,
    );
    assert.equal(created.state, "building");
    assert.equal(created.phase, "head");
    assert.deepEqual(created.options, { include_media: true });
    const replay = await ok(
      await call("POST", "/exports", { body: {}, key: "e1" }),
      201,
    );
    assert.equal(replay.id, created.id);
    assert.equal(replay.replayed, true);
    const early = await call("GET", `/exports/${created.id}/chunk`);
    assert.equal(early.status, 409);
    assert.equal((await refusal(early)).code, "export_not_ready");
    t.clock.advance(1000);
    const bytes = await exportSite(call);
    const lines = new TextDecoder().decode(bytes).trimEnd().split("\n").map((
      l,
    ) => JSON.parse(l));
    assert.equal(lines[0].type, "stave-archive");
    assert.equal(lines[0].default_language, "en");
    assert.deepEqual(
      lines.filter((l) => l.type === "language").map((l) => l.code),
      ["en", "de"],
    );
    assert.deepEqual(
      lines.filter((l) => l.type === "model").map((l) =>
        l.definition.model.slug
      ),
      ["notes"],
    );
    const entries = lines.filter((l) => l.type === "entry");
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0].languages[0].current, { text: "One" });
    assert.equal(entries[0].languages[0].published, null);
    assert.deepEqual(lines.at(-1), {
      type: "end",
      counts: { languages: 2, models: 1, media: 0, entries: 1 },
    });

    const list = await ok<{ data: { id: string; state: string }[] }>(
      await call("GET", "/exports?limit=1"),
    );
    assert.equal(list.data.length, 1);
    const built = await ok(await call("GET", `/exports/${list.data[0].id}`));
    assert.equal(built.state, "ready");
    assert.equal(built.phase, null);
    const again = await call("POST", `/exports/${built.id}/advance`, {
      key: key(),
    });
    assert.equal(again.status, 409);
    assert.equal((await refusal(again)).code, "export_finished");
    const past = await call("GET", `/exports/${built.id}/chunk?page=2`);
    assert.equal(past.status, 404);
    for (const page of ["0", "x", "100001"]) {
      assert.equal(
        (await call("GET", `/exports/${built.id}/chunk?page=${page}`)).status,
        400,
      );
    }
    assert.equal(
      (await call("GET", `/exports/${crypto.randomUUID()}`)).status,
      404,
    );
    const bad = await call("POST", "/exports", {
      body: { include_media: "yes" },
      key: key(),
    });
    assert.equal(bad.status, 400);
    const extra = await call("POST", "/exports", {
      body: { all: true },
      key: key(),
    });
    assert.equal(extra.status, 400);
  }));

Deno.test("MOD-043, MCR-024: a whole-site export is refused to a role that narrows reading and to a credential limited to some models", () =>
  withManageApp(async (t) => {
    const personId = await insertPerson(t.services.db, {
      email: "limited@manage.test",
      password: PASSWORD,
      siteIds: [t.siteId],
    });
    await setMemberPermissions(t.services.db, personId, {
      models: { "*": ["read"] },
      system: ["data:export"],
      languages: { read: ["en"] },
    });
    const limited = await t.credential(["data:export"], {
      creatorId: personId,
    });
    const refused = await t.call("POST", "/exports", {
      body: {},
      key: key(),
      secret: limited.secret,
    });
    assert.equal(refused.status, 403);
    assert.equal((await refusal(refused)).code, "export_limited_role");
    const { secret } = await insertCredential(t.services.db, t.clock, {
      siteId: t.siteId,
      creatorId: t.adminId,
      name: "models only",
      scopes: ["data:export"],
      models: [crypto.randomUUID()],
    });
    const narrow = await t.call("POST", "/exports", {
      body: {},
      key: key(),
      secret,
    });
    assert.equal(narrow.status, 403);
    assert.equal((await refusal(narrow)).code, "export_limited_role");
    const noScope = await t.credential(["data:import"]);
    const scope = await t.call("POST", "/exports", {
      body: {},
      key: key(),
      secret: noScope.secret,
    });
    assert.equal(scope.status, 403);
    assert.equal((await refusal(scope)).code, "missing_permission");
    const jobs = await t.services.db.selectFrom("data_jobs").select("id")
      .execute();
    assert.deepEqual(jobs, []);
  }));

Deno.test("IMP-008, MAPI-016: an export step retried after a lost answer reruns unless the job moved", () =>
  withManageApp(async (t) => {
    const { id: credentialId, call } = await exporter(t);
    const job = await ok(
      await call("POST", "/exports", { body: {}, key: key() }),
      201,
    );
    const path = `/exports/${job.id}/advance`;
    const strand = async (k: string) => {
      const store = new IdempotencyStore(t.services.kv, { clock: t.clock });
      const scope = ["manage", t.siteId, credentialId];
      const claimed = await store.claim({ scope, key: k }, {
        method: "POST",
        path: `/api/manage/v1${path}`,
        bodyDigest: await sha256Hex(""),
        retentionMs: IDEMPOTENCY_RETENTION_MS,
      });
      assert.ok(claimed.ok && !claimed.replayed);
      return await keyDigestOf(scope, k);
    };
    // The lost step began and never finished, the job did not move: an export step runs again.
    const digest = await strand("x1");
    await t.services.db.insertInto("data_job_steps").values({
      job_id: job.id as string,
      key_digest: digest,
      from_position: 0,
      status: "running",
      created_at: t.clock.now(),
    }).execute();
    t.clock.advance(60_000);
    const rerun = await ok(await call("POST", path, { key: "x1" }));
    assert.equal(rerun.position, 1);
    assert.equal(rerun.replayed, undefined);
    // The same key again is the stored answer, and nothing runs.
    const replay = await ok(await call("POST", path, { key: "x1" }));
    assert.equal(replay.replayed, true);
    assert.equal(replay.position, 1);
    // A lost step after which the job moved on: its state now, replayed.
    const moved = await strand("x2");
    await t.services.db.insertInto("data_job_steps").values({
      job_id: job.id as string,
      key_digest: moved,
      from_position: 1,
      status: "running",
      created_at: t.clock.now(),
    }).execute();
    await ok(await call("POST", path, { key: key() }));
    t.clock.advance(60_000);
    const settled = await ok(await call("POST", path, { key: "x2" }));
    assert.equal(settled.replayed, true);
    assert.equal(settled.position, 2);
  }));
