// The MCP tool list an agent reads before doing anything: its size and the portability of its schemas (MCP-009, MAPI-022).
import assert from "node:assert/strict";
import { OPERATIONS } from "../../core/manage/contract/mod.ts";
import { buildTools, listedTool } from "../../core/manage/mcp/tools.ts";

/** What every tool of a full-scope credential may cost together, in bytes of JSON. */
const TOOL_LIST_BUDGET = 80 * 1024;

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
