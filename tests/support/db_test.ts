// The test databases themselves: where CI's PostgreSQL run makes them.
import { equal, throws } from "node:assert/strict";
import pg from "pg";
import {
  createScratchDatabase,
  migratedTemplate,
  scratchTablespace,
} from "./db.ts";

const DATABASE_URL = Deno.env.get("DATABASE_URL");

Deno.test("the scratch tablespace is read from its setting, and only a plain name is taken", () => {
  equal(scratchTablespace(""), null);
  equal(scratchTablespace("stave_tests"), "stave_tests");
  equal(scratchTablespace("a".repeat(63)), "a".repeat(63));
  throws(() => scratchTablespace("a".repeat(64)), /not a plain/);
  throws(() => scratchTablespace("stave tests; drop"), /not a plain/);
  throws(() => scratchTablespace("Stave"), /not a plain/);
});

Deno.test({
  name:
    "a test's database goes in the scratch tablespace, a lasting one where the server keeps its own",
  ignore: !DATABASE_URL,
  async fn() {
    const template = await migratedTemplate(DATABASE_URL!);
    const scratch = await createScratchDatabase(DATABASE_URL!, { template });
    const lasting = await createScratchDatabase(DATABASE_URL!, {
      template,
      lasting: true,
    });
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const where = async (url: string) =>
        (await client.query<{ spcname: string }>(
          `select t.spcname from pg_database d
             join pg_tablespace t on t.oid = d.dattablespace where d.datname = $1`,
          [new URL(url).pathname.slice(1)],
        )).rows[0].spcname;
      equal(await where(scratch.url), scratchTablespace() ?? "pg_default");
      equal(await where(lasting.url), "pg_default");
    } finally {
      await client.end();
      await scratch.drop();
      await lasting.drop();
    }
  },
});
