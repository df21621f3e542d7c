import { deepEqual, equal } from "node:assert/strict";
import fc from "fast-check";
import { sql } from "kysely";
import { openTestDb } from "../../tests/support/db.ts";
import { valueOfJsonText } from "./list_pages.ts";

// Strings a page may hold: quotes, backslashes, control characters, non-ASCII, astral
// characters, text shaped like JSON.
const text = fc.oneof(
  fc.string({ unit: "grapheme" }),
  fc.string({
    unit: fc.constantFrom('"', "\\", "\n", "\u0001", "\t", "é", "/"),
  }),
  fc.constantFrom(
    "",
    '"',
    "\\",
    "\\u0041",
    "null",
    '{"a":1}',
    "😀",
    "a\u2028b",
  ),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: "small" },
    text,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("any"), { maxLength: 4 }),
    fc.dictionary(text, tie("any"), { maxKeys: 4 }),
  ),
})).any;

Deno.test("a selected field's JSON text, as the database prints it, reads as the value the driver parses (PUB-023)", async () => {
  const { db, close } = await openTestDb();
  try {
    const samples = fc.sample(value, { numRuns: 400, seed: 18 });
    // One key per sample in one stored object, read back the way a page selects a key.
    const stored = Object.fromEntries(samples.map((v, i) => [`k${i}`, v]));
    const row = (await sql<Record<string, string | null>>`
      select ${
      sql.join(
        samples.map((_, i) =>
          sql`(${JSON.stringify(stored)}::jsonb -> ${`k${i}`}::text)::text as ${
            sql.ref(`t${i}`)
          }`
        ),
      )
    }, (${JSON.stringify(stored)}::jsonb -> 'absent')::text as absent
    `.execute(db)).rows[0];
    for (let i = 0; i < samples.length; i++) {
      const printed = row[`t${i}`];
      // The database's own JSON (numbers keep its digits), parsed as the driver parses jsonb.
      deepEqual(valueOfJsonText(printed), JSON.parse(printed!), printed!);
    }
    equal(valueOfJsonText(row.absent), null);
    equal(valueOfJsonText('"plain words"'), "plain words");
    equal(valueOfJsonText('"a \\"quoted\\" word"'), 'a "quoted" word');
  } finally {
    await close();
  }
});
