// svc-manage.mjs spawned as a separate Node process against the service on 127.0.0.1 (CLI-001..CLI-007, CLI-011, CLI-012, MAPI-022).
import assert from "node:assert/strict";
import { OPERATIONS } from "../../core/manage/contract/mod.ts";
import { openManageApp } from "../manage/helpers.ts";
import { runCli, serveOnLoopback } from "./svc_manage_support.ts";

Deno.test("svc-manage.mjs --help lists one kebab-case command per operation plus login, status, logout and mcp, and no raw request mode (CLI-004, CLI-007)", async () => {
  const run = await runCli(["--help"]);
  assert.equal(run.code, 0);
  const commands = [...run.stdout.matchAll(/^ {2}([a-z0-9-]+) /gm)].map((m) =>
    m[1]
  );
  assert.deepEqual(commands, [
    "login",
    "status",
    "logout",
    "mcp",
    ...OPERATIONS.map((o) => o.name),
  ]);
  for (const command of commands) {
    assert.match(command, /^[a-z0-9]+(-[a-z0-9]+)*$/);
  }
  assert.ok(!commands.some((c) => /^(request|raw|call|fetch)$/.test(c)));
  const help = await runCli(["add-language", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Add a language to the site/);
  assert.match(
    help.stdout,
    /POST \/api\/manage\/v1\/languages {3}scope settings:write/,
  );
  assert.match(help.stdout, /--key <key>/);
  const raw = await runCli(["request", "--url", "http://localhost:1"]);
  assert.equal(raw.code, 2);
  assert.match(raw.stderr, /Unknown command "request"/);
});

Deno.test("svc-manage.mjs refuses a non-https origin except on loopback hosts, with exit 2 (CLI-003)", async () => {
  for (
    const url of [
      "http://example.com",
      "http://10.0.0.1:8000",
      "ftp://localhost",
      "not a url",
    ]
  ) {
    const run = await runCli(["get-site", "--url", url], {
      env: { SVC_MANAGEMENT_TOKEN: "svm_x" },
    });
    assert.equal(run.code, 2, url);
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  }
  const missing = await runCli(["get-site"], {
    env: { SVC_MANAGEMENT_TOKEN: "svm_x" },
  });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--url/);
  // Loopback http is allowed: nothing listens on port 9, so this is a network failure (exit 2), not a refusal of the address.
  for (
    const url of ["http://localhost:9", "http://127.0.0.1:9", "http://[::1]:9"]
  ) {
    const run = await runCli(["get-site", "--url", url], {
      env: { SVC_MANAGEMENT_TOKEN: "svm_x" },
    });
    assert.equal(run.code, 2, url);
    assert.match(run.stderr, /^svc-manage: Cannot reach /, url);
    assert.equal(run.stderr.trim().split("\n").length, 1);
  }
});

Deno.test("svc-manage.mjs reads and writes with SVC_MANAGEMENT_TOKEN: key on stderr, --key replays, exit 0/1/2, the token never printed (CLI-002, CLI-005, CLI-006)", async () => {
  const t = await openManageApp();
  const server = serveOnLoopback(t.app.fetch);
  const home = await Deno.makeTempDir({ prefix: "stave-cli-" });
  const env = {
    SVC_URL: server.url,
    SVC_MANAGEMENT_TOKEN: t.secret,
    SVC_CONFIG_DIR: `${home}/config`,
  };
  try {
    const site = await runCli(["get-site"], { env });
    assert.equal(site.code, 0, site.stderr);
    assert.equal(JSON.parse(site.stdout).domain, "manage.test");

    const added = await runCli(["add-language", "--body", '{"code":"fr"}'], {
      env,
    });
    assert.equal(added.code, 0, added.stderr);
    const key = /^Idempotency-Key: (\S+)$/m.exec(added.stderr)?.[1];
    assert.ok(key, added.stderr);
    assert.equal(JSON.parse(added.stdout).code, "fr");

    const again = await runCli(
      ["add-language", "--body", '{"code":"fr"}', "--key", key],
      { env },
    );
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).replayed, true);
    assert.match(again.stderr, new RegExp(`Idempotency-Key: ${key}`));

    // A refusal of the service is exit 1 with the error body on stdout.
    const refused = await runCli(
      ["add-language", "--body", '{"code":"fr"}'],
      { env },
    );
    assert.equal(refused.code, 1);
    assert.equal(JSON.parse(refused.stdout).error.code, "locale_exists");
    assert.match(refused.stderr, /Refused 409 locale_exists/);

    // Usage problems are exit 2 and change nothing.
    for (
      const args of [
        ["add-language"],
        ["add-language", "--body", "[1]"],
        ["add-language", "--body", '{"code":"it"}', "--key", "has space"],
        ["get-site", "--body", "{}"],
        ["get-site", "--surprise", "1"],
        ["get-site", "--all"],
      ]
    ) {
      const run = await runCli(args, { env });
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    }
    // A wrong or revoked credential is exit 2; neither token is ever printed.
    const wrong = await runCli(["get-site"], {
      env: { ...env, SVC_MANAGEMENT_TOKEN: "svm_" + "x".repeat(43) },
    });
    assert.equal(wrong.code, 2);
    const noLogin = await runCli(["get-site"], {
      env: { SVC_URL: server.url, SVC_CONFIG_DIR: `${home}/config` },
    });
    assert.equal(noLogin.code, 2);
    assert.match(noLogin.stderr, /Not signed in/);
    for (const run of [site, added, again, refused, wrong, noLogin]) {
      assert.ok(
        !run.stdout.includes(t.secret) && !run.stderr.includes(t.secret),
      );
    }
    const languages = await (await t.call("GET", "/languages")).json();
    assert.deepEqual(
      languages.data.map((l: { code: string }) => l.code),
      ["en", "de", "fr"],
    );
    // The environment token is never saved.
    const saved = [...Deno.readDirSync(home)].map((e) => e.name);
    assert.deepEqual(saved, []);

    // A path parameter named like a global flag gets a flag named after its place.
    const settings = await runCli(
      ["get-settings", "--settings-key", "editorial"],
      { env },
    );
    assert.equal(settings.code, 0, settings.stderr);
    assert.equal(typeof JSON.parse(settings.stdout).revision, "number");

    const status = await runCli(["status"], { env });
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(
      JSON.parse(status.stdout).credential,
      "SVC_MANAGEMENT_TOKEN",
    );

    // The same file runs on Deno.
    const onDeno = await runCli(["get-site"], { env, runtime: "deno" });
    assert.equal(onDeno.code, 0, onDeno.stderr);
    assert.equal(JSON.parse(onDeno.stdout).domain, "manage.test");
  } finally {
    await server.shutdown();
    await t.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("svc-manage.mjs waits and retries on 429 and on idempotency_in_progress with Retry-After, with the same key; --all reads every page (CLI-011, CLI-012)", async () => {
  const seen: { key: string | null; cursor: string | null; path: string }[] =
    [];
  let busy = 2;
  // A stand-in service: the behaviour under test is the client's, not the API's.
  const server = serveOnLoopback((request) => {
    const url = new URL(request.url);
    seen.push({
      key: request.headers.get("idempotency-key"),
      cursor: url.searchParams.get("cursor"),
      path: url.pathname,
    });
    if (url.pathname.endsWith("/languages")) {
      if (busy-- === 2) {
        return Response.json({ error: { code: "rate_limited", message: "" } }, {
          status: 429,
          headers: { "retry-after": "0" },
        });
      }
      if (busy === 0) {
        return Response.json({
          error: { code: "idempotency_in_progress", message: "" },
        }, { status: 409, headers: { "retry-after": "0" } });
      }
      return Response.json({ code: "fr", is_default: false, position: 2 }, {
        status: 201,
      });
    }
    const page = Number(url.searchParams.get("cursor") ?? "0");
    return Response.json({
      data: [{ n: page * 2 }, { n: page * 2 + 1 }],
      page: {
        limit: 2,
        has_more: page < 2,
        next_cursor: page < 2 ? String(page + 1) : null,
      },
    });
  });
  try {
    const env = { SVC_URL: server.url, SVC_MANAGEMENT_TOKEN: "svm_test" };
    const added = await runCli(["add-language", "--body", '{"code":"fr"}'], {
      env,
    });
    assert.equal(added.code, 0, added.stderr);
    const keys = seen.map((s) => s.key);
    assert.equal(keys.length, 3);
    assert.ok(keys[0] && keys.every((k) => k === keys[0]));
    assert.equal(
      (added.stderr.match(/retrying in 0 s with the same key/g) ?? []).length,
      2,
    );

    seen.length = 0;
    const all = await runCli(["list-entries", "--model-id", "m", "--all"], {
      env,
    });
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(JSON.parse(all.stdout), {
      data: [0, 1, 2, 3, 4, 5].map((n) => ({ n })),
    });
    assert.deepEqual(seen.map((s) => s.cursor), [null, "1", "2"]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("svc-manage.mjs mcp is a stdio MCP server forwarding each line to the remote endpoint", async () => {
  const t = await openManageApp();
  const server = serveOnLoopback(t.app.fetch);
  try {
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "get_site", arguments: {} },
      },
    ].map((m) => JSON.stringify(m)).join("\n") + "\n";
    const run = await runCli(["mcp"], {
      env: { SVC_URL: server.url, SVC_MANAGEMENT_TOKEN: t.secret },
      stdin: lines,
    });
    assert.equal(run.code, 0, run.stderr);
    const answers = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(answers.map((a) => a.id), [1, 2, 3]);
    assert.equal(answers[0].result.protocolVersion, "2025-06-18");
    assert.ok(
      answers[1].result.tools.some((tool: { name: string }) =>
        tool.name === "get_site"
      ),
    );
    assert.equal(
      answers[2].result.structuredContent.body.domain,
      "manage.test",
    );
  } finally {
    await server.shutdown();
    await t.close();
  }
});
