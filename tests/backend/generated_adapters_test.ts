// The emitted backend run with a developer's own database driver and operation override
// (custom/database.ts, custom/operations.ts), as its own process over HTTP: what the driver
// cannot do is answered with the spec's codes, and an overridden create keeps its guards.
import assert from "node:assert/strict";
import { ManualClock } from "../../core/clock.ts";
import { openTestDb } from "../support/db.ts";
import { emit, type EmittedBackend, startBackend } from "./emitted.ts";
import { createFixtureSite } from "./fixture_site.ts";

type Row = Record<string, unknown>;
const code = (body: unknown) => (body as { code: string }).code;

// A driver without transactions or great-circle SQL: the same database, declared as less able.
const DATABASE = `import { openDb } from "../src/db.ts";
import type { OpenDb } from "../src/db.ts";

export const openDatabase: (() => Promise<OpenDb>) | null = async () => ({
  ...(await openDb(Deno.env.get("DATABASE_URL"), Deno.env.get("DATA_DIR") ?? "./data")),
  engine: "http-driver",
  batch: false,
  spatial: false,
});
`;

// Article's create is the developer's own: it stamps the stock, and answers every column.
const OPERATIONS =
  `import type { OperationOverrides } from "../src/overrides.ts";

export const overrides: OperationOverrides = {
  "Article.create": async ({ table, row, db }) =>
    await db.insertInto(table).values({ ...row, stock: 42 }).returningAll()
      .executeTakeFirstOrThrow(),
};
`;

async function start(
  files: Record<string, string>,
): Promise<EmittedBackend & { sections: string[]; tags: string[] }> {
  const testDb = await openTestDb();
  try {
    const fixture = await createFixtureSite(
      testDb.db,
      new ManualClock("2026-11-28T10:00:00Z"),
    );
    const { dir, schema } = await emit(testDb.db, {
      siteId: fixture.siteId,
      publicUrl: "http://media.example",
    });
    for (const [path, text] of Object.entries(files)) {
      await Deno.writeTextFile(`${dir}/${path}`, text);
    }
    const b = await startBackend(dir, schema);
    const made = async (table: string, data: Row) => {
      const res = await b.call(`/api/${table}`, {
        method: "POST",
        body: JSON.stringify({ data }),
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return (res.body as Row).id as string;
    };
    return {
      ...b,
      sections: [await made("section", { heading: "Home" })],
      tags: [await made("tag", { label: "a" })],
      async stop() {
        await b.stop();
        await Deno.remove(dir, { recursive: true });
      },
    };
  } finally {
    await testDb.close();
  }
}

Deno.test("generated backend on a driver without a batch runner or spatial adapter", async (t) => {
  const b = await start({
    "custom/database.ts": DATABASE,
    "custom/operations.ts": OPERATIONS,
  });
  try {
    await t.step(
      "GREL-014: without a batch runner, with-relations answers 503 relation_writes_unavailable",
      async () => {
        const before = ((await b.call("/api/bundle")).body as Row[]).length;
        const res = await b.call("/api/bundle/with-relations", {
          method: "POST",
          body: JSON.stringify({
            data: { name: "Kit", home_id: b.sections[0] },
            relations: { items: [b.tags[0]] },
          }),
        });
        assert.equal(res.status, 503);
        assert.equal(code(res.body), "relation_writes_unavailable");
        // Nothing was written.
        assert.equal(
          ((await b.call("/api/bundle")).body as Row[]).length,
          before,
        );
        // The access rule still comes first: an anonymous caller is not told about the driver.
        const anonymous = await b.call("/api/bundle/with-relations", {
          method: "POST",
          body: JSON.stringify({ data: {}, relations: {} }),
          as: "anonymous",
        });
        assert.equal(anonymous.status, 401);
      },
    );

    await t.step(
      "GREL-014: list writes need the batch runner too; plain writes and reads do not",
      async () => {
        const res = await b.call("/api/tag", { method: "GET" });
        assert.equal(res.status, 200);
        const article = await b.call("/api/article", {
          method: "POST",
          body: JSON.stringify({ data: { live: true } }),
        });
        assert.equal(article.status, 201, JSON.stringify(article.body));
        const put = await b.call("/api/article/relations/tags", {
          method: "PUT",
          body: JSON.stringify({
            where: { id: (article.body as Row).id },
            set: [b.tags[0]],
          }),
        });
        assert.equal(put.status, 503);
        assert.equal(code(put.body), "relation_writes_unavailable");
      },
    );

    await t.step(
      "GREL-014: a model whose create is overridden answers with-relations 501 atomic_create_unavailable",
      async () => {
        const res = await b.call("/api/article/with-relations", {
          method: "POST",
          body: JSON.stringify({ data: { live: true }, relations: {} }),
        });
        assert.equal(res.status, 501);
        assert.equal(code(res.body), "atomic_create_unavailable");
        assert.equal((res.body as Row).operation, "Article.create");
      },
    );

    await t.step(
      "GEN-039: an overridden create still validates, guards and hides private columns",
      async () => {
        const created = await b.call("/api/article", {
          method: "POST",
          body: JSON.stringify({ data: { live: false, secret: "s" } }),
        });
        assert.equal(created.status, 201);
        const row = created.body as Row;
        assert.equal(row.stock, 42); // the override wrote it
        assert.ok(!("secret" in row)); // the override answered every column; the route did not
        const bad = await b.call("/api/article", {
          method: "POST",
          body: JSON.stringify({ data: { live: "yes" } }),
        });
        assert.equal(bad.status, 422);
        assert.equal(code(bad.body), "field_validation_failed");
        const anonymous = await b.call("/api/article", {
          method: "POST",
          body: JSON.stringify({ data: { live: true } }),
          as: "anonymous",
        });
        assert.equal(anonymous.status, 401);
      },
    );

    await t.step(
      "GEN-031: without a spatial adapter, spatial filters and nearest order answer 501 spatial_adapter_required",
      async () => {
        for (
          const query of [
            "filter[location][within_radius]=52.52,13.405,5000",
            "filter[location][within_bbox]=-10,170,10,-170",
            "sort=location&origin=52.52,13.405",
          ]
        ) {
          const res = await b.call(`/api/article?${query}`, {
            as: "anonymous",
          });
          assert.equal(res.status, 501, query);
          assert.equal(code(res.body), "spatial_adapter_required");
        }
        const paginated = await b.call(
          "/api/article/paginated?sort=location&origin=0,0",
        );
        assert.equal(paginated.status, 501);
        // Other reads are unaffected.
        assert.equal((await b.call("/api/article?take=1")).status, 200);
      },
    );
  } finally {
    await b.stop();
  }
});

Deno.test("GREL-014: an override naming no create operation refuses the start", async () => {
  await assert.rejects(
    () =>
      start({
        "custom/operations.ts":
          `import type { OperationOverrides } from "../src/overrides.ts";
export const overrides: OperationOverrides = {
  "Article.update": async ({ row }) => row,
};
`,
      }),
    /operation_override_invalid/,
  );
});
