// A multipart operation's tool: content_base64 and file_name become the file part; the 8 MiB edge is refused before sending (MCP-012).
import assert from "node:assert/strict";
import { z } from "zod";
import { operation } from "../contract/operation.ts";
import { callTool } from "./call.ts";
import { argumentSchemaOf, toolOf } from "./tools.ts";
import { REMOTE_UPLOAD_MAX_BYTES } from "./upload.ts";

// The media upload route comes with the media library (issue 12); this fixture declares one like it.
const uploadThing = operation({
  name: "upload-thing",
  method: "POST",
  path: "/things",
  summary: "Upload a thing",
  tag: "things",
  scope: "media:write",
  key: { retention: "short", settle: "rerun" },
  status: 201,
  multipart: { file: "file" },
  body: z.strictObject({ alt_texts: z.record(z.string(), z.string()) }),
  answer: z.strictObject({ id: z.string() }),
});

Deno.test("an upload tool takes content_base64 and file_name and sends one multipart request with the key", async () => {
  const tool = toolOf(uploadThing);
  assert.deepEqual(
    (tool.inputSchema.required as string[]).sort(),
    ["body", "content_base64", "file_name"],
  );
  const args = {
    content_base64: btoa("GIF89a"),
    file_name: "tiny.gif",
    body: { alt_texts: { en: "Tiny" } },
  };
  assert.equal(argumentSchemaOf(uploadThing).safeParse(args).success, true);
  const sent: Request[] = [];
  const answer = await callTool(tool, args, {
    origin: "http://localhost:8000",
    authorization: "Bearer x",
    newKey: () => "made-key",
    dispatch: (request) => {
      sent.push(request);
      return Promise.resolve(Response.json({ id: "m1" }, { status: 201 }));
    },
  });
  assert.deepEqual(answer, {
    status: 201,
    idempotency_key: "made-key",
    body: { id: "m1" },
  });
  assert.equal(sent.length, 1);
  assert.equal(sent[0].url, "http://localhost:8000/api/manage/v1/things");
  assert.equal(sent[0].headers.get("idempotency-key"), "made-key");
  const form = await sent[0].formData();
  const file = form.get("file") as File;
  assert.equal(file.name, "tiny.gif");
  assert.equal(await file.text(), "GIF89a");
  assert.equal(form.get("alt_texts"), '{"en":"Tiny"}');
});

Deno.test("an upload tool refuses a file one byte over 8 MiB with media_too_large and sends nothing (MCP-012)", async () => {
  const tool = toolOf(uploadThing);
  const sent: Request[] = [];
  const dispatch = (request: Request) => {
    sent.push(request);
    return Promise.resolve(Response.json({ id: "m1" }, { status: 201 }));
  };
  const over = await callTool(tool, {
    content_base64: "AAAA".repeat(REMOTE_UPLOAD_MAX_BYTES / 3 + 1),
    file_name: "big.bin",
    body: { alt_texts: {} },
  }, { origin: "http://localhost", authorization: "Bearer x", dispatch });
  assert.equal(over.status, 413);
  assert.equal(
    (over.body as { error: { code: string } }).error.code,
    "media_too_large",
  );
  assert.equal(sent.length, 0);
  assert.ok(over.idempotency_key);
});
