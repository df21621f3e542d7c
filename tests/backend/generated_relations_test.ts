// Relations of the fixture's generated backend, over HTTP against its own process: list routes,
// several-model lists, with-relations, hierarchies (the database refuses loops and taken
// targets for concurrent writers too) and property-based runs against a simple model.
import assert from "node:assert/strict";
import fc from "fast-check";
import pg from "pg";
import { fixtureBackend, whereId } from "./fixture_backend.ts";

type Row = Record<string, unknown>;
type Ref = { model: string; id: string };
const code = (body: unknown) => (body as { code: string }).code;

Deno.test("generated fixture backend: relations over HTTP", async (t) => {
  const b = await fixtureBackend();
  const post = async (path: string, data: unknown) => {
    const res = await b.call(path, {
      method: "POST",
      body: JSON.stringify({ data }),
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return (res.body as Row).id as string;
  };
  const put = (path: string, body: unknown, as?: string) =>
    b.call(path, { method: "PUT", body: JSON.stringify(body), as });
  const list = async (field: string, id: string, locale?: string) =>
    (await b.call(
      `/api/article/relations/${field}?id=${id}${
        locale ? `&locale=${locale}` : ""
      }`,
    )).body as Ref[];
  try {
    const tags: string[] = [];
    for (let i = 0; i < 5; i++) {
      tags.push(await post("/api/tag", { label: `t${i}` }));
    }
    const sections: string[] = [];
    for (let i = 0; i < 4; i++) {
      sections.push(await post("/api/section", { heading: `s${i}` }));
    }
    const a1 = await post("/api/article", {});
    const a2 = await post("/api/article", {});

    await t.step(
      "GREL-004 GREL-005: set, then connect and disconnect; GET answers the ordered list",
      async () => {
        const both = await put("/api/article/relations/tags", {
          where: { id: a1 },
          set: [tags[0]],
          connect: [tags[1]],
        });
        assert.equal(both.status, 400);
        const set = await put("/api/article/relations/tags", {
          where: { id: a1 },
          set: [tags[2], tags[0]],
        });
        assert.equal(set.status, 200);
        const moved = await put("/api/article/relations/tags", {
          where: { id: a1 },
          connect: [tags[1]],
          disconnect: [tags[2]],
        });
        assert.equal(moved.status, 200);
        assert.deepEqual(await list("tags", a1), [
          { model: "tag", id: tags[0] },
          { model: "tag", id: tags[1] },
        ]);
      },
    );

    await t.step(
      "GREL-006: duplicates, maxItems, missing targets and taken one-to-many targets",
      async () => {
        const dup = await put("/api/article/relations/tags", {
          where: { id: a1 },
          set: [tags[0], tags[0]],
        });
        assert.equal(dup.status, 422);
        assert.equal(code(dup.body), "relation_duplicate_target");
        const three = await put("/api/article/relations/tags", {
          where: { id: a1 },
          set: tags.slice(0, 3),
        });
        assert.equal(three.status, 200);
        const four = await put("/api/article/relations/tags", {
          where: { id: a1 },
          set: tags.slice(0, 4),
        });
        assert.equal(four.status, 422);
        assert.equal(code(four.body), "relation_too_many");
        const ghost = crypto.randomUUID();
        const missing = await put("/api/article/relations/tags", {
          where: { id: a1 },
          set: [ghost],
        });
        assert.equal(missing.status, 422);
        assert.equal(code(missing.body), "relation_target_missing");
        assert.deepEqual((missing.body as { ids: string[] }).ids, [ghost]);
        assert.equal((await list("tags", a1)).length, 3);
        assert.equal(
          (await put("/api/article/relations/sections", {
            where: { id: a1 },
            set: [sections[0]],
          }))
            .status,
          200,
        );
        const taken = await put("/api/article/relations/sections", {
          where: { id: a2 },
          set: [sections[0]],
        });
        assert.equal(taken.status, 409);
        assert.equal(code(taken.body), "relation_target_taken");
      },
    );

    await t.step(
      "GREL-006: a one-to-one target is held by one row (relation_target_taken)",
      async () => {
        const first = await put("/api/article", {
          where: { id: a1 },
          data: { lead_id: sections[3] },
        });
        assert.equal(first.status, 200);
        const second = await put("/api/article", {
          where: { id: a2 },
          data: { lead_id: sections[3] },
        });
        assert.equal(second.status, 409);
        assert.equal(code(second.body), "relation_target_taken");
      },
    );

    await t.step(
      "GREL-007: a list equal to the stored one writes nothing",
      async () => {
        const links = async () =>
          ((await b.call(
            `/api/article_tags?where=${
              encodeURIComponent(JSON.stringify({ owner_id: a1 }))
            }`,
          )).body as Row[]).map((r) => r.id).sort();
        const before = await links();
        const same = await put("/api/article/relations/tags", {
          where: { id: a1 },
          set: (await list("tags", a1)).map((r) => r.id),
        });
        assert.equal(same.status, 200);
        assert.deepEqual(await links(), before);
      },
    );

    await t.step(
      "GREL-008: the relation route inherits the owner's update access",
      async () => {
        const reader = await put(
          "/api/article/relations/tags",
          { where: { id: a1 }, set: [] },
          b.wildcardReader,
        );
        assert.equal(reader.status, 403);
        const anonymous = await put(
          "/api/article/relations/tags",
          { where: { id: a1 }, set: [] },
          "anonymous",
        );
        assert.equal(anonymous.status, 401);
        assert.equal((await list("tags", a1)).length, 3);
      },
    );

    await t.step(
      "GREL-009 GREL-010: several-model lists share one order; references name their model",
      async () => {
        const mixed = await put("/api/article/relations/mixed", {
          where: { id: a1 },
          set: [
            { model: "section", id: sections[1] },
            { model: "tag", id: tags[4] },
            { model: "section", id: sections[2] },
          ],
        });
        assert.equal(mixed.status, 200, JSON.stringify(mixed.body));
        assert.deepEqual(await list("mixed", a1), [
          { model: "section", id: sections[1] },
          { model: "tag", id: tags[4] },
          { model: "section", id: sections[2] },
        ]);
        const bare = await put("/api/article/relations/mixed", {
          where: { id: a1 },
          set: [tags[0]],
        });
        assert.equal(bare.status, 422);
        assert.equal(code(bare.body), "relation_target_model_required");
        const other = await put("/api/article/relations/mixed", {
          where: { id: a1 },
          set: [{ model: "category", id: tags[0] }],
        });
        assert.equal(other.status, 422);
        assert.equal(code(other.body), "relation_target_model_not_allowed");
      },
    );

    await t.step(
      "GREL-005: per-language lists are kept and read per language",
      async () => {
        assert.equal(
          (await put("/api/article/relations/picks", {
            where: { id: a1 },
            locale: "de",
            set: [tags[3]],
          }))
            .status,
          200,
        );
        assert.deepEqual((await list("picks", a1, "de")).map((r) => r.id), [
          tags[3],
        ]);
        assert.deepEqual(await list("picks", a1, "en"), []);
        const unknown = await put("/api/article/relations/picks", {
          where: { id: a1 },
          locale: "xx",
          set: [],
        });
        assert.equal(code(unknown.body), "unknown_locale");
      },
    );

    await t.step(
      "GREL-011 GREL-012 GREL-013: with-relations creates the row and its lists atomically",
      async () => {
        const id = crypto.randomUUID();
        const body = {
          data: { id, name: "Kit", home_id: sections[1] },
          relations: { items: [tags[0], tags[1]] },
        };
        const created = await b.call("/api/bundle/with-relations", {
          method: "POST",
          body: JSON.stringify(body),
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.deepEqual((created.body as Row).items, [tags[0], tags[1]]);
        assert.equal((created.body as Row).id, id);
        const again = await b.call("/api/bundle/with-relations", {
          method: "POST",
          body: JSON.stringify(body),
        });
        assert.equal(again.status, 409);
        assert.equal(code(again.body), "record_exists");
        const extra = await b.call("/api/bundle/with-relations", {
          method: "POST",
          body: JSON.stringify({ ...body, more: 1 }),
        });
        assert.equal(extra.status, 400);
        assert.equal(code(extra.body), "invalid_request");
        const before = ((await b.call("/api/bundle")).body as Row[]).length;
        const without = await b.call("/api/bundle/with-relations", {
          method: "POST",
          body: JSON.stringify({
            data: { name: "Empty", home_id: sections[1] },
          }),
        });
        assert.equal(without.status, 422);
        assert.equal(code(without.body), "relation_too_few");
        const tooMany = await b.call("/api/bundle/with-relations", {
          method: "POST",
          body: JSON.stringify({
            data: { name: "Big", home_id: sections[1] },
            relations: { items: tags.slice(0, 3) },
          }),
        });
        assert.equal(code(tooMany.body), "relation_too_many");
        // Neither refusal left a row behind: the row and its links are one transaction.
        assert.equal(
          ((await b.call("/api/bundle")).body as Row[]).length,
          before,
        );
        const reader = await b.call("/api/bundle/with-relations", {
          method: "POST",
          as: b.wildcardReader,
          body: JSON.stringify({ data: { name: "R", home_id: sections[1] } }),
        });
        assert.equal(reader.status, 403);
        assert.equal(code(reader.body), "forbidden");
      },
    );

    await t.step(
      "GREL-015: deleting a target removes its links; a required to-one refuses the delete",
      async () => {
        const del = await b.call("/api/section", {
          method: "DELETE",
          body: JSON.stringify({ where: { id: sections[2] } }),
        });
        assert.equal(del.status, 200);
        assert.deepEqual(await list("mixed", a1), [
          { model: "section", id: sections[1] },
          { model: "tag", id: tags[4] },
        ]);
        const held = await b.call("/api/section", {
          method: "DELETE",
          body: JSON.stringify({ where: { id: sections[1] } }),
        });
        assert.equal(held.status, 409);
        assert.equal(code(held.body), "relation_target_referenced");
        const still = await b.call(
          `/api/section/unique?${whereId(sections[1])}`,
        );
        assert.equal((still.body as Row).id, sections[1]);
      },
    );

    const categories: string[] = [];
    await t.step(
      "GREL-002: a hierarchy never loops; roots, reparenting and clearing are ordinary",
      async () => {
        for (let i = 0; i < 5; i++) {
          categories.push(await post("/api/category", {}));
        }
        const [root, child, grandchild] = categories;
        const parent = (id: string, parent_id: string | null) =>
          put("/api/category", { where: { id }, data: { parent_id } });
        assert.equal((await parent(child, root)).status, 200);
        assert.equal((await parent(grandchild, child)).status, 200);
        const self = await parent(root, root);
        assert.equal(self.status, 422);
        assert.deepEqual(self.body, {
          code: "relation_hierarchy_cycle",
          field: "parent",
          targets: [root],
        });
        const below = await parent(root, grandchild);
        assert.equal(code(below.body), "relation_hierarchy_cycle");
        assert.equal((await parent(grandchild, root)).status, 200);
        assert.equal((await parent(grandchild, null)).status, 200);
      },
    );

    await t.step(
      "GREL-003: the database refuses a loop made by two concurrent writers",
      async () => {
        if (!b.databaseUrl) return; // Two connections need PostgreSQL; CI runs it there.
        const [x, y] = categories.slice(3);
        const first = new pg.Client({ connectionString: b.databaseUrl });
        const second = new pg.Client({ connectionString: b.databaseUrl });
        await first.connect();
        await second.connect();
        try {
          await first.query("begin");
          await first.query(
            "update category set parent_id = $1 where id = $2",
            [y, x],
          );
          await second.query("begin");
          const racing = second.query(
            "update category set parent_id = $1 where id = $2",
            [x, y],
          ).then(() => null, (error: { code?: string }) => error.code);
          await first.query("commit");
          assert.equal(await racing, "SV001");
          await second.query("rollback");
        } finally {
          await first.end();
          await second.end();
        }
        const row = (await b.call(`/api/category/unique?${whereId(y)}`))
          .body as Row;
        assert.equal(row.parent_id, null);
      },
    );

    await t.step(
      "GREL-006: the database refuses a one-to-many target taken by a concurrent writer",
      async () => {
        if (!b.databaseUrl) return;
        const free = sections[3];
        const first = new pg.Client({ connectionString: b.databaseUrl });
        const second = new pg.Client({ connectionString: b.databaseUrl });
        await first.connect();
        await second.connect();
        try {
          const link =
            "insert into article_sections (owner_id, target_id, position) values ($1, $2, 0)";
          await first.query("begin");
          await first.query(link, [a1, free]);
          await second.query("begin");
          const racing = second.query(link, [a2, free]).then(
            () => null,
            (error: { code?: string; constraint?: string }) => error.constraint,
          );
          await first.query("commit");
          assert.equal(await racing, "article_sections_target_key");
          await second.query("rollback");
        } finally {
          await first.end();
          await second.end();
        }
      },
    );

    await t.step(
      "GREL-004 GREL-006 GREL-007: property: list writes match a simple model of the rules",
      async () => {
        const owner = await post("/api/article", {});
        let model: string[] = [];
        const command = fc.oneof(
          fc.record({
            set: fc.array(fc.constantFrom(...tags), { maxLength: 5 }),
          }),
          fc.record({
            connect: fc.array(fc.constantFrom(...tags), { maxLength: 2 }),
            disconnect: fc.array(fc.constantFrom(...tags), { maxLength: 2 }),
          }),
        );
        await fc.assert(
          fc.asyncProperty(
            fc.array(command, { minLength: 1, maxLength: 6 }),
            async (commands) => {
              for (const cmd of commands) {
                let next: string[];
                if ("set" in cmd) next = cmd.set;
                else {
                  next = model.filter((id) => !cmd.disconnect.includes(id));
                  next.push(...cmd.connect);
                }
                const valid = new Set(next).size === next.length &&
                  next.length <= 3 &&
                  !("connect" in cmd &&
                    cmd.connect.some((id) =>
                      next.indexOf(id) !== next.lastIndexOf(id) ||
                      model.filter((m) => !cmd.disconnect.includes(m)).includes(
                        id,
                      )
                    ));
                const res = await put("/api/article/relations/tags", {
                  where: { id: owner },
                  ...cmd,
                });
                assert.equal(
                  res.status === 200,
                  valid,
                  JSON.stringify({ cmd, model, res: res.body }),
                );
                if (valid) model = next;
                assert.deepEqual(
                  (await list("tags", owner)).map((r) => r.id),
                  model,
                );
              }
            },
          ),
          { numRuns: 25 },
        );
      },
    );

    await t.step(
      "GREL-002: property: hierarchy moves match a simple model of the rules",
      async () => {
        const nodes: string[] = [];
        for (let i = 0; i < 5; i++) nodes.push(await post("/api/category", {}));
        const parents = new Map<string, string | null>(
          nodes.map((n) => [n, null]),
        );
        const isAncestor = (candidate: string, of: string) => {
          let at: string | null | undefined = of;
          while (at) {
            if (at === candidate) return true;
            at = parents.get(at);
          }
          return false;
        };
        await fc.assert(
          fc.asyncProperty(
            fc.array(
              fc.tuple(
                fc.constantFrom(...nodes),
                fc.option(fc.constantFrom(...nodes)),
              ),
              { minLength: 1, maxLength: 8 },
            ),
            async (moves) => {
              for (const [node, parent] of moves) {
                const loops = parent !== null && isAncestor(node, parent);
                const res = await put("/api/category", {
                  where: { id: node },
                  data: { parent_id: parent },
                });
                assert.equal(res.status, loops ? 422 : 200);
                if (!loops) parents.set(node, parent);
              }
              for (const node of nodes) {
                const row =
                  (await b.call(`/api/category/unique?${whereId(node)}`))
                    .body as Row;
                assert.equal(row.parent_id, parents.get(node));
              }
            },
          ),
          { numRuns: 20 },
        );
      },
    );
  } finally {
    await b.stop();
  }
});
