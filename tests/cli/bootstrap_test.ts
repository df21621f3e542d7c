// `deno task svc bootstrap`: a new installation for scripts and CI, as JSON, refused the second time.
import { equal, match, ok } from "node:assert/strict";
import { openDatabase } from "../../core/db/database.ts";
import { verifyPassword } from "../../core/auth/password.ts";
import { sha256Hex } from "../../core/auth/secrets.ts";
import { privateProcessEnv, runDeno } from "../support/process.ts";

const ARGS = [
  "run",
  "-A",
  "--unstable-kv",
  "cli/svc.ts",
  "bootstrap",
  "--json",
  "--domain",
  "cms.example.com",
  "--locales",
  "en,de",
  "--admin-email",
  "Ops@Example.com",
  "--credential-name",
  "ci",
  "--scopes",
  "content:read,content:write,lifecycle:publish",
];

Deno.test("svc bootstrap prints the site, admin and a once-shown svm_ credential; a rerun refuses and changes nothing", async () => {
  const p = await privateProcessEnv({ DEMO_SITE: "false" });
  try {
    const first = await runDeno(ARGS, p.env);
    equal(first.code, 0, first.stderr);
    const out = JSON.parse(first.stdout);
    equal(out.site.domain, "cms.example.com");
    equal(out.site.languages.join(","), "en,de");
    equal(out.admin.email, "ops@example.com");
    ok(out.admin.password.length >= 20);
    match(out.management_credential.secret, /^svm_[A-Za-z0-9_-]{43}$/);
    equal(out.management_credential.name, "ci");

    const db = await openDatabase(
      p.env.DATABASE_URL
        ? { url: p.env.DATABASE_URL }
        : { pglitePath: `${p.dataDir}/pglite` },
    );
    try {
      const user = await db.selectFrom("users").selectAll()
        .executeTakeFirstOrThrow();
      ok(await verifyPassword(out.admin.password, user.password_hash));
      equal(user.password_hash.includes(out.admin.password), false);
      const credential = await db.selectFrom("management_credentials")
        .selectAll().executeTakeFirstOrThrow();
      equal(
        credential.secret_digest,
        await sha256Hex(out.management_credential.secret),
      );
      const languages = await db.selectFrom("site_languages").selectAll()
        .orderBy("position").execute();
      equal(
        languages.map((l) => `${l.code}:${l.is_default}`).join(","),
        "en:true,de:false",
      );
    } finally {
      await db.destroy();
    }

    const second = await runDeno(ARGS, p.env);
    equal(second.code, 1);
    equal(second.stdout, "");
    match(second.stderr, /already exists/);
    const db2 = await openDatabase(
      p.env.DATABASE_URL
        ? { url: p.env.DATABASE_URL }
        : { pglitePath: `${p.dataDir}/pglite` },
    );
    try {
      equal((await db2.selectFrom("sites").selectAll().execute()).length, 1);
      equal((await db2.selectFrom("users").selectAll().execute()).length, 1);
      equal(
        (await db2.selectFrom("management_credentials").selectAll().execute())
          .length,
        1,
      );
    } finally {
      await db2.destroy();
    }
  } finally {
    await p.cleanup();
  }
});

Deno.test("svc bootstrap refuses an unknown scope and missing options, creating nothing", async () => {
  const p = await privateProcessEnv({ DEMO_SITE: "false" });
  try {
    const badScope = await runDeno(
      ARGS.map((a) =>
        a === "content:read,content:write,lifecycle:publish"
          ? "content:read,everything"
          : a
      ),
      p.env,
    );
    equal(badScope.code, 1);
    match(badScope.stderr, /Unknown scopes: everything/);
    const missing = await runDeno([
      "run",
      "-A",
      "--unstable-kv",
      "cli/svc.ts",
      "bootstrap",
      "--json",
    ], p.env);
    equal(missing.code, 2);
    match(missing.stderr, /--domain/);
    const retry = await runDeno(ARGS, p.env);
    equal(retry.code, 0, retry.stderr);
  } finally {
    await p.cleanup();
  }
});

Deno.test("a bad setting stops the command with a message naming it, never its value", async () => {
  const p = await privateProcessEnv({
    DATABASE_URL: "mysql://root:topsecret@db/x",
  });
  try {
    const result = await runDeno(ARGS, p.env);
    equal(result.code, 1);
    match(result.stderr, /setting DATABASE_URL/);
    equal(result.stderr.includes("topsecret"), false);
  } finally {
    await p.cleanup();
  }
});

Deno.test("svc credential creates another svm_ credential for an existing admin, refusing unknown people and scopes", async () => {
  const p = await privateProcessEnv({ DEMO_SITE: "false" });
  try {
    equal((await runDeno(ARGS, p.env)).code, 0);
    const base = [
      "run",
      "-A",
      "--unstable-kv",
      "cli/svc.ts",
      "credential",
      "--json",
      "--domain",
      "cms.example.com",
    ];
    const made = await runDeno([
      ...base,
      "--admin-email",
      "ops@example.com",
      "--name",
      "reader",
      "--scopes",
      "content:read",
    ], p.env);
    equal(made.code, 0, made.stderr);
    const out = JSON.parse(made.stdout);
    match(out.management_credential.secret, /^svm_[A-Za-z0-9_-]{43}$/);
    equal(out.management_credential.name, "reader");
    const stranger = await runDeno([
      ...base,
      "--admin-email",
      "nobody@example.com",
      "--name",
      "x",
      "--scopes",
      "content:read",
    ], p.env);
    equal(stranger.code, 1);
    const badScope = await runDeno([
      ...base,
      "--admin-email",
      "ops@example.com",
      "--name",
      "x",
      "--scopes",
      "everything",
    ], p.env);
    equal(badScope.code, 1);
    match(badScope.stderr, /invalid_request/);
  } finally {
    await p.cleanup();
  }
});
