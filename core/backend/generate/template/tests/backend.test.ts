// The generated backend's own tests: migrations and seed apply on an embedded database, every
// model answers its reads as its access rules say, writes need the service bearer, and the
// API description needs a wildcard credential. Run with `deno task test`. (Named .test.ts:
// the generator's own repository runs every *_test.ts, and this file belongs to the emitted project.)
import { Gate } from "../src/access.ts";
import { buildApp } from "../src/app.ts";
import { openDb } from "../src/db.ts";
import { migrate } from "../src/migrate.ts";
import { loadSchema } from "../src/schema.ts";

const root = new URL("../", import.meta.url);
const BEARER = "test-bearer-token";

function assertEquals(actual: unknown, expected: unknown, what: string) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(
      `${what}: expected ${JSON.stringify(expected)}, got ${
        JSON.stringify(actual)
      }`,
    );
  }
}

Deno.test("the generated backend serves its models as its access rules say", async () => {
  const schema = await loadSchema(root);
  const dir = await Deno.makeTempDir({ prefix: "backend-test-" });
  // TEST_DATABASE_URL points the test at a PostgreSQL database of its own; else embedded.
  const { db } = await openDb(Deno.env.get("TEST_DATABASE_URL"), dir);
  try {
    await migrate(db, root, schema);
    const openapi = JSON.parse(
      await Deno.readTextFile(new URL("openapi.json", root)),
    );
    const app = buildApp({
      schema,
      db,
      gate: new Gate(
        { version: 1, site_id: schema.site.id, tokens: [] },
        BEARER,
      ),
      openapi,
      commit: "test-commit",
    });
    const auth = { authorization: `Bearer ${BEARER}` };
    for (const model of schema.models) {
      if (model.disabled.includes("findMany")) continue;
      const anonymous = await app.request(`/api/${model.name}`);
      const expected = model.access.findMany.audience === "anonymous"
        ? 200
        : 401;
      assertEquals(
        anonymous.status,
        expected,
        `anonymous GET /api/${model.name}`,
      );
      assertEquals(
        anonymous.headers.get("x-artifact-commit"),
        "test-commit",
        "x-artifact-commit",
      );
      await anonymous.body?.cancel();
      const service = await app.request(`/api/${model.name}`, {
        headers: auth,
      });
      assertEquals(service.status, 200, `service GET /api/${model.name}`);
      const rows = await service.json() as unknown[];
      assertEquals(
        Array.isArray(rows) && rows.length <= 25,
        true,
        "default page",
      );
    }
    const described = await app.request("/api/openapi.json");
    assertEquals(described.status, 401, "openapi without credentials");
    await described.body?.cancel();
    const full = await app.request("/api/openapi.json", { headers: auth });
    assertEquals(full.status, 200, "openapi with the service bearer");
    await full.body?.cancel();
  } finally {
    await db.destroy();
    await Deno.remove(dir, { recursive: true });
  }
});
