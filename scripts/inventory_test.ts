import { deepEqual } from "node:assert/strict";
import {
  idsInAssertionComments,
  idsInTestNames,
  idsNamedIn,
  parseInventory,
} from "./inventory.ts";

Deno.test("idsNamedIn reads single IDs and both range spellings", () => {
  deepEqual(
    idsNamedIn("covers SCH-004 (MOD-018..MOD-020), PEXT-015 to PEXT-016."),
    [
      "SCH-004",
      "MOD-018",
      "MOD-019",
      "MOD-020",
      "PEXT-015",
      "PEXT-016",
    ],
  );
  deepEqual(
    idsNamedIn("MOD-0189, XMOD-001a and a range ENT-001 to ENT-900")[0],
    "ENT-001",
  );
  deepEqual(idsNamedIn("ENT-001 to ENT-900").length, 101);
});

Deno.test("parseInventory keeps table rows only", () => {
  const rows = parseInventory(
    "## SCH Scheduling\n| ID | Capability | Test idea |\n|---|---|---|\n| SCH-001 | One pinned publish | Create |\n| D3 | dependency | x |\n",
  );
  deepEqual(rows, [{ id: "SCH-001", area: "SCH", text: "One pinned publish" }]);
});

Deno.test("idsInTestNames reads the names of Deno.test, its object form and t.step", () => {
  const source = [
    'Deno.test("publish refuses a stale pin (PUB-001)", async (t) => {',
    "  await t.step(`one step (PUB-002)`, () => {});",
    "});",
    'Deno.test({ name: "object form (PUB-003..PUB-004)", fn() {} });',
    'const label = "not a test (PUB-009)";',
  ].join("\n");
  deepEqual(idsInTestNames(source), [
    "PUB-001",
    "PUB-002",
    "PUB-003",
    "PUB-004",
  ]);
});

Deno.test("idsInAssertionComments credits comments on assertions, never a file header", () => {
  const source = [
    "// Header: covers MOD-018..MOD-023, credited by nothing.",
    'import { equal } from "node:assert/strict";',
    "",
    'Deno.test("x", async () => {',
    "  // MED-013: the limit at its edge, asserted below in this paragraph",
    "  const res = await upload();",
    "  equal(res.status, 413);",
    "",
    "  // MED-020: a comment no assertion follows credits nothing",
    "  await cleanUp();",
    "",
    "  assert.deepEqual(",
    "    body, // MED-026 on the call's own lines",
    "    {},",
    "  );",
    "  const url = 'http://x//MED-030';",
    '  await expectRefused(res, "gone"); // MED-027',
    "  ok(text.match(/a/)); // MED-028",
    "  const m = text.match(/MED-029/); // MED-029 not an assertion",
    "});",
  ].join("\n");
  deepEqual(idsInAssertionComments(source), [
    "MED-013",
    "MED-026",
    "MED-027",
    "MED-028",
  ]);
});
