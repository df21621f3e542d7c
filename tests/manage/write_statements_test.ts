// The Management API's statement budgets for a create, an update and a publish (docs/benchmarks.md,
// "Writes"): counts, not timings, so a change that adds reads to a write shows here.
import assert from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
import { statementsOf } from "../support/statements.ts";
import { withManageApp } from "./helpers.ts";

/** Statements of one create and one publish today: 7 and 14 (44 and 48 before the reads
 * each command repeated were shared, 38 and 43 before the projections were folded, 30 and 35
 * before the command's own reads and writes were folded, 15 and 16 before the policy gate's
 * installations were read with the entry; 15 and 15 before a draft skipped the projections of
 * published content, a create read its language, model and editorial document in one statement
 * and the search documents' published languages rode on the public items' first statement; 8
 * for a create before its handler left the model's read to the command's first statement).
 * The publish keeps one statement of room for a check page publishing may add; lower them when
 * a change saves some. */
const CREATE_BUDGET = 7;
const PUBLISH_BUDGET = 15;
/** Statements of one update of a draft's language today: 9 (27 before its reads and writes
 * were folded, its answer built from what it wrote and the policy gate's installations read
 * with the entry; 13 before a draft skipped the projections of published content). */
const UPDATE_BUDGET = 9;

Deno.test("a Management API create, update and publish run within their statement budgets (PGlite counts them)", () =>
  withManageApp(async (t) => {
    const made = await createModel(
      { db: t.services.db, clock: t.clock, siteId: t.siteId },
      {
        model: { name: "Posts", slug: "posts" },
        fields: [{
          key: "title",
          label: "Title",
          type: "text",
          required: true,
        }],
      },
    );
    if (!made.ok) throw new Error(JSON.stringify(made));
    const { secret } = await t.credential([
      "content:read",
      "content:write",
      "lifecycle:publish",
    ]);
    const created = await statementsOf(t.services.db, async () => {
      const res = await t.call("POST", "/entries", {
        secret,
        key: "create",
        body: {
          model_id: made.model.id,
          locale: "en",
          slug: "hello",
          fields: { title: "Hello" },
        },
      });
      return { status: res.status, body: await res.json() };
    });
    assert.equal(
      created.result.status,
      201,
      JSON.stringify(created.result.body),
    );
    const entry = created.result.body;
    const updated = await statementsOf(t.services.db, async () => {
      const res = await t.call("PUT", `/entries/${entry.id}`, {
        secret,
        key: "update",
        body: {
          locale: "en",
          fields: { title: "Hello again" },
          expected_current_version_id: entry.current_version_id,
        },
      });
      return { status: res.status, body: await res.json() };
    });
    assert.equal(
      updated.result.status,
      200,
      JSON.stringify(updated.result.body),
    );
    const saved = updated.result.body;
    const published = await statementsOf(t.services.db, async () => {
      const res = await t.call("POST", `/entries/${entry.id}/publish`, {
        secret,
        key: "publish",
        body: {
          expected_current_version_id: saved.current_version_id,
          expected_workflow_revision: saved.revision,
        },
      });
      return { status: res.status, body: await res.json() };
    });
    assert.equal(
      published.result.status,
      200,
      JSON.stringify(published.result.body),
    );
    if (
      created.statements === null || updated.statements === null ||
      published.statements === null
    ) return;
    console.log(
      "create",
      created.statements.length,
      "update",
      updated.statements.length,
      "publish",
      published.statements.length,
    );
    assert.ok(
      created.statements.length <= CREATE_BUDGET,
      `create: ${created.statements.length} statements:\n${
        created.statements.join("\n")
      }`,
    );
    assert.ok(
      updated.statements.length <= UPDATE_BUDGET,
      `update: ${updated.statements.length} statements:\n${
        updated.statements.join("\n")
      }`,
    );
    assert.ok(
      published.statements.length <= PUBLISH_BUDGET,
      `publish: ${published.statements.length} statements:\n${
        published.statements.join("\n")
      }`,
    );
  }));
