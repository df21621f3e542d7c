// POST /api/manage/mcp through app.request(): JSON-RPC rules, versions, origin, credentials, scopes and tool calls (MCP-001..MCP-011).
import assert from "node:assert/strict";
import { OPERATIONS } from "../../core/manage/contract/mod.ts";
import { toolName } from "../../core/manage/mcp/tools.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";

const MCP = "http://localhost/api/manage/mcp";

/** Posts one raw message to the endpoint. */
function post(
  t: ManageFixture,
  body: unknown,
  options: {
    secret?: string | null;
    headers?: Record<string, string>;
    raw?: boolean;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...options.headers,
  };
  const secret = options.secret === undefined ? t.secret : options.secret;
  if (secret !== null) headers.authorization = `Bearer ${secret}`;
  return Promise.resolve(t.app.request(MCP, {
    method: "POST",
    headers,
    body: options.raw ? body as string : JSON.stringify(body),
  }));
}

function request(id: unknown, method: string, params?: unknown) {
  return params === undefined
    ? { jsonrpc: "2.0", id, method }
    : { jsonrpc: "2.0", id, method, params };
}

Deno.test("MCP initialize answers one JSON body and negotiates the version down, never echoing an unknown one (MCP-001, MCP-005)", () =>
  withManageApp(async (t) => {
    for (
      const [asked, agreed] of [
        ["2025-06-18", "2025-06-18"],
        ["2025-03-26", "2025-03-26"],
        ["2099-01-01", "2025-06-18"],
        ["2024-11-05", "2025-06-18"],
        [7, "2025-06-18"],
      ] as const
    ) {
      const response = await post(
        t,
        request(1, "initialize", {
          protocolVersion: asked,
          capabilities: {},
          clientInfo: { name: "test", version: "1" },
        }),
      );
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type")!, /application\/json/);
      const body = await response.json();
      assert.equal(body.id, 1);
      assert.equal(body.result.protocolVersion, agreed);
      assert.deepEqual(body.result.capabilities, {
        tools: { listChanged: false },
      });
      assert.equal(response.headers.get("mcp-session-id"), null);
    }
  }));

Deno.test("MCP GET and DELETE are 405, a notification is 202, a batch is refused, id 0 is a request (MCP-002, MCP-003, MCP-004)", () =>
  withManageApp(async (t) => {
    for (const method of ["GET", "DELETE"]) {
      const response = await t.app.request(MCP, {
        method,
        headers: { authorization: `Bearer ${t.secret}` },
      });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get("allow"), "POST");
      assert.equal((await refusal(response)).code, "method_not_allowed");
    }
    const note = await post(t, {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    assert.equal(note.status, 202);
    assert.equal(await note.text(), "");
    const batch = await post(t, [request(1, "ping"), request(2, "ping")]);
    assert.equal(batch.status, 400);
    const refused = await batch.json();
    assert.equal(refused.error.code, -32600);
    assert.equal(refused.id, null);
    const zero = await post(t, request(0, "ping"));
    assert.equal(zero.status, 200);
    assert.deepEqual(await zero.json(), { jsonrpc: "2.0", id: 0, result: {} });
  }));

Deno.test("MCP malformed messages and unknown methods get JSON-RPC's standard codes, never a 500", () =>
  withManageApp(async (t) => {
    const cases: [unknown, boolean, number, number][] = [
      ["{not json", true, 400, -32700],
      ['"a string"', true, 400, -32600],
      [{ jsonrpc: "1.0", id: 1, method: "ping" }, false, 400, -32600],
      [{ jsonrpc: "2.0", id: 1, method: 5 }, false, 400, -32600],
      [{ jsonrpc: "2.0", id: null, method: "ping" }, false, 400, -32600],
      [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, false, 400, -32600],
      [
        { jsonrpc: "2.0", id: 1, method: "ping", params: [1] },
        false,
        400,
        -32600,
      ],
      [request(3, "resources/list"), false, 200, -32601],
      [request(4, "tools/call", { name: "no_such_tool" }), false, 200, -32602],
      [request(5, "tools/call", {}), false, 200, -32602],
    ];
    for (const [body, raw, status, code] of cases) {
      const response = await post(t, body, { raw });
      assert.equal(response.status, status, JSON.stringify(body));
      const answer = await response.json();
      assert.equal(answer.error.code, code, JSON.stringify(body));
      assert.equal(answer.jsonrpc, "2.0");
    }
  }));

Deno.test("MCP another MCP-Protocol-Version header is 400; both supported ones are accepted (MCP-005)", () =>
  withManageApp(async (t) => {
    for (const version of ["2025-06-18", "2025-03-26"]) {
      const ok = await post(t, request(1, "ping"), {
        headers: { "mcp-protocol-version": version },
      });
      assert.equal(ok.status, 200);
    }
    const old = await post(t, request(1, "ping"), {
      headers: { "mcp-protocol-version": "2024-11-05" },
    });
    assert.equal(old.status, 400);
    assert.equal((await refusal(old)).code, "invalid_request");
  }));

Deno.test("MCP Origin must be the public origin; a missing Origin is allowed (MCP-008)", () =>
  withManageApp(async (t) => {
    const evil = await post(t, request(1, "ping"), {
      headers: { origin: "https://evil.example" },
    });
    assert.equal(evil.status, 403);
    assert.equal((await refusal(evil)).code, "forbidden");
    const nullOrigin = await post(t, request(1, "ping"), {
      headers: { origin: "null" },
    });
    assert.equal(nullOrigin.status, 403);
    const own = await post(t, request(1, "ping"), {
      headers: { origin: t.services.config.publicUrl },
    });
    assert.equal(own.status, 200);
  }));

Deno.test("MCP the credential is re-read on every message: missing is 401, revoked is 401 on the next one (MCP-006, MCP-007)", () =>
  withManageApp(async (t) => {
    const missing = await post(t, request(1, "ping"), { secret: null });
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get("www-authenticate")!, /^Bearer /);
    const first = await post(t, request(1, "tools/list"));
    assert.equal(first.status, 200);
    await t.services.db.updateTable("management_credentials")
      .set({ revoked_at: t.clock.now() }).where("id", "=", t.credentialId)
      .execute();
    const next = await post(t, request(2, "tools/list"));
    assert.equal(next.status, 401);
    const body = await next.text();
    assert.ok(!body.includes(t.secret));
  }));

Deno.test("MCP tools/list lists the operations the credential's scopes allow, in snake case, with input schemas (MCP-009)", () =>
  withManageApp(async (t) => {
    const reader = await t.credential(["content:read"]);
    const listed = await (await post(t, request(1, "tools/list"), {
      secret: reader.secret,
    })).json();
    const names = listed.result.tools.map((tool: { name: string }) =>
      tool.name
    );
    const expected = OPERATIONS.filter((o) => o.scope === "content:read").map(
      toolName,
    );
    assert.deepEqual(names, expected);
    assert.ok(names.includes("get_site"));
    assert.ok(!names.includes("add_language"));
    for (const tool of listed.result.tools) {
      assert.match(tool.name, /^[a-z0-9_]+$/);
      assert.equal(tool.inputSchema.type, "object");
      // One answer shape for every tool, stated once in initialize's instructions.
      assert.equal(tool.outputSchema, undefined);
    }
    const writer = await t.credential(["content:read", "settings:write"]);
    const wide = await (await post(t, request(2, "tools/list"), {
      secret: writer.secret,
    })).json();
    const addLanguage = wide.result.tools.find((tool: { name: string }) =>
      tool.name === "add_language"
    );
    assert.ok(addLanguage.inputSchema.properties.idempotency_key);
    assert.deepEqual(addLanguage.inputSchema.properties.body.required, [
      "code",
    ]);
    // A tool the scopes do not allow is unknown to this credential.
    const hidden = await (await post(
      t,
      request(3, "tools/call", {
        name: "add_language",
        arguments: { body: { code: "fr" } },
      }),
      { secret: reader.secret },
    )).json();
    assert.equal(hidden.error.code, -32602);
  }));

Deno.test("MCP tools/call runs the operation through the API: structuredContent { status, idempotency_key, body }, a made key is returned and replays (MCP-010, MCP-011)", () =>
  withManageApp(async (t) => {
    const read = await (await post(
      t,
      request(1, "tools/call", { name: "get_site", arguments: {} }),
    )).json();
    assert.equal(read.result.isError, false);
    assert.equal(read.result.structuredContent.status, 200);
    assert.equal(read.result.structuredContent.body.domain, "manage.test");
    assert.equal("idempotency_key" in read.result.structuredContent, false);
    assert.deepEqual(
      JSON.parse(read.result.content[0].text),
      read.result.structuredContent,
    );

    const write = await (await post(
      t,
      request(2, "tools/call", {
        name: "add_language",
        arguments: { body: { code: "fr" } },
      }),
    )).json();
    const made = write.result.structuredContent;
    assert.equal(made.status, 201);
    assert.match(made.idempotency_key, /^[\x21-\x7E]{1,128}$/);
    assert.equal(made.body.code, "fr");

    const again = await (await post(
      t,
      request(3, "tools/call", {
        name: "add_language",
        arguments: {
          body: { code: "fr" },
          idempotency_key: made.idempotency_key,
        },
      }),
    )).json();
    assert.equal(again.result.structuredContent.status, 201);
    assert.equal(again.result.structuredContent.body.replayed, true);
    assert.equal(
      again.result.structuredContent.idempotency_key,
      made.idempotency_key,
    );

    // A refusal of the API is a tool result with isError and the error body.
    const refused = await (await post(
      t,
      request(4, "tools/call", {
        name: "add_language",
        arguments: { body: { code: "fr" }, idempotency_key: "other-key" },
      }),
    )).json();
    assert.equal(refused.result.isError, true);
    assert.equal(refused.result.structuredContent.status, 409);
    assert.equal(
      refused.result.structuredContent.body.error.code,
      "locale_exists",
    );
  }));

Deno.test("MCP wrong argument types and unknown arguments are tool results with isError naming the argument, and change nothing", () =>
  withManageApp(async (t) => {
    for (
      const [args, named] of [
        [{ body: { code: 5 } }, "body.code"],
        [{ body: { code: "fr", extra: true } }, "body.extra"],
        [
          { body: { code: "fr" }, idempotency_key: "has space" },
          "idempotency_key",
        ],
        [{ body: { code: "fr" }, surprise: 1 }, "surprise"],
        ["not an object", "arguments"],
      ] as const
    ) {
      const answer = await (await post(
        t,
        request(9, "tools/call", { name: "add_language", arguments: args }),
      )).json();
      assert.equal(answer.error, undefined, JSON.stringify(args));
      assert.equal(answer.result.isError, true);
      const content = answer.result.structuredContent;
      assert.equal(content.status, 400);
      assert.equal(content.body.error.code, "input_invalid");
      assert.ok(
        content.body.error.message.includes(`${named}:`),
        content.body.error.message,
      );
      assert.ok(Array.isArray(content.body.error.issues));
      assert.deepEqual(JSON.parse(answer.result.content[0].text), content);
    }
    const languages = await (await t.call("GET", "/languages")).json();
    assert.deepEqual(
      languages.data.map((l: { code: string }) => l.code),
      ["en", "de"],
    );
  }));

Deno.test("MCP messages share the credential's 120 per minute; a tool call counts once, as its API request", () =>
  withManageApp(async (t) => {
    for (let i = 1; i <= 119; i++) {
      const ok = await post(t, request(i, "ping"));
      assert.equal(ok.status, 200, `message ${i}`);
    }
    // The 120th request is the tool call's own API request.
    const call = await (await post(
      t,
      request(120, "tools/call", { name: "get_site", arguments: {} }),
    )).json();
    assert.equal(call.result.structuredContent.status, 200);
    const over = await post(t, request(121, "ping"));
    assert.equal(over.status, 429);
    assert.ok(Number(over.headers.get("retry-after")) >= 1);
    assert.equal((await refusal(over)).code, "rate_limited");
    t.clock.advance(60_000);
    assert.equal((await post(t, request(122, "ping"))).status, 200);
  }));
