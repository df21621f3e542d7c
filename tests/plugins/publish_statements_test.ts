// The plugin publish's statement budget (docs/benchmarks.md, "Writes"): the count the service
// sends for one pinned publish through the plugin API, so a change that adds reads shows here.
import { equal, ok } from "node:assert/strict";
import { statementsOf } from "../support/statements.ts";
import { withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

/** Statements of one plugin publish today: 14 (51 before the reads it repeated were shared, 45
 * before the projections were folded, 35 before the command's own reads and writes were folded,
 * 15 before the search documents' published languages rode on the public items' first
 * statement). No room is kept: a check publishing adds must fold into a statement it already
 * runs. */
const PLUGIN_PUBLISH_BUDGET = 14;

Deno.test("a plugin publish runs within its statement budget, on PGlite where statements can be counted", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { instances } = await w.entry({ en: { title: "A" } });
    const delegation = await w.delegate(id, instances.en);
    const read = await w.plugin.api(
      id,
      `/content/${instances.en}?delegation_id=${delegation}`,
    );
    const data = (await read.json() as Json).data as Json;
    const { result, statements } = await statementsOf(
      w.services.db,
      async () => {
        const res = await w.plugin.api(
          id,
          `/content/${instances.en}/transitions/published`,
          {
            body: {
              kind: "publish",
              expected_current_version_id: data.current_version_id,
              expected_workflow_revision: (data.workflow as Json).revision,
              delegation_id: delegation,
            },
            key: "budget",
          },
        );
        return { status: res.status, body: await res.json() as Json };
      },
    );
    equal(result.status, 200, JSON.stringify(result.body));
    if (statements === null) return; // PostgreSQL: the same code, not counted here.
    ok(
      statements.length <= PLUGIN_PUBLISH_BUDGET,
      `${statements.length} statements:\n${statements.join("\n")}`,
    );
  }));
