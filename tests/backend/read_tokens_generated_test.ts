// Deployed API read tokens reaching a generated backend: generation writes the live tokens'
// digests and scopes (never a secret, never a site API token), refuses what it cannot emit,
// and a running backend changes only when regenerated and deployed again.
import assert from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { sha256Hex } from "../../core/auth/secrets.ts";
import { generateBackend } from "../../core/backend/generate/mod.ts";
import {
  issueReadToken,
  type ReadTokenContext,
  revokeReadToken,
} from "../../core/backend/read_tokens.ts";
import { ManualClock } from "../../core/clock.ts";
import { issueSiteToken } from "../../core/public/site_tokens.ts";
import { insertPerson, setMemberPermissions } from "../admin/helpers.ts";
import { openTestDb } from "../support/db.ts";
import { emit, startBackend } from "./emitted.ts";
import { createFixtureSite, type FixtureSite } from "./fixture_site.ts";

async function fixtureWithPerson() {
  const testDb = await openTestDb();
  const clock = new ManualClock("2026-11-28T10:00:00Z");
  const fixture: FixtureSite = await createFixtureSite(testDb.db, clock);
  const personId = await insertPerson(testDb.db, {
    email: "infra@example.com",
    password: "correct horse battery",
    siteIds: [fixture.siteId],
  });
  await setMemberPermissions(testDb.db, personId, administratorPermissions());
  const ctx: ReadTokenContext = {
    db: testDb.db,
    clock,
    siteId: fixture.siteId,
    personId,
  };
  return { testDb, fixture, ctx };
}

Deno.test("GACC-015 GACC-014: generation refuses a single model while tokens are live and a scope it does not emit; it writes live digests only", async () => {
  const { testDb, fixture, ctx } = await fixtureWithPerson();
  try {
    const generate = (models?: string[]) =>
      generateBackend(ctx.db, {
        siteId: fixture.siteId,
        models,
        publicUrl: "http://media.example",
      });
    // Without tokens, one model alone is generated.
    assert.equal((await generate(["tag"])).ok, true);
    const tagOnly = await issueReadToken(ctx, {
      name: "Tags",
      modelIds: [fixture.models.tag],
    });
    assert.ok(tagOnly.ok);
    const single = await generate(["tag"]);
    assert.equal(single.ok, false);
    if (!single.ok) {
      assert.equal(single.code, "read_tokens_need_site_graduation");
      assert.equal(single.problems[0].model, "tag");
    }
    // Several models covering every scope: generated.
    assert.equal((await generate(["tag", "section"])).ok, true);
    const sections = await issueReadToken(ctx, {
      name: "Sections and settings",
      modelIds: [fixture.models.section, fixture.models.settings],
    });
    assert.ok(sections.ok);
    const partial = await generate(["tag", "section"]);
    assert.equal(partial.ok, false);
    if (!partial.ok) {
      assert.equal(partial.code, "token_scope_not_emitted");
      assert.deepEqual(partial.problems.map((p) => p.model), ["settings"]);
      assert.ok(!JSON.stringify(partial).includes(sections.token));
    }
    const site = await issueSiteToken(ctx, {
      siteId: fixture.siteId,
      name: "Front end",
      modelIds: [fixture.models.tag],
    });
    assert.ok(site.ok);
    const siteDigest = await sha256Hex(site.token);
    await revokeReadToken(ctx, sections.id);
    const whole = await generate();
    assert.ok(whole.ok);
    const access = JSON.parse(whole.files.get("access/read-tokens.json")!);
    assert.deepEqual(access, {
      version: 1,
      site_id: fixture.siteId,
      tokens: [{
        id: tagOnly.id,
        site_id: fixture.siteId,
        digest: await sha256Hex(tagOnly.token),
        models: [fixture.models.tag],
        capabilities: ["read"],
      }],
    });
    for (const [path, text] of whole.files) {
      for (const secret of [tagOnly.token, sections.token, site.token]) {
        assert.ok(!text.includes(secret), path);
      }
      assert.ok(!text.includes(siteDigest), path);
      assert.ok(!text.includes(await sha256Hex(sections.token)), path);
    }
  } finally {
    await testDb.close();
  }
});

Deno.test("GACC-012 GACC-010: an issued token reads its model from a regenerated backend, and is refused once revoked and regenerated", async (t) => {
  const { testDb, fixture, ctx } = await fixtureWithPerson();
  const dirs: string[] = [];
  try {
    const before = await emit(ctx.db, {
      siteId: fixture.siteId,
      publicUrl: "http://media.example",
    });
    dirs.push(before.dir);
    const issued = await issueReadToken(ctx, {
      name: "App",
      modelIds: [fixture.models.tag],
    });
    assert.ok(issued.ok);
    await t.step(
      "nothing reaches a backend until it is regenerated",
      async () => {
        const old = await startBackend(before.dir, before.schema);
        try {
          assert.equal(
            (await old.call("/api/tag", { as: issued.token })).status,
            401,
          );
        } finally {
          await old.stop();
        }
      },
    );
    const deployed = await emit(ctx.db, {
      siteId: fixture.siteId,
      publicUrl: "http://media.example",
    });
    dirs.push(deployed.dir);
    const live = await startBackend(deployed.dir, deployed.schema);
    try {
      await t.step(
        "the regenerated backend reads with the token, its scope only",
        async () => {
          assert.equal(
            (await live.call("/api/tag", { as: issued.token })).status,
            200,
          );
          assert.equal(
            (await live.call("/api/section", { as: issued.token })).status,
            403,
          );
          assert.equal(
            (await live.call("/api/openapi.json", { as: issued.token })).status,
            403,
          );
        },
      );
      assert.deepEqual(await revokeReadToken(ctx, issued.id), { ok: true });
      await t.step(
        "revoking does not deploy: the running backend still reads",
        async () => {
          assert.equal(
            (await live.call("/api/tag", { as: issued.token })).status,
            200,
          );
        },
      );
    } finally {
      await live.stop();
    }
    const after = await emit(ctx.db, {
      siteId: fixture.siteId,
      publicUrl: "http://media.example",
    });
    dirs.push(after.dir);
    await t.step(
      "regenerated after the revocation, the backend refuses it",
      async () => {
        const again = await startBackend(after.dir, after.schema);
        try {
          assert.equal(
            (await again.call("/api/tag", { as: issued.token })).status,
            401,
          );
          assert.equal((await again.call("/api/tag")).status, 200);
        } finally {
          await again.stop();
        }
      },
    );
  } finally {
    await testDb.close();
    for (const dir of dirs) {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  }
});
