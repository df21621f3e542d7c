// The import and export operations as MCP tools (spec 2 part 4.5, MCP-012): upload_import_part takes
// content_base64, id and part; read_export_chunk and read_import_artifact answer one byte range.
import assert from "node:assert/strict";
import { withManageApp } from "../manage/helpers.ts";
import { sha256 } from "./helpers.ts";

const MCP = "http://localhost/api/manage/mcp";

Deno.test("MCP-013, MCP-014: an export read with read_export_chunk, sent back with upload_import_part, imported with advance_import", () =>
  withManageApp(async (t) => {
    const cred = await t.credential(["data:import", "data:export"]);
    let id = 0;
    const tool = async (name: string, args: Record<string, unknown>) => {
      const response = await t.app.request(MCP, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${cred.secret}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++id,
          method: "tools/call",
          params: { name, arguments: args },
        }),
      });
      const answer = await response.json();
      return answer.result.structuredContent as {
        status: number;
        idempotency_key?: string;
        body: Record<string, unknown>;
      };
    };
    const listed = await (await t.app.request(MCP, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${cred.secret}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "tools/list" }),
    })).json();
    const upload = listed.result.tools.find((t: { name: string }) =>
      t.name === "upload_import_part"
    );
    assert.deepEqual(upload.inputSchema.required.sort(), [
      "content_base64",
      "id",
      "part",
    ]);

    let job = (await tool("create_export", { body: {} })).body;
    while (job.state === "building") {
      job = (await tool("advance_export", { id: job.id })).body;
    }
    const chunk = await tool("read_export_chunk", { id: job.id, page: 1 });
    assert.equal(chunk.status, 200);
    assert.deepEqual(Object.keys(chunk.body).sort(), [
      "content_base64",
      "content_type",
      "length",
      "next_offset",
      "next_page",
      "offset",
      "page",
      "sha256",
      "total",
    ]);
    assert.equal(chunk.body.next_page, null);
    const bytes = Uint8Array.from(
      atob(chunk.body.content_base64 as string),
      (c) => c.charCodeAt(0),
    );
    assert.equal(await sha256(bytes), chunk.body.sha256);

    const source = await tool("create_import_source", {
      body: { name: "MCP", format: "stave-archive" },
    });
    assert.equal(source.status, 201);
    const created = await tool("create_import", {
      body: { source_id: source.body.id },
    });
    const importId = created.body.id;
    const tooBig = await tool("upload_import_part", {
      id: importId,
      part: "1",
      content_base64: "AAAA".repeat((5 * 1024 * 1024) / 3 + 1),
    });
    assert.equal(tooBig.status, 413);
    assert.equal(
      (tooBig.body.error as { code: string }).code,
      "payload_too_large",
    );
    const notBase64 = await tool("upload_import_part", {
      id: importId,
      part: "1",
      content_base64: "***",
    });
    assert.equal(notBase64.status, 400);
    const part = await tool("upload_import_part", {
      id: importId,
      part: "1",
      content_base64: chunk.body.content_base64,
    });
    assert.equal(part.status, 200, JSON.stringify(part));
    assert.equal(part.body.sha256, chunk.body.sha256);
    assert.ok(part.idempotency_key);
    const complete = await tool("complete_import_archive", {
      id: importId,
      body: { sha256: chunk.body.sha256 },
    });
    assert.equal(complete.body.state, "archive_received");
    let state = complete.body;
    for (let i = 0; i < 20 && state.state !== "completed"; i++) {
      state = (await tool("advance_import", { id: importId })).body;
    }
    assert.equal(state.state, "completed", JSON.stringify(state));
    const receipt = await tool("read_import_artifact", {
      id: importId,
      artifact: "receipt",
    });
    assert.equal(receipt.status, 200);
    assert.equal(receipt.body.content_type, "application/json");
    const problems = await tool("read_import_artifact", {
      id: importId,
      artifact: "problems",
    });
    assert.equal(problems.body.total, 0);
  }));
