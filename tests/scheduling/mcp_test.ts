// Plugin views, actions and operations as MCP tools, read from the credential's own plugin
// listing: listed only with `plugins:use`, named plugin_<plugin>_<kind>_<item>, automation-only
// operations left out, and each call run as its Management API route (spec 2 part 4.5; MCP rows).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Scope } from "../../core/access/scopes.ts";
import {
  type SchedulingWorld,
  SITE_HOST,
  withSchedulingWorld,
} from "./world.ts";

type Json = Record<string, unknown>;

async function mcpAs(w: SchedulingWorld, scopes: Scope[]) {
  const secret = await w.credential(scopes);
  let id = 0;
  return async (method: string, params: unknown) => {
    const res = await w.app.request(`http://${SITE_HOST}/api/manage/mcp`, {
      method: "POST",
      headers: {
        host: SITE_HOST,
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    equal(res.status, 200);
    return await res.json() as Json;
  };
}

const PREFIX = "plugin_dev_stave_scheduling_";

Deno.test("the scheduling plugin's views, action and operations are MCP tools that run as their routes; timeline-preview is not one (MCP-017, SOP-018)", () =>
  withSchedulingWorld(async (w) => {
    const rpc = await mcpAs(w, [
      "content:read",
      "lifecycle:publish",
      "plugins:use",
    ]);
    const listed = (await rpc("tools/list", {})).result as {
      tools: { name: string; inputSchema: Json }[];
    };
    const names = listed.tools.map((t) => t.name).filter((n) =>
      n.startsWith(PREFIX)
    ).sort();
    // Release edits and runs need workflow:release, which no credential holds; the
    // automation-only timeline preview is never a tool (MCP-017), nor the automation-only
    // schedule-draft (SOP-012).
    deepEqual(names, [
      `${PREFIX}action_schedule`,
      `${PREFIX}op_releases`,
      `${PREFIX}op_schedule_status`,
      `${PREFIX}view_calendar`,
      `${PREFIX}view_releases`,
    ]);
    const status = listed.tools.find((t) =>
      t.name === `${PREFIX}op_schedule_status`
    )!;
    deepEqual((status.inputSchema as { required: string[] }).required, [
      "instance_id",
    ]);

    const { instances } = await w.entry({ en: { title: "Via MCP" } });
    const ran = (await rpc("tools/call", {
      name: `${PREFIX}op_schedule_status`,
      arguments: { instance_id: instances.en, idempotency_key: "mcp-run-1" },
    })).result as { structuredContent: Json; isError: boolean };
    equal(ran.isError, false, JSON.stringify(ran));
    equal(ran.structuredContent.status, 200);
    equal(ran.structuredContent.idempotency_key, "mcp-run-1");
    equal((ran.structuredContent.body as Json).outcome, "completed");

    const link = (await rpc("tools/call", {
      name: `${PREFIX}view_calendar`,
      arguments: {},
    })).result as { structuredContent: { status: number; body: Json } };
    equal(link.structuredContent.status, 201);
    match(
      JSON.stringify(link.structuredContent.body),
      /svc_launch=/,
    );

    const bad = await rpc("tools/call", {
      name: `${PREFIX}op_schedule_status`,
      arguments: { instance_id: instances.en, surprise: 1 },
    });
    // An argument mistake is a tool result the agent can read and correct.
    const badResult = bad.result as Json;
    equal(badResult.isError, true);
    match(
      JSON.stringify(badResult.structuredContent),
      /surprise: unknown argument/,
    );
  }));

Deno.test("without plugins:use a credential sees and reaches no plugin tool", () =>
  withSchedulingWorld(async (w) => {
    const rpc = await mcpAs(w, ["content:read"]);
    const listed = (await rpc("tools/list", {})).result as {
      tools: { name: string }[];
    };
    ok(listed.tools.length > 0);
    equal(listed.tools.some((t) => t.name.startsWith("plugin_")), false);
    const called = await rpc("tools/call", {
      name: `${PREFIX}view_calendar`,
      arguments: {},
    });
    equal((called.error as Json).code, -32602);
  }));
