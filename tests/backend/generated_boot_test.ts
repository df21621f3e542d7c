// Starting an emitted backend: the access configuration and the seed are checked before
// anything changes, writes without a service bearer are unavailable, and the emitted project
// passes its own `deno check`, `deno lint` and `deno task test`.
import assert from "node:assert/strict";
import { ManualClock } from "../../core/clock.ts";
import {
  createScratchDatabase,
  ON_POSTGRES,
  openTestDb,
} from "../support/db.ts";
import { emit, refusedStart, startBackend } from "./emitted.ts";
import { createFixtureSite, readToken } from "./fixture_site.ts";

Deno.test("an emitted backend checks its configuration and seed before it starts", async (t) => {
  const testDb = await openTestDb();
  const fixture = await createFixtureSite(
    testDb.db,
    new ManualClock("2026-11-28T10:00:00Z"),
  );
  const { dir, schema } = await emit(testDb.db, {
    siteId: fixture.siteId,
    publicUrl: "http://media.example",
  });
  await testDb.close();
  const siteId = fixture.siteId;
  const issuedPath = `${dir}/access/read-tokens.json`;
  const issuedText = await Deno.readTextFile(issuedPath);
  const token = await readToken(siteId, "app", [fixture.models.tag]);
  const owned = (tokens: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({ version: 1, site_id: siteId, tokens, ...extra });
  const refusal = async (env: Record<string, string>, code: string) => {
    const run = await refusedStart(dir, env);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`Cannot start \\(${code}\\)`));
    // Refused before any change: the embedded database folder was never created.
    assert.equal(await Deno.stat(`${dir}/data`).catch(() => null), null);
    return run.stderr;
  };
  try {
    await t.step(
      "GACC-007: owned ACCESS_CONFIG rules, each refused with owned_access_config_invalid",
      async () => {
        const bad = [
          owned([{
            ...token.entry,
            digest: (token.entry.digest as string).toUpperCase(),
          }]),
          owned([token.entry], { version: 2 }),
          owned([token.entry], { site_id: crypto.randomUUID() }),
          owned([{ ...token.entry, site_id: crypto.randomUUID() }]),
          owned([{ ...token.entry, capabilities: ["read", "write"] }]),
          owned([{ ...token.entry, models: ["not-a-model"] }]),
          owned([token.entry, { ...token.entry, digest: "a".repeat(64) }]),
          owned([token.entry, { ...token.entry, id: "other" }]),
          "{not json",
        ];
        for (const value of bad) {
          await refusal(
            { ACCESS_CONFIG: value },
            "owned_access_config_invalid",
          );
        }
      },
    );

    await t.step(
      "GACC-008: the union with issued tokens is refused on a shared id or digest",
      async () => {
        const issued = JSON.parse(issuedText);
        try {
          await Deno.writeTextFile(
            issuedPath,
            JSON.stringify({ ...issued, tokens: [token.entry] }),
          );
          await refusal(
            {
              ACCESS_CONFIG: owned([{
                ...token.entry,
                digest: "b".repeat(64),
              }]),
            },
            "access_token_id_conflict",
          );
          await refusal(
            { ACCESS_CONFIG: owned([{ ...token.entry, id: "mine" }]) },
            "access_config_union_invalid",
          );
          await Deno.writeTextFile(
            issuedPath,
            JSON.stringify({
              ...issued,
              tokens: [{ ...token.entry, digest: "X" }],
            }),
          );
          await refusal({}, "generated_access_tokens_invalid");
        } finally {
          await Deno.writeTextFile(issuedPath, issuedText);
        }
      },
    );

    await t.step(
      "GACC-009: a missing configuration or another SITE_ID refuses boot",
      async () => {
        await refusal({ SITE_ID: crypto.randomUUID() }, "site_id_mismatch");
        await Deno.remove(issuedPath);
        try {
          await refusal({}, "access_config_missing");
        } finally {
          await Deno.writeTextFile(issuedPath, issuedText);
        }
      },
    );

    await t.step(
      "GEN-026: dangling relation ids in the seed refuse before migrations",
      async () => {
        const seedPath = `${dir}/seed/content.json`;
        const seedText = await Deno.readTextFile(seedPath);
        const seed = JSON.parse(seedText) as {
          tables: { table: string; rows: Record<string, unknown>[] }[];
        };
        const rowId = crypto.randomUUID();
        const missing = crypto.randomUUID();
        seed.tables.find((x) => x.table === "bundle")!.rows.push({
          id: rowId,
          name: "Orphan",
          home_id: missing,
        });
        try {
          await Deno.writeTextFile(seedPath, JSON.stringify(seed));
          const stderr = await refusal({}, "relation_ids_dangling");
          const listed = JSON.parse(stderr.slice(stderr.indexOf("[")));
          assert.deepEqual(listed, [{
            model: "bundle",
            column: "home_id",
            row_id: rowId,
            missing,
          }]);
        } finally {
          await Deno.writeTextFile(seedPath, seedText);
        }
      },
    );

    await t.step(
      "GEN-040: the security settings are fixed; a changed one refuses boot",
      async () => {
        const path = `${dir}/generated/security.json`;
        const text = await Deno.readTextFile(path);
        const settings = JSON.parse(text);
        assert.deepEqual(settings, {
          requireGuardShape: true,
          validateGuardShapes: true,
          enableUpdateEach: false,
          guardResolutionOrder: "before-hooks",
          allowE2EGuardBypass: false,
          validateResolvedShapes: true,
          requireDefaultVariantOptIn: false,
        });
        try {
          await Deno.writeTextFile(
            path,
            JSON.stringify({ ...settings, allowE2EGuardBypass: true }),
          );
          const stderr = await refusal({}, "security_settings_fixed");
          assert.match(stderr, /allowE2EGuardBypass/);
        } finally {
          await Deno.writeTextFile(path, text);
        }
      },
    );

    // GEN-039: a custom route on a generated path cannot replace the generated one.
    await Deno.writeTextFile(
      `${dir}/custom/routes.ts`,
      `import type { Hono } from "hono";
export function customise(app: Hono): void {
  app.get("/api/tag", (c) => c.json(["unguarded"]));
  app.get("/api/hello", (c) => c.json({ hello: "world" }));
}
`,
    );

    await t.step(
      "GACC-004 GACC-005 GEN-034 GEN-039: without API_BEARER_TOKEN service writes are 503 writes_unavailable; without storage files 503",
      async () => {
        const backend = await startBackend(dir, schema, { noBearer: true });
        try {
          const write = await backend.call("/api/tag", {
            method: "POST",
            as: "anonymous",
            body: JSON.stringify({ data: { label: "x" } }),
          });
          assert.equal(write.status, 503);
          assert.deepEqual(write.body, { code: "writes_unavailable" });
          // GEN-034: without storage, private files are unavailable.
          const file = await backend.call(
            `/api/article/files/contract/${crypto.randomUUID()}`,
            { as: "anonymous" },
          );
          assert.equal(file.status, 503);
          assert.deepEqual(file.body, { code: "private_files_unavailable" });
          const read = await backend.call("/api/tag", { as: "anonymous" });
          assert.equal(read.status, 401); // GEN-039: the generated route's guard holds
          const custom = await backend.call("/api/hello", { as: "anonymous" });
          assert.deepEqual(custom.body, { hello: "world" });
          assert.deepEqual(
            (await backend.call("/api/article", { as: "anonymous" })).body,
            [],
          );
        } finally {
          await backend.stop();
          await Deno.remove(`${dir}/data`, { recursive: true }).catch(() => {});
        }
      },
    );

    await t.step(
      "the emitted project passes deno check, deno lint and its own tests",
      async () => {
        const run = async (
          args: string[],
          env: Record<string, string> = {},
        ) => {
          const out = await new Deno.Command(Deno.execPath(), {
            args,
            cwd: dir,
            env: { NO_COLOR: "1", ...env },
            stdout: "piped",
            stderr: "piped",
          }).output();
          const text = new TextDecoder().decode(out.stderr) +
            new TextDecoder().decode(out.stdout);
          assert.equal(out.code, 0, `deno ${args.join(" ")}:\n${text}`);
        };
        // The source is the same on either engine: checked once, in the embedded run.
        if (!ON_POSTGRES) {
          await run(["check", "main.ts", "tests/"]);
          await run(["lint"]);
        }
        const base = Deno.env.get("DATABASE_URL");
        const scratch = base ? await createScratchDatabase(base) : null;
        try {
          await run(
            ["task", "test"],
            scratch ? { TEST_DATABASE_URL: scratch.url } : {},
          );
        } finally {
          await scratch?.drop();
        }
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
