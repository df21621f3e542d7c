// Statements prepared by name on the embedded engine (pglite_dialect.ts): the same rows, types,
// counts and errors as PGlite's own query, and a statement prepared again when the engine lost it.
import { deepEqual, equal, rejects } from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, sql } from "kysely";
import { forgetPreparedStatements, PGliteDialect } from "./pglite_dialect.ts";

async function engine() {
  const pglite = new PGlite();
  const db = new Kysely<Record<string, never>>({
    dialect: new PGliteDialect(pglite),
  });
  await sql`create table probe (id int primary key, doc jsonb, at timestamptz,
    big int8, tags text[], yes bool, note text)`.execute(db);
  return { pglite, db };
}

const TYPED = `select $1::int8 as big, $2::timestamptz as at, $3::jsonb as doc,
  $4::text as nothing, array[$5::int, 2] as list, $6::bool as yes, $7::numeric as price,
  $8::text as a, $9::text as a`;
const VALUES = [
  "9007199254740991",
  new Date("2026-11-29T08:00:00.123Z"),
  JSON.stringify({ a: [1, "b"], c: null }),
  null,
  7,
  true,
  "12.50",
  "first",
  "Crème 😀",
];

Deno.test("a statement prepared by name answers the rows and types PGlite's own query gives, on its first and later runs", async () => {
  const { pglite, db } = await engine();
  try {
    const expected = (await pglite.query(TYPED, VALUES, { rowMode: "object" }))
      .rows;
    for (let run = 0; run < 3; run++) {
      const { rows } = await db.executeQuery({
        sql: TYPED,
        parameters: VALUES,
        query: { kind: "RawNode" },
        queryId: { queryId: String(run) },
      } as never);
      deepEqual(rows, expected);
    }
  } finally {
    await db.destroy();
  }
});

Deno.test("a statement prepared by name reports the rows it changed and the engine's errors with their codes", async () => {
  const { db } = await engine();
  try {
    const inserted =
      await sql`insert into probe (id, note) values (${1}, ${"a"}), (${2}, ${"b"})`
        .execute(db);
    equal(inserted.numAffectedRows, 2n);
    const updated = await sql`update probe set note = ${"c"} where id >= ${1}`
      .execute(db);
    equal(updated.numAffectedRows, 2n);
    await rejects(
      sql`insert into probe (id) values (${1})`.execute(db),
      (error: { code?: string }) => error.code === "23505",
    );
    const deleted = await sql`delete from probe where id = ${2}`.execute(db);
    equal(deleted.numAffectedRows, 1n);
    deepEqual(
      (await sql<{ note: string }>`select note from probe where id = ${1}`
        .execute(db)).rows,
      [{ note: "c" }],
    );
  } finally {
    await db.destroy();
  }
});

Deno.test("a statement the engine lost (discard all) or whose columns changed type is prepared again", async () => {
  const { pglite, db } = await engine();
  try {
    await sql`insert into probe (id, note) values (${1}, ${"x"})`.execute(db);
    const read = () =>
      sql<{ note: unknown }>`select note from probe where id = ${1}`.execute(
        db,
      );
    deepEqual((await read()).rows, [{ note: "x" }]);
    await pglite.exec("discard all");
    deepEqual((await read()).rows, [{ note: "x" }]);
    forgetPreparedStatements(pglite);
    deepEqual((await read()).rows, [{ note: "x" }]);
    await sql`alter table probe alter column note type int using 7`.execute(db);
    deepEqual((await read()).rows, [{ note: 7 }]);
  } finally {
    await db.destroy();
  }
});
