// Statements compiled once and bound per run (prebuilt.ts).
import { deepEqual, equal, throws } from "node:assert/strict";
import { sql } from "kysely";
import { openTestDb } from "../../tests/support/db.ts";
import { itemsOf, prebuilt, prebuiltShapes } from "./prebuilt.ts";

Deno.test("a prebuilt statement builds once and binds each run's values, constants kept", () => {
  let builds = 0;
  const statement = prebuilt((db, v: { site: string; ids: string[] }) => {
    builds++;
    return db.selectFrom("entries").select("id")
      .where("site_id", "=", v.site).where("locale", "=", "en")
      .where(sql<boolean>`id = any(${v.ids})`);
  });
  const first = statement.bind({ site: "a", ids: ["1"] });
  const second = statement.bind({ site: "b", ids: ["2", "3"] });
  equal(builds, 1);
  equal(first.sql, second.sql);
  equal(
    first.sql,
    'select "id" from "entries" where "site_id" = $1 and "locale" = $2 and id = any($3)',
  );
  deepEqual(first.parameters, ["a", "en", ["1"]]);
  deepEqual(second.parameters, ["b", "en", ["2", "3"]]);
});

Deno.test("itemsOf binds each item of a list as a value of its own, one text per length", () => {
  const statementOf = prebuiltShapes((count: number) =>
    prebuilt((db, v: { ids: string[] }) =>
      db.selectFrom("entries").select("id")
        .where(sql<boolean>`id in (${sql.join(itemsOf(v.ids, count))})`)
    )
  );
  const two = statementOf(2).bind({ ids: ["a", "b"] });
  equal(two.sql, 'select "id" from "entries" where id in ($1, $2)');
  deepEqual(two.parameters, ["a", "b"]);
  deepEqual(statementOf(2).bind({ ids: ["c", "d"] }).parameters, ["c", "d"]);
  equal(statementOf(1).bind({ ids: ["e"] }).sql.endsWith("in ($1)"), true);
  throws(() => itemsOf(["a"], 1), /stand-in/);
});

Deno.test("a value used to shape the text, or left unbound, fails the first run", () => {
  const shaped = prebuilt((db, v: { column: string }) =>
    db.selectFrom("entries").select(sql.ref(`${v.column}`).as("c"))
  );
  throws(() => shaped.bind({ column: "id" }), /may only be bound/);
  const unbound = prebuilt((db, v: { site: string; flag: boolean }) => {
    const query = db.selectFrom("entries").select("id");
    return v.flag ? query.where("site_id", "=", v.site) : query;
  });
  throws(() => unbound.bind({ site: "a", flag: false }), /is not bound/);
  const json = prebuilt((_db, v: { doc: object }) =>
    sql`select ${JSON.stringify(v.doc)}::json`
  );
  throws(() => json.bind({ doc: {} }), /may only be bound/);
});

Deno.test("a prebuilt statement answers what the same builder answers, on a handle and in a transaction", async () => {
  const { db, close } = await openTestDb();
  try {
    const statement = prebuilt((_db, v: { a: number; b: string }) =>
      sql<
        { n: number; t: string }
      >`select ${v.a}::int + 1 as n, ${v.b}::text as t`
    );
    deepEqual(await statement.rows(db, { a: 1, b: "x" }), [{ n: 2, t: "x" }]);
    deepEqual(
      await db.transaction().execute((tx) =>
        statement.first(tx, { a: 41, b: "y" })
      ),
      { n: 42, t: "y" },
    );
    const none = prebuilt((db, v: { id: string }) =>
      db.selectFrom("sites").select("id").where("domain", "=", v.id)
    );
    equal(await none.first(db, { id: "no.such.site" }), undefined);
  } finally {
    await close();
  }
});
