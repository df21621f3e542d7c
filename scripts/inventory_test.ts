import { deepEqual } from "node:assert/strict";
import { idsNamedIn, parseInventory } from "./inventory.ts";

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
