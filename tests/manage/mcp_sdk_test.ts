// The official MCP TypeScript SDK client (Streamable HTTP) against the endpoint served on 127.0.0.1 (MCP-001, MCP-009..MCP-011, MAPI-022).
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// The package's "./*" export maps types to `<name>.js.d.ts`, a file it does not ship: the
// types are named here, as Deno reads them from node_modules/ (not from its own cache).
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { SCOPES } from "../../core/access/scopes.ts";
import { OUTPUT_SCHEMA } from "../../core/manage/mcp/tools.ts";
import { openManageApp } from "./helpers.ts";
import { ON_POSTGRES } from "../support/db.ts";

Deno.test("the MCP SDK client initializes, lists tools, calls a read and a write tool; every structuredContent validates against the one answer shape", async () => {
  const t = await openManageApp();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    t.app.fetch,
  );
  const url = new URL(`http://127.0.0.1:${server.addr.port}/api/manage/mcp`);
  const client = new Client({ name: "stave-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${t.secret}` } },
  });
  try {
    await client.connect(transport);
    // The SDK asks for its newest version (newer than ours) and gets ours.
    assert.equal(transport.protocolVersion, "2025-06-18");
    assert.equal(client.getServerVersion()?.name, "stave-manage");

    const { tools } = await client.listTools();
    const names = tools.map((tool: { name: string }) => tool.name);
    assert.ok(names.includes("get_site"));
    assert.ok(names.includes("add_language"));
    assert.ok(names.includes("put_settings"));
    // The fixture credential holds content:read and settings:write only.
    assert.ok(!names.includes("create_model"));

    const validator = new AjvJsonSchemaValidator();
    const check = (name: string, structured: unknown) => {
      const outcome = validator.getValidator(OUTPUT_SCHEMA)(structured);
      assert.equal(outcome.valid, true, `${name}: ${outcome.errorMessage}`);
    };

    const site = await client.callTool({ name: "get_site", arguments: {} });
    assert.equal(site.isError, false);
    const siteAnswer = site.structuredContent as {
      status: number;
      body: { domain: string };
    };
    assert.equal(siteAnswer.status, 200);
    assert.equal(siteAnswer.body.domain, "manage.test");
    check("get_site", site.structuredContent);

    const added = await client.callTool({
      name: "add_language",
      arguments: { body: { code: "fr" } },
    });
    const addAnswer = added.structuredContent as {
      status: number;
      idempotency_key: string;
      body: { code: string };
    };
    assert.equal(addAnswer.status, 201);
    assert.equal(addAnswer.body.code, "fr");
    check("add_language", added.structuredContent);

    const replay = await client.callTool({
      name: "add_language",
      arguments: {
        body: { code: "fr" },
        idempotency_key: addAnswer.idempotency_key,
      },
    });
    check("add_language", replay.structuredContent);
    assert.equal(
      (replay.structuredContent as { body: { replayed: boolean } }).body
        .replayed,
      true,
    );

    // A refusal still answers structuredContent in the declared shape.
    const refused = await client.callTool({
      name: "add_language",
      arguments: { body: { code: "fr" } },
    });
    assert.equal(refused.isError, true);
    check("add_language", refused.structuredContent);

    // An argument mistake is a tool result too, naming the argument to correct.
    const mistaken = await client.callTool({
      name: "add_language",
      arguments: { body: { code: 5 } },
    });
    assert.equal(mistaken.isError, true);
    check("add_language", mistaken.structuredContent);
    assert.match(
      (mistaken.structuredContent as { body: { error: { message: string } } })
        .body.error.message,
      /body\.code:/,
    );

    const languages = await client.callTool({
      name: "list_languages",
      arguments: {},
    });
    check("list_languages", languages.structuredContent);
    assert.deepEqual(
      (languages.structuredContent as {
        body: { data: { code: string }[] };
      }).body.data.map((l) => l.code),
      ["en", "de", "fr"],
    );
  } finally {
    await client.close();
    await server.shutdown();
    await t.close();
  }
});

/** The MCP Inspector's command-line mode, from npm, as a person would run it. */
const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

Deno.test({
  name:
    "the MCP Inspector's --cli mode lists the tools of the endpoint and finds no schema portability problem (MAPI-022, MCP-009)",
  // npx fetches the Inspector from npm on first use; later runs use its cache.
  sanitizeResources: false,
  // What the Inspector reads is the tool list, the same on either engine: it runs in the
  // embedded run only, as CI runs the suite once per engine.
  ignore: ON_POSTGRES,
  async fn() {
    const t = await openManageApp();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      t.app.fetch,
    );
    // Every tool: a credential holding every scope.
    const everything = await t.credential([...SCOPES]);
    const home = await Deno.makeTempDir({ prefix: "stave-inspector-" });
    try {
      const url = `http://127.0.0.1:${server.addr.port}/api/manage/mcp`;
      const output = await new Deno.Command("npx", {
        args: [
          "-y",
          INSPECTOR,
          "--cli",
          url,
          "--transport",
          "http",
          "--method",
          "tools/list",
          "--strict",
          "--header",
          `Authorization: Bearer ${everything.secret}`,
        ],
        env: { MCP_CATALOG_PATH: `${home}/mcp.json`, NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(output.stdout);
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 0, stderr);
      // --strict prints each schema portability finding; there must be none (MCP-009).
      assert.doesNotMatch(stderr, /^(Warning|Error): tool/m, stderr);
      assert.doesNotMatch(stderr, /[1-9]\d* (errors?|warnings?)/, stderr);
      const listed = JSON.parse(stdout) as { tools: { name: string }[] };
      const names = listed.tools.map((tool) => tool.name);
      assert.ok(names.includes("get_site"), stdout.slice(0, 500));
      assert.ok(names.includes("add_language"));
      assert.ok(names.includes("create_model"));
    } finally {
      await server.shutdown();
      await t.close();
      await Deno.remove(home, { recursive: true });
    }
  },
});
