import { deepEqual, equal } from "node:assert/strict";
import fc from "fast-check";
import pg from "pg";
import { sql } from "kysely";
import { openTestDb } from "../../tests/support/db.ts";
import { isoFromEpochMs, isoInstant } from "./instants.ts";

const driverParse = pg.types.getTypeParser(1184, "text") as (
  text: string,
) => Date;
const two = (n: number) => String(n).padStart(2, "0");

Deno.test("published times: PostgreSQL's text gives the driver's toISOString, every form (PUB-003)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 10_500 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 28 }),
      fc.tuple(
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 59 }),
      ),
      fc.option(fc.stringMatching(/^\d{1,6}$/)),
      fc.constantFrom("+", "-"),
      fc.tuple(
        fc.integer({ min: 0, max: 15 }),
        fc.option(fc.integer({ min: 0, max: 59 })),
        fc.option(fc.integer({ min: 0, max: 59 })),
      ),
      fc.boolean(),
      (year, month, day, [h, m, s], fraction, sign, [oh, om, os], bc) => {
        const zone = `${sign}${two(oh)}${om === null ? "" : `:${two(om)}`}${
          om !== null && os !== null ? `:${two(os)}` : ""
        }`;
        const text = `${String(year).padStart(4, "0")}-${two(month)}-${
          two(day)
        } ${two(h)}:${two(m)}:${two(s)}${
          fraction === null ? "" : `.${fraction}`
        }${zone}${bc ? " BC" : ""}`;
        equal(isoInstant(text), driverParse(text).toISOString(), text);
      },
    ),
    { numRuns: 5000 },
  );
});

Deno.test("published times: epoch milliseconds format as toISOString, before 1970 too", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: -62_000_000_000_000, max: 260_000_000_000_000 }),
      (ms) => equal(isoFromEpochMs(ms), new Date(ms).toISOString()),
    ),
    { numRuns: 20_000 },
  );
  equal(isoInstant(null), null);
  const date = new Date("2026-11-27T08:00:00.123Z");
  equal(isoInstant(date), "2026-11-27T08:00:00.123Z");
});

Deno.test("published times: the database's text in several session time zones reads as the same instant", async () => {
  const { db, close } = await openTestDb();
  try {
    const zones = ["UTC", "Europe/Berlin", "Asia/Kolkata", "America/St_Johns"];
    for (const zone of zones) {
      // Local to the transaction: the zone never leaks to another test's connection.
      const rows = await db.transaction().execute(async (trx) => {
        await sql`select set_config('TimeZone', ${zone}, true)`.execute(trx);
        return (await sql<{ t: string }>`
          select v::text as t from (values
            (timestamptz '2026-03-29 01:30:00.123456+00'),
            (timestamptz '1890-01-01 00:00:00.999999+00'),
            (timestamptz '2020-03-10 10:40:00.000997+00')) x(v)`.execute(trx))
          .rows;
      });
      deepEqual(rows.map((r) => isoInstant(r.t)), [
        "2026-03-29T01:30:00.123Z",
        "1890-01-01T00:00:00.999Z",
        "2020-03-10T10:40:00.000Z",
      ], `${zone}: ${rows.map((r) => r.t).join(", ")}`);
    }
  } finally {
    await close();
  }
});
