// The MCP tool list an agent reads before doing anything: its size and the portability of its schemas (MCP-009, MAPI-022).
import assert from "node:assert/strict";
import { OPERATIONS } from "../../core/manage/contract/mod.ts";
import {
  argumentSchemaOf,
  buildTools,
  listedTool,
} from "../../core/manage/mcp/tools.ts";

/** What every tool of a full-scope credential may cost together, in bytes of JSON. */
const TOOL_LIST_BUDGET = 60 * 1024;

type Json = Record<string, unknown>;

/**
 * Constructs common MCP clients (and the Inspector's portability check) do not take: `$ref`,
 * `oneOf`/`allOf`/`not`/conditionals, a type given as a list, `propertyNames`, `patternProperties`.
 */
function portabilityProblems(schema: unknown, path: string): string[] {
  if (Array.isArray(schema)) {
    return schema.flatMap((s, i) => portabilityProblems(s, `${path}[${i}]`));
  }
  if (typeof schema !== "object" || schema === null) return [];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(schema as Json)) {
    if (
      [
        "$ref",
        "$defs",
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "propertyNames",
        "patternProperties",
        "dependentSchemas",
      ].includes(key)
    ) problems.push(`${path}: ${key}`);
    if (key === "type" && Array.isArray(value)) {
      problems.push(`${path}: type list`);
    }
    if (key === "properties") {
      for (const [name, sub] of Object.entries(value as Json)) {
        problems.push(...portabilityProblems(sub, `${path}.${name}`));
      }
    } else problems.push(...portabilityProblems(value, `${path}/${key}`));
  }
  return problems;
}

Deno.test("MCP tools/list for every tool stays within its budget, one short line of description each (MCP-009)", () => {
  const listed = buildTools(OPERATIONS).map(listedTool);
  const bytes = new TextEncoder().encode(JSON.stringify({ tools: listed }))
    .length;
  assert.ok(
    bytes <= TOOL_LIST_BUDGET,
    `tools/list is ${bytes} bytes for ${listed.length} tools`,
  );
  for (const tool of listed) {
    const description = tool.description as string;
    assert.ok(description.length <= 200, `${tool.name}: ${description}`);
    assert.doesNotMatch(description, /\b(GET|POST|PUT|DELETE) \//);
  }
});

Deno.test("MCP input schemas are portable: an object at the root, no $ref, oneOf, type lists or propertyNames (MCP-009)", () => {
  for (const tool of buildTools(OPERATIONS).map(listedTool)) {
    const schema = tool.inputSchema as Json;
    assert.equal(schema.type, "object", tool.name as string);
    assert.equal(typeof schema.properties, "object", tool.name as string);
    assert.equal(schema.anyOf, undefined, tool.name as string);
    assert.deepEqual(portabilityProblems(schema, tool.name as string), []);
  }
});

Deno.test("a shape listed again points to where it is written out, in a tool of the same scope, and the server still checks the place in full (MCP-009)", () => {
  const tools = buildTools(OPERATIONS);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const at = (schema: Json, path: string) =>
    path.split(".").reduce(
      (s: Json, name) => (s.properties as Json)[name] as Json,
      schema,
    );
  let pointers = 0;
  const visit = (schema: unknown, tool: (typeof tools)[number]) => {
    if (typeof schema !== "object" || schema === null) return;
    const json = schema as Json;
    const pointer = /^Same shape as (?:([a-z_]+) )?([\w.]+)$/.exec(
      String(json.description ?? ""),
    );
    if (pointer) {
      pointers++;
      const target = pointer[1] ? byName.get(pointer[1])! : tool;
      assert.ok(target, json.description as string);
      // Whoever sees this tool sees the one holding the shape.
      assert.equal(target.operation.scope, tool.operation.scope);
      const written = at(target.inputSchema, pointer[2]);
      assert.ok(written && !/^Same shape/.test(String(written.description)));
      if (json.type) assert.equal(json.type, written.type);
    }
    for (const value of Object.values(json)) visit(value, tool);
  };
  for (const tool of tools) visit(tool.inputSchema, tool);
  assert.ok(pointers >= 5, `${pointers} pointers`);

  // relate_entries lists connect as a pointer to set; a wrong item there is still refused.
  const relate = byName.get("relate_entries")!;
  const connect = at(relate.inputSchema, "body.connect");
  assert.equal(connect.description, "Same shape as body.set");
  const body = {
    id: crypto.randomUUID(),
    locale: "en",
    field: "tags",
    expected_current_version_id: crypto.randomUUID(),
  };
  const full = argumentSchemaOf(relate.operation);
  assert.ok(
    full.safeParse({ body: { ...body, connect: [crypto.randomUUID()] } })
      .success,
  );
  // (Each target's own shape is checked by the route, which names the item.)
  assert.ok(!full.safeParse({ body: { ...body, connect: "x" } }).success);
  // The idempotency key is listed bare; its rule still applies (stated in the instructions).
  assert.deepEqual((relate.inputSchema.properties as Json).idempotency_key, {
    type: "string",
  });
  assert.ok(!full.safeParse({ body, idempotency_key: "has space" }).success);
  assert.ok(
    !full.safeParse({ body, idempotency_key: "x".repeat(129) }).success,
  );
  // Unknown arguments are refused though roots no longer say additionalProperties: false.
  assert.equal(relate.inputSchema.additionalProperties, undefined);
  assert.ok(!full.safeParse({ body, extra: 1 }).success);
});

Deno.test("anyOf branches are merged only into an exact equivalent: constants into an enum, a format beside the bare type into the type (MCP-009)", () => {
  const listed = new Map(
    buildTools(OPERATIONS).map((t) => [t.name, t.inputSchema]),
  );
  const listEntries = listed.get("list_entries")!.properties as Json;
  assert.deepEqual(
    { ...(listEntries.model_id as Json), description: undefined },
    { type: "string", description: undefined },
  );
  const text = JSON.stringify(listed.get("put_settings"));
  assert.ok(
    text.includes(
      '"status":{"type":"integer","enum":[301,302,307,308,410,451]}',
    ),
    text,
  );
  // A uuid-or-null stays an anyOf: no single type says it.
  assert.ok(
    JSON.stringify([...listed.values()]).includes(
      '{"anyOf":[{"type":"string","format":"uuid"},{"type":"null"}]}',
    ),
  );
});
