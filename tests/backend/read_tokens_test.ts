// Deployed API read tokens in the service: the secret's shape and digest, scope rules at their
// edges, revoke and rotate, site:infra, and scopes pruned when a model is removed.
import assert from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { sha256Hex } from "../../core/auth/secrets.ts";
import {
  issueReadToken,
  listReadTokens,
  liveReadTokens,
  READ_TOKEN_MODELS_MAX,
  READ_TOKEN_NAME_MAX,
  type ReadTokenContext,
  revokeReadToken,
  rotateReadToken,
} from "../../core/backend/read_tokens.ts";
import { ManualClock } from "../../core/clock.ts";
import type { Db } from "../../core/db/database.ts";
import { entryContentFacts } from "../../core/manage/content_facts.ts";
import { removeModel } from "../../core/models/remove_model.ts";
import { createModel } from "../../core/models/store.ts";
import { insertPerson, setMemberPermissions } from "../admin/helpers.ts";
import { openTestDb } from "../support/db.ts";
import { insertSite } from "../support/sites.ts";

interface World {
  ctx: ReadTokenContext;
  clock: ManualClock;
  models: Record<string, string>;
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const testDb = await openTestDb();
  const { db } = testDb;
  const clock = new ManualClock("2026-11-28T10:00:00Z");
  const siteId = await insertSite(db, { domain: "tokens.example" });
  const personId = await insertPerson(db, {
    email: "infra@example.com",
    password: "correct horse battery",
    siteIds: [siteId],
  });
  await setMemberPermissions(db, personId, administratorPermissions());
  const models: Record<string, string> = {};
  for (const slug of ["posts", "authors", "tags"]) {
    const made = await createModel({ db, clock, siteId }, {
      model: { name: slug, slug },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    assert.ok(made.ok, JSON.stringify(made));
    models[slug] = made.model_id;
  }
  return {
    ctx: { db, clock, siteId, personId },
    clock,
    models,
    close: () => testDb.close(),
  };
}

async function rows(db: Db) {
  return await db.selectFrom("deployed_read_tokens").selectAll()
    .orderBy("created_at").orderBy("id").execute();
}

Deno.test("GACC-010: an issued read token is sv_art_ + 43 base64url, answered once; only its SHA-256 digest is kept", async () => {
  const w = await world();
  try {
    const issued = await issueReadToken(w.ctx, {
      name: "  Storefront  ",
      modelIds: [w.models.posts],
    });
    assert.ok(issued.ok);
    assert.match(issued.token, /^sv_art_[A-Za-z0-9_-]{43}$/);
    const [row] = await rows(w.ctx.db);
    assert.equal(row.digest, await sha256Hex(issued.token));
    assert.equal(row.name, "Storefront");
    assert.deepEqual(row.model_ids, [w.models.posts]);
    // No stored column holds the secret.
    assert.ok(!JSON.stringify(row).includes(issued.token));
    const listed = await listReadTokens(w.ctx);
    assert.ok(listed.ok);
    assert.deepEqual(Object.keys(listed.tokens[0]).sort(), [
      "created_at",
      "id",
      "model_ids",
      "name",
      "replaces",
      "revoked_at",
    ]);
    assert.ok(!JSON.stringify(listed).includes(row.digest));
    const other = await issueReadToken(w.ctx, {
      name: "Other",
      modelIds: [w.models.posts],
    });
    assert.ok(other.ok);
    assert.notEqual(other.token, issued.token);
  } finally {
    await w.close();
  }
});

Deno.test("GACC-011 GACC-013: scopes are 1 to 100 model ids of this site, never *, names 1 to 100 characters; refusals change nothing", async () => {
  const w = await world();
  try {
    const otherSite = await insertSite(w.ctx.db, { domain: "else.example" });
    const foreign = await createModel(
      { db: w.ctx.db, clock: w.clock, siteId: otherSite },
      { model: { name: "x", slug: "x" }, fields: [] },
    );
    assert.ok(foreign.ok);
    const random = (n: number) =>
      Array.from({ length: n }, () => crypto.randomUUID());
    const refusals: [string, string[], RegExp][] = [
      ["star", ["*"], /cannot read every model/],
      ["star too", [w.models.posts, "*"], /cannot read every model/],
      ["empty", [], /1 to 100 models/],
      // One past the limit is refused by count; at the limit, by existence.
      ["too many", random(READ_TOKEN_MODELS_MAX + 1), /1 to 100 models/],
      ["at limit", random(READ_TOKEN_MODELS_MAX), /model of this site/],
      ["unknown", [crypto.randomUUID()], /model of this site/],
      ["not a uuid", ["posts"], /model of this site/],
      ["foreign", [foreign.model_id], /model of this site/],
      ["", [w.models.posts], /Name must be 1 to 100/],
      ["   ", [w.models.posts], /Name must be 1 to 100/],
      ["n".repeat(READ_TOKEN_NAME_MAX + 1), [w.models.posts], /Name/],
    ];
    for (const [name, modelIds, message] of refusals) {
      const refused = await issueReadToken(w.ctx, { name, modelIds });
      assert.equal(refused.ok, false, name);
      if (!refused.ok) {
        assert.equal(refused.code, "input_invalid");
        assert.match((refused as { message: string }).message, message);
      }
    }
    assert.equal((await rows(w.ctx.db)).length, 0);
    // The last values accepted: a 100-character name, every model, duplicates folded.
    const edge = await issueReadToken(w.ctx, {
      name: "n".repeat(READ_TOKEN_NAME_MAX),
      modelIds: [
        w.models.posts,
        w.models.authors,
        w.models.tags,
        w.models.posts.toUpperCase(),
      ],
    });
    assert.ok(edge.ok);
    assert.equal(((await rows(w.ctx.db))[0].model_ids as string[]).length, 3);
  } finally {
    await w.close();
  }
});

Deno.test("GACC-010: every read-token action needs site:infra and changes nothing without it", async () => {
  const w = await world();
  try {
    const issued = await issueReadToken(w.ctx, {
      name: "App",
      modelIds: [w.models.posts],
    });
    assert.ok(issued.ok);
    await setMemberPermissions(w.ctx.db, w.ctx.personId, {
      models: { "*": ["read", "create", "update", "delete", "publish"] },
      system: ["site:settings", "site:deploy", "model:apply"],
    });
    const before = await rows(w.ctx.db);
    for (
      const answer of [
        await listReadTokens(w.ctx),
        await issueReadToken(w.ctx, {
          name: "x",
          modelIds: [w.models.posts],
        }),
        await rotateReadToken(w.ctx, issued.id),
        await revokeReadToken(w.ctx, issued.id),
      ]
    ) {
      assert.deepEqual(answer, { ok: false, code: "missing_permission" });
    }
    assert.deepEqual(await rows(w.ctx.db), before);
  } finally {
    await w.close();
  }
});

Deno.test("GACC-012: revoke takes a token out of the live set once; rotation issues a replacement and leaves the old one live; each is audited", async () => {
  const w = await world();
  try {
    const first = await issueReadToken(w.ctx, {
      name: "App",
      modelIds: [w.models.posts, w.models.tags],
    });
    assert.ok(first.ok);
    w.clock.advance(1_000);
    const next = await rotateReadToken(w.ctx, first.id);
    assert.ok(next.ok);
    assert.match(next.token, /^sv_art_[A-Za-z0-9_-]{43}$/);
    const [old, fresh] = await rows(w.ctx.db);
    assert.equal(fresh.id, next.id);
    assert.equal(fresh.name, "App");
    assert.deepEqual(fresh.model_ids, old.model_ids);
    assert.equal(fresh.replaces, first.id);
    assert.equal(fresh.digest, await sha256Hex(next.token));
    // Both live until the callers have moved and the old one is revoked.
    assert.deepEqual(
      (await liveReadTokens(w.ctx.db, w.ctx.siteId)).map((t) => t.id),
      [first.id, next.id],
    );
    w.clock.advance(1_000);
    assert.deepEqual(await revokeReadToken(w.ctx, first.id), { ok: true });
    assert.deepEqual(
      (await liveReadTokens(w.ctx.db, w.ctx.siteId)).map((t) => t.id),
      [next.id],
    );
    const revokedAt = (await rows(w.ctx.db))[0].revoked_at;
    assert.ok(revokedAt);
    // A revoked or unknown token can be neither revoked again nor rotated.
    for (const id of [first.id, crypto.randomUUID(), "nope"]) {
      assert.deepEqual(await revokeReadToken(w.ctx, id), {
        ok: false,
        code: "not_found",
      });
      assert.deepEqual(await rotateReadToken(w.ctx, id), {
        ok: false,
        code: "not_found",
      });
    }
    assert.equal((await rows(w.ctx.db)).length, 2);
    assert.deepEqual((await rows(w.ctx.db))[0].revoked_at, revokedAt);
    // Each change is audited with the person and the token's id, never its secret or digest.
    const audited = await w.ctx.db.selectFrom("audit_entries")
      .select(["action", "actor", "target", "details"])
      .where("site_id", "=", w.ctx.siteId)
      .where("action", "like", "read_token.%").orderBy("created_at")
      .orderBy("action").execute();
    assert.deepEqual(audited.map((a) => [a.action, a.target]), [
      ["read_token.issue", { kind: "deployed_read_token", id: first.id }],
      ["read_token.rotate", { kind: "deployed_read_token", id: next.id }],
      ["read_token.revoke", { kind: "deployed_read_token", id: first.id }],
    ]);
    assert.deepEqual(audited[1].details, {
      name: "App",
      model_ids: [w.models.posts, w.models.tags],
      replaces: first.id,
    });
    const text = JSON.stringify(audited);
    assert.match(text, new RegExp(w.ctx.personId));
    for (const r of await rows(w.ctx.db)) assert.ok(!text.includes(r.digest));
    assert.ok(!text.includes(first.token) && !text.includes(next.token));
  } finally {
    await w.close();
  }
});

Deno.test("GACC-013: removing a model takes it out of every token's scope; a token left with none is revoked", async () => {
  const w = await world();
  try {
    const both = await issueReadToken(w.ctx, {
      name: "Both",
      modelIds: [w.models.posts, w.models.tags],
    });
    const only = await issueReadToken(w.ctx, {
      name: "Only",
      modelIds: [w.models.tags],
    });
    const untouched = await issueReadToken(w.ctx, {
      name: "Authors",
      modelIds: [w.models.authors],
    });
    assert.ok(both.ok && only.ok && untouched.ok);
    w.clock.advance(1_000);
    const removed = await removeModel(
      { db: w.ctx.db, clock: w.clock, siteId: w.ctx.siteId },
      w.models.tags,
      {
        confirm: w.models.tags,
        baseRevision: 1,
        facts: (trx, model) => entryContentFacts(trx, w.ctx.siteId, model),
      },
    );
    assert.ok(removed.ok, JSON.stringify(removed));
    const byId = new Map((await rows(w.ctx.db)).map((r) => [r.id, r]));
    assert.deepEqual(byId.get(both.id)!.model_ids, [w.models.posts]);
    assert.equal(byId.get(both.id)!.revoked_at, null);
    assert.deepEqual(byId.get(only.id)!.model_ids, []);
    assert.deepEqual(byId.get(only.id)!.revoked_at, w.clock.now());
    assert.deepEqual(byId.get(untouched.id)!.model_ids, [w.models.authors]);
    assert.deepEqual(
      (await liveReadTokens(w.ctx.db, w.ctx.siteId)).map((t) => t.id).sort(),
      [both.id, untouched.id].sort(),
    );
  } finally {
    await w.close();
  }
});

Deno.test("GACC-015: naming the only model of a one-model site is the whole site, not a single-model generation", async () => {
  const w = await world();
  try {
    const { generateBackend } = await import(
      "../../core/backend/generate/mod.ts"
    );
    const lone = await insertSite(w.ctx.db, { domain: "lone.example" });
    const personId = await insertPerson(w.ctx.db, {
      email: "lone@example.com",
      password: "correct horse battery",
      siteIds: [lone],
    });
    await setMemberPermissions(w.ctx.db, personId, administratorPermissions());
    const made = await createModel({
      db: w.ctx.db,
      clock: w.clock,
      siteId: lone,
    }, {
      model: { name: "posts", slug: "posts" },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    assert.ok(made.ok);
    const ctx = { ...w.ctx, siteId: lone, personId };
    const issued = await issueReadToken(ctx, {
      name: "App",
      modelIds: [made.model_id],
    });
    assert.ok(issued.ok, JSON.stringify(issued));
    const generated = await generateBackend(w.ctx.db, {
      siteId: lone,
      models: ["posts"],
      publicUrl: "http://media.example",
    });
    assert.ok(generated.ok);
    assert.match(
      generated.files.get("access/read-tokens.json")!,
      new RegExp(issued.id),
    );
  } finally {
    await w.close();
  }
});
