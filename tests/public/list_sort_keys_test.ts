// Lists sorted by a text, slug or date-time field read the index of `public_item_values`
// (migration 0237): strings longer than its 255 characters, ties of that prefix, timestamps
// written with other offsets, values missing or not a valid timestamp, every cursor of a walk,
// and the migration's fill (spec 3 part 4.2; inventory PUB-010, PUB-017).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { fillSortKeys } from "../../core/db/migrations/0237_public_sort_keys.ts";
import { decodeCursor, encodeCursor } from "../../core/public/cursor.ts";
import { publishEntry, saveEntry } from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/store.ts";
import { openPublicWorld, walkIds } from "./helpers.ts";

type Fields = Record<string, unknown>;

const A255 = "a".repeat(255);
/** Titles of items 0 to 9; later items are `Item <i>`, and every seventh has none. */
const TITLES = [
  `${A255}zzz`,
  `${A255}b`,
  A255,
  "a".repeat(254),
  `${A255}b`, // the same long value as item 1: ordered by id
  `${A255}é`,
  `${"a".repeat(254)}b${"c".repeat(40)}`,
  "Zebra",
  "éclair",
  "a",
];

/** Instants written in other zones: their text order is not their time order. */
const TIMES = [
  "2026-03-01T10:00:00Z",
  "2026-03-01T12:00:00+02:00", // the same instant as item 0
  "2026-03-01T09:30:00-01:00",
  "2026-03-01T10:00:00.5Z",
  "2026-03-01T10:00Z",
  "2026-02-28T23:59:59.999999+00:00",
  "2026-03-01T08:00:00.000001-03:00",
];

function fieldsOf(i: number): Fields {
  const f: Fields = {};
  if (i % 7 !== 6) f.title = TITLES[i] ?? `Item ${i}`;
  if (i % 5 !== 4) f.code = `code-${(i * 7) % 11}`;
  if (i % 6 !== 5) {
    f.at = TIMES[i % TIMES.length].replace(
      "2026-03-01",
      `2026-03-0${1 + i % 3}`,
    );
  }
  // Shaped like a timestamp but not one: kept as text, never an instant.
  f.note = i % 4 === 0 ? "2026-13-45T99:99Z" : `note ${i % 3}`;
  return f;
}

/** Code-point order, which the "C" collation gives for these characters. */
function compare(x: unknown, y: unknown, key: string): number {
  if (key === "at") return Date.parse(x as string) - Date.parse(y as string);
  return x === y ? 0 : (x as string) < (y as string) ? -1 : 1;
}

/** The ids a sorted list must answer: by value (missing last), then by id. */
function expected(items: Map<string, Fields>, sort: string): string[] {
  const desc = sort.startsWith("-");
  const key = sort.replace("-", "");
  return [...items].sort(([a, f], [b, g]) => {
    const [x, y] = [f[key], g[key]];
    if (x === undefined || y === undefined) {
      if (x !== y) return x === undefined ? 1 : -1;
    } else {
      const c = compare(x, y, key);
      if (c !== 0) return desc ? -c : c;
    }
    return a < b ? -1 : 1;
  }).map(([id]) => id);
}

Deno.test("lists sorted by text, slug and date-time fields, through long values and zones", async (t) => {
  const w = await openPublicWorld();
  const ctx = w.ctx();
  const db = w.services.db;
  const walk = (q: string, limit: number) =>
    walkIds(w, `/v1/notebooks?${q}&limit=${limit}`, 100);
  const sortKeys = async () =>
    (await sql<Record<string, unknown>>`
      select group_id, requested_locale, field_key, num_value, text_value, time_value, facets
      from public_item_values
      where site_id = ${w.siteId} order by group_id, requested_locale, field_key
    `.execute(db)).rows;
  try {
    const made = await createModel({ db, clock: w.clock, siteId: w.siteId }, {
      model: {
        name: "Notebooks",
        slug: "notebooks",
        description: "",
        enableI18n: false,
      },
      fields: [
        { key: "title", label: "Title", type: "text" },
        { key: "code", label: "Code", type: "slug" },
        { key: "at", label: "At", type: "datetime" },
        { key: "note", label: "Note", type: "text" },
      ],
    });
    ok(made.ok, JSON.stringify(made));
    const items = new Map<string, Fields>();
    for (let i = 0; i < 24; i++) {
      const fields = fieldsOf(i);
      const s = await saveEntry(ctx, {
        model_id: made.model_id!,
        slug: `n-${i}`,
        locale: "en",
        fields,
        expected_current_version_id: null,
      });
      ok(s.ok, JSON.stringify(s));
      const p = await publishEntry(ctx, {
        group_id: s.group_id,
        expected_current_version_id: s.current_version_id,
        expected_workflow_revision: s.revision,
      });
      ok(p.ok, JSON.stringify(p));
      items.set(s.group_id, fields);
    }
    const sorts = ["title", "-title", "code", "-code", "at", "-at", "note"];

    await t.step(
      "every page of every walk is the whole values' order, missing values last (PUB-010, PUB-017)",
      async () => {
        for (const sort of sorts) {
          const want = expected(items, sort);
          // One item a page puts a cursor between every two items, ties of a prefix included.
          deepEqual(await walk(`sort=${sort}`, 1), want, sort);
          deepEqual(await walk(`sort=${sort}`, 4), want, sort);
          // A selection leaving the sorted field out orders the same (PUB-023).
          deepEqual(await walk(`sort=${sort}&fields=at`, 3), want, sort);
        }
      },
    );

    await t.step(
      "a long string keeps its first 255 characters; a timestamp its instant, a lookalike none",
      async () => {
        // The demo site serves English items in German too: one row per requested language.
        const rows = (await sortKeys()).filter((r) =>
          r.requested_locale === "en"
        );
        const titles = rows.filter((r) => r.field_key === "title")
          .map((r) => r.text_value as string);
        ok(titles.includes(A255));
        ok(titles.every((v) => v.length <= 255));
        equal(titles.filter((v) => v === A255).length, 5);
        const times = rows.filter((r) => r.field_key === "at");
        ok(times.length > 0 && times.every((r) => r.time_value !== null));
        const notes = rows.filter((r) => r.field_key === "note");
        ok(
          notes.every((r) =>
            (r.time_value === null) && typeof r.text_value === "string"
          ),
        );
      },
    );

    await t.step(
      "equality on the sorted field matches the whole value, not items whose prefix it is (PUB-019)",
      async () => {
        const res = await w.get(
          `/v1/notebooks?filter[title]=${encodeURIComponent(A255)}&sort=title`,
        );
        equal(res.status, 200);
        const only = (await res.json()).data.map((i: { id: string }) => i.id);
        deepEqual(
          only,
          [...items].filter(([, f]) => f.title === A255).map(([id]) => id),
        );
      },
    );

    await t.step(
      "a date-time cursor is an instant in UTC; one written another way is refused, not cast",
      async () => {
        const first = await (await w.get("/v1/notebooks?sort=-at&limit=2"))
          .json();
        const now = new Date(w.clock.now());
        const cursor = await decodeCursor(db, first.page.next_cursor, now);
        ok(cursor);
        const [wasNull, value, id] = cursor.k as [number, string, string];
        equal(wasNull, 0);
        equal(new Date(value).toISOString().slice(0, 19), value.slice(0, 19));
        ok(value.endsWith("Z"));
        // How a Date turned into text before the instants had their own column.
        const older = await encodeCursor(db, {
          ...cursor,
          k: [0, String(new Date(value)), id],
        });
        const res = await w.get(
          `/v1/notebooks?sort=-at&limit=2&cursor=${older}`,
        );
        equal(res.status, 400);
        equal((await res.json()).error.code, "public_filter_invalid");
      },
    );

    await t.step(
      "the migration's fill gives earlier rows what the projection writes",
      async () => {
        const written = await sortKeys();
        await sql`delete from public_item_values s using public_items p
          where s.site_id = ${w.siteId} and p.site_id = s.site_id
            and p.group_id = s.group_id and p.requested_locale = s.requested_locale
            and char_length(p.fields ->> s.field_key) > 255`.execute(db);
        await sql`update public_item_values set time_value = null
          where site_id = ${w.siteId}`.execute(db);
        ok((await sortKeys()).length < written.length);
        await fillSortKeys(db);
        deepEqual(await sortKeys(), written);
        deepEqual(await walk("sort=-at", 5), expected(items, "-at"));
      },
    );
  } finally {
    await w.close();
  }
});
