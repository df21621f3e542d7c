// The names statements are prepared under (prepared_names.ts).
import { equal, ok } from "node:assert/strict";
import { preparedName } from "./prepared_names.ts";

Deno.test("preparedName() names data statements by their text, and leaves `*`, control and settings unnamed", () => {
  const name = preparedName("select id from sites where slug = $1");
  ok(name?.startsWith("k_"));
  equal(preparedName("select id from sites where slug = $1"), name);
  ok(preparedName("select id from sites where slug = $2") !== name);
  ok(preparedName("  WITH x as (select 1) select * from x") === null);
  ok(preparedName("insert into t (a) values ($1) returning count(*)"));
  equal(preparedName('select "sites".* from "sites" where id = $1'), null);
  equal(preparedName("select a * $1 from t"), null);
  equal(preparedName("begin"), null);
  equal(preparedName("set local lock_timeout = $1"), null);
});
