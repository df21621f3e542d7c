// Filtered + sorted lists filter on the item facets carried by the sort index (migration 0120)
// over HTTP: the same pages as the filters on `fields`, through long values, NULL facets, edits
// and the migration's fill (spec 3 part 4.2; inventory PUB-013, PUB-017, PUB-019 to PUB-021,
// PUB-024, PUB-025).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { fillFacets } from "../../core/db/migrations/0120_public_item_facets.ts";
import { publishEntry, saveEntry } from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/store.ts";
import { openPublicWorld, walkIds } from "./helpers.ts";

type Fields = Record<string, unknown>;

/** 200 characters, so a valid filter value, but 402 bytes of JSON: never copied into facets. */
const LONG_TITLE = "é".repeat(200);
const ITEMS = 30;

/**
 * Item i's fields: ties, missing sort values, long values and (i % 8 = 5) NULL facets; `tags`
 * are the 4 tag lists to cycle through.
 */
function fieldsOf(i: number, tags: string[][]): Fields {
  const f: Fields = {
    title: i % 6 === 1 ? LONG_TITLE : `Item ${i}`,
    kind: ["a", "b", "c"][i % 3],
    colors: ["red", "green", "blue"].filter((_, c) => (i >> c) & 1),
    tags: tags[i % 4],
  };
  if (i % 5 !== 4) f.price = (i * 7) % 10;
  if (i % 7 !== 6) {
    f.day = `2026-01-${String(1 + (i * 5) % 28).padStart(2, "0")}`;
  }
  if (i % 8 === 5) {
    for (let p = 1; p <= 5; p++) f[`pad${p}`] = `${p}`.repeat(240);
  }
  return f;
}

/** A list query and the same filter and order computed here. */
interface Case {
  query: string;
  match(f: Fields): boolean;
  sort: string;
}

/** The ids the list must answer: matches by sort value (missing last), then by id. */
function expected(items: Map<string, Fields>, c: Case): string[] {
  const desc = c.sort.startsWith("-");
  const key = c.sort.replace("-", "");
  const rows = [...items].filter(([, f]) => c.match(f));
  return rows.sort(([a, f], [b, g]) => {
    const [x, y] = [f[key] as string | number, g[key] as string | number];
    if (x !== y) {
      if (x === undefined || y === undefined) return x === undefined ? 1 : -1;
      return (x < y ? -1 : 1) * (desc ? -1 : 1);
    }
    return a < b ? -1 : 1;
  }).map(([id]) => id);
}

Deno.test("filtered + sorted lists filter on the facets of the sort index", async (t) => {
  const w = await openPublicWorld();
  const ctx = w.ctx();
  const db = w.services.db;
  /** Every page of `q` with 3 items a page, following the cursors. */
  const walk = (q: string) => walkIds(w, `/v1/gadgets?${q}&limit=3`, ITEMS);
  const facetRows = async () =>
    (await sql<{ group_id: string; field_key: string; facets: unknown }>`
      select group_id, field_key, facets from public_item_values
      where site_id = ${w.siteId} order by group_id, requested_locale, field_key
    `.execute(db)).rows;
  try {
    const tagsModel = await w.modelId("tags");
    const deno = await w.groupId("tags", "deno");
    const typescript = await w.groupId("tags", "typescript");
    // All 8 tags are 320 bytes of JSON: the relation and tag filters read them from `fields`.
    const all = (await db.selectFrom("entries").select("group_id")
      .where("site_id", "=", w.siteId).where("model_id", "=", tagsModel)
      .where("locale", "=", "en").execute()).map((r) => r.group_id);
    const tagLists = [[deno], [deno, typescript], all, []];
    const made = await createModel({ db, clock: w.clock, siteId: w.siteId }, {
      model: {
        name: "Gadgets",
        slug: "gadgets",
        description: "",
        enableI18n: false,
      },
      fields: [
        { key: "title", label: "Title", type: "text" },
        { key: "price", label: "Price", type: "number" },
        {
          key: "kind",
          label: "Kind",
          type: "select",
          config: { options: ["a", "b", "c"] },
        },
        {
          key: "colors",
          label: "Colors",
          type: "select",
          config: { options: ["red", "green", "blue"], multiple: true },
        },
        { key: "day", label: "Day", type: "date" },
        {
          key: "tags",
          label: "Tags",
          type: "relation",
          config: { targets: [tagsModel], cardinality: "many-to-many" },
        },
        ...[1, 2, 3, 4, 5].map((p) => ({
          key: `pad${p}`,
          label: `Pad ${p}`,
          type: "text",
        })),
      ],
    });
    ok(made.ok, JSON.stringify(made));
    const items = new Map<string, Fields>();
    const versions = new Map<string, string>();
    const publish = async (fields: Fields, groupId?: string) => {
      const s = await saveEntry(ctx, {
        ...(groupId
          ? { group_id: groupId }
          : { model_id: made.model_id!, slug: `g-${items.size}` }),
        locale: "en",
        fields,
        expected_current_version_id: groupId ? versions.get(groupId)! : null,
      });
      ok(s.ok, JSON.stringify(s));
      const p = await publishEntry(ctx, {
        group_id: s.group_id,
        expected_current_version_id: s.current_version_id,
        expected_workflow_revision: s.revision,
      });
      ok(p.ok, JSON.stringify(p));
      items.set(s.group_id, fields);
      versions.set(s.group_id, s.current_version_id!);
      return s.group_id;
    };
    const ids: string[] = [];
    for (let i = 0; i < ITEMS; i++) {
      ids.push(await publish(fieldsOf(i, tagLists)));
    }

    const tags = (f: Fields) => f.tags as string[];
    const colors = (f: Fields) => f.colors as string[];
    const cases: Case[] = [
      { query: "filter[kind]=a", match: (f) => f.kind === "a", sort: "-price" },
      {
        query: "filter[colors]=red",
        match: (f) => colors(f).includes("red"),
        sort: "price",
      },
      {
        query: `filter[title]=${encodeURIComponent(LONG_TITLE)}`,
        match: (f) => f.title === LONG_TITLE,
        sort: "-price",
      },
      {
        query: `relation=tags:${deno}`,
        match: (f) => tags(f).includes(deno),
        sort: "day",
      },
      {
        query: "tag=tags:typescript&filter[kind]=b",
        match: (f) => tags(f).includes(typescript) && f.kind === "b",
        sort: "-day",
      },
      {
        query:
          "filter[price][gte]=2&filter[price][lt]=8&filter[kind]=c&filter[kind]=b",
        match: (f) =>
          (f.price as number) >= 2 && (f.price as number) < 8 && f.kind !== "a",
        sort: "-price",
      },
      {
        query:
          "filter[day][gte]=2026-01-06&filter[day][lte]=2026-01-20&filter[colors]=blue",
        match: (f) =>
          (f.day as string) >= "2026-01-06" &&
          (f.day as string) <= "2026-01-20" &&
          colors(f).includes("blue"),
        sort: "price",
      },
      {
        query: "filter[kind]=a&filter[kind]=c&filter[colors]=green",
        match: (f) => f.kind !== "b" && colors(f).includes("green"),
        sort: "-day",
      },
      {
        query: "filter[colors]=green",
        match: (f) => colors(f).includes("green"),
        sort: "kind",
      },
      // A range on the sorted number field is decided by the index range alone.
      {
        query: "filter[price][gt]=2.5&filter[price][lte]=7.0&filter[kind]=a",
        match: (f) =>
          (f.price as number) > 2.5 && (f.price as number) <= 7 &&
          f.kind === "a",
        sort: "price",
      },
      // Equality on the sorted field itself becomes the index range.
      {
        query: "filter[price]=1&filter[colors]=red",
        match: (f) => f.price === 1 && colors(f).includes("red"),
        sort: "-price",
      },
      {
        query: "filter[price]=2&filter[price]=7",
        match: (f) => f.price === 2 || f.price === 7,
        sort: "price",
      },
      {
        query: "filter[kind]=c&filter[kind]=a",
        match: (f) => f.kind !== "b",
        sort: "-kind",
      },
      {
        query: "filter[day]=2026-01-06",
        match: (f) => f.day === "2026-01-06",
        sort: "day",
      },
    ];
    const answers = async () => {
      const out: string[][] = [];
      for (const c of cases) out.push(await walk(`${c.query}&sort=${c.sort}`));
      return out;
    };

    await t.step(
      "facets copy short values, mark long ones, and are NULL past 1024 bytes",
      async () => {
        const rows = await facetRows();
        const of = (i: number) =>
          rows.find((r) => r.group_id === ids[i])!.facets as Fields;
        deepEqual(of(0), fieldsOf(0, tagLists));
        equal(of(5), null);
        deepEqual(of(1).title, { "~": true });
        deepEqual(of(2).tags, { "~": true });
        deepEqual(of(2).colors, ["green"]);
      },
    );

    await t.step(
      "every page, across cursors, is the filter on fields in sort order (PUB-013, PUB-017, PUB-019 to PUB-021, PUB-024, PUB-025)",
      async () => {
        const got = await answers();
        cases.forEach((c, n) => {
          const want = expected(items, c);
          ok(want.length >= 2, c.query.slice(0, 80));
          deepEqual(got[n], want, c.query.slice(0, 80));
        });
        // The cases reach long values and NULL facets, in the matches and the rejections.
        const all = got.flat();
        ok(
          all.includes(ids[1]) && all.includes(ids[2]) && all.includes(ids[5]),
        );
      },
    );

    await t.step(
      "without facets the answers are the same; the migration's fill restores them as the projection wrote them",
      async () => {
        const before = await answers();
        const written = await facetRows();
        await sql`update public_item_values set facets = null where site_id = ${w.siteId}`
          .execute(db);
        deepEqual(await answers(), before);
        await fillFacets(db);
        deepEqual(await facetRows(), written);
      },
    );

    await t.step(
      "the filters run on the index entries: a facet decides for its item",
      async () => {
        const kindA = cases[0];
        ok(expected(items, kindA).includes(ids[0]));
        await sql`update public_item_values set facets = facets || '{"kind": "b"}'
        where site_id = ${w.siteId} and group_id = ${ids[0]}`.execute(db);
        ok(!(await walk(`${kindA.query}&sort=${kindA.sort}`)).includes(ids[0]));
        await fillFacets(db);
        deepEqual(
          await walk(`${kindA.query}&sort=${kindA.sort}`),
          expected(items, kindA),
        );
      },
    );

    await t.step(
      "facets follow edits: a re-published item is filtered by its new values",
      async () => {
        const changed: [number, Fields][] = [
          [0, {
            ...fieldsOf(0, tagLists),
            kind: "c",
            price: 9,
            title: LONG_TITLE,
            colors: ["blue"],
          }],
          [5, {
            title: "Item 5",
            kind: "a",
            price: 1,
            colors: ["red", "green"],
            tags: [deno],
          }],
          [1, {
            ...fieldsOf(1, tagLists),
            title: "Short now",
            tags: [typescript],
          }],
        ];
        for (const [i, fields] of changed) await publish(fields, ids[i]);
        const got = await answers();
        cases.forEach((c, n) =>
          deepEqual(got[n], expected(items, c), c.query.slice(0, 80))
        );
        const rows = await facetRows();
        deepEqual(
          rows.find((r) => r.group_id === ids[5])!.facets,
          items.get(ids[5]),
        );
      },
    );
  } finally {
    await w.close();
  }
});
