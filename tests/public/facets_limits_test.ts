// The limits of item facets (core/public/projection.ts `facetsOf`) at their edges, on the engine
// the run targets.
import { deepEqual, equal } from "node:assert/strict";
import { sql } from "kysely";
import {
  FACET_OMITTED,
  FACET_VALUE_MAX,
  FACETS_MAX,
  FACETS_STORED_MAX,
  facetsOf,
} from "../../core/public/projection.ts";
import { openTestDb } from "../support/db.ts";

const OMITTED = JSON.parse(FACET_OMITTED);

Deno.test("facetsOf() keeps values up to 255 bytes and objects up to 1024 bytes of JSON", async () => {
  const { db, close } = await openTestDb();
  try {
    const facets = async (o: Record<string, unknown>) => {
      const { rows } = await sql<{ f: unknown; size: number }>`
        select ${facetsOf(sql`${JSON.stringify(o)}::jsonb`)} as f,
          octet_length(${JSON.stringify(o)}::jsonb::text) as size`.execute(db);
      return rows[0];
    };
    // As PostgreSQL prints it, a string value is its characters plus 2 quotes.
    const at = "x".repeat(FACET_VALUE_MAX - 2);
    deepEqual((await facets({ t: at, n: 1 })).f, { t: at, n: 1 });
    deepEqual((await facets({ t: `${at}x`, n: 1 })).f, { t: OMITTED, n: 1 });
    // Limits are bytes: 127 two-byte characters print as 256.
    const wide = "é".repeat((FACET_VALUE_MAX - 1) / 2);
    deepEqual((await facets({ t: wide })).f, { t: OMITTED });
    deepEqual((await facets({ a: [1, [2]], b: null })).f, {
      a: [1, [2]],
      b: null,
    });
    deepEqual((await facets({})).f, {});
    // `{"a": "<200>", …, "e": "<m>"}` prints as 5 * 7 + 10 + 800 + m bytes.
    const full = Object.fromEntries(
      ["a", "b", "c", "d"].map((k) => [k, "y".repeat(200)]),
    );
    const last = FACETS_MAX - 845;
    const edge = await facets({ ...full, e: "z".repeat(last) });
    equal(edge.size, FACETS_MAX);
    deepEqual(edge.f, { ...full, e: "z".repeat(last) });
    const over = await facets({ ...full, e: "z".repeat(last + 1) });
    equal(over.size, FACETS_MAX + 1);
    equal(over.f, null);
  } finally {
    await close();
  }
});

Deno.test("facetsOf() refuses objects stored larger than 1400 bytes, whatever their text length", async () => {
  const { db, close } = await openTestDb();
  try {
    const sized = async (o: Record<string, unknown>) => {
      const value = sql`${JSON.stringify(o)}::jsonb`;
      const { rows } = await sql<{ f: unknown; text: number; stored: number }>`
        select ${facetsOf(value)} as f, octet_length(${value}::text) as text,
          pg_column_size(${value}) as stored`.execute(db);
      return rows[0];
    };
    // Arrays of small numbers: short text, about four times as many stored bytes.
    const zeros = (n: number) => Array.from({ length: n }, () => 0);
    const big = await sized({ a: zeros(80), b: zeros(80), c: zeros(80) });
    equal(big.text <= FACETS_MAX, true, `text ${big.text}`);
    equal(big.stored > FACETS_STORED_MAX, true, `stored ${big.stored}`);
    equal(big.f, null);
    // The last size kept and the first refused, found by growing one array.
    let kept = 0;
    for (let n = 0; n < 80; n++) {
      const one = await sized({ a: zeros(80), b: zeros(n) });
      if (one.stored <= FACETS_STORED_MAX) {
        deepEqual(one.f, { a: zeros(80), b: zeros(n) });
        kept = n;
      } else {
        equal(one.f, null);
      }
    }
    equal(kept > 0 && kept < 79, true, `kept up to ${kept}`);
  } finally {
    await close();
  }
});
