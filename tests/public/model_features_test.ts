// Private fields, nulls-last and point sorting, manual order and related pages over HTTP (spec 3 parts 4.2,
// 4.4; spec 2 part 2.3 item 3; inventory PUB-016 to PUB-018, PUB-028, PUB-038, PUB-039).
import { deepEqual, equal, ok } from "node:assert/strict";
import { publishEntry, saveEntry } from "../../core/entries/mod.ts";
import { setManualOrder } from "../../core/public/manual_order.ts";
import { createModel } from "../../core/models/store.ts";
import { issueSiteToken } from "../../core/public/site_tokens.ts";
import { codeOf, openPublicWorld } from "./helpers.ts";

Deno.test("model features of the public list", async (t) => {
  const w = await openPublicWorld();
  const ctx = w.ctx();
  const modelCtx = { db: w.services.db, clock: w.clock, siteId: w.siteId };
  try {
    const tags = await w.modelId("tags");
    const made = await createModel(modelCtx, {
      model: {
        name: "Shops",
        slug: "shops",
        description: "",
        enableI18n: false,
      },
      fields: [
        { key: "name", label: "Name", type: "text", required: true },
        { key: "price", label: "Price", type: "number" },
        { key: "cost", label: "Cost", type: "number", private: true },
        { key: "place", label: "Place", type: "point" },
        {
          key: "tags",
          label: "Tags",
          type: "relation",
          config: { targets: [tags], cardinality: "many-to-many" },
        },
      ],
    });
    ok(made.ok, JSON.stringify(made));
    const shops = made.model_id!;
    // 30 extra tags so one shop links more than 25 targets.
    const tagIds: string[] = [];
    for (let i = 0; i < 30; i++) {
      const s = await saveEntry(ctx, {
        model_id: tags,
        locale: "en",
        slug: `extra-${i}`,
        fields: { name: `Extra ${i}` },
        expected_current_version_id: null,
      });
      ok(s.ok, JSON.stringify(s));
      ok(
        (await publishEntry(ctx, {
          group_id: s.group_id,
          expected_current_version_id: s.current_version_id,
          expected_workflow_revision: s.revision,
        })).ok,
      );
      tagIds.push(s.group_id);
    }
    const places = [
      ["berlin", 52.52, 13.405, 10, tagIds],
      ["paris", 48.857, 2.352, null, tagIds.slice(0, 2)],
      ["hamburg", 53.55, 9.993, 30, []],
      ["munich", 48.137, 11.575, 20, []],
      ["nowhere", null, null, 5, []],
    ] as const;
    const shopIds: Record<string, string> = {};
    for (const [slug, lat, lng, price, links] of places) {
      const fields: Record<string, unknown> = {
        name: slug,
        cost: 271828182,
        tags: [...links],
      };
      if (lat !== null) fields.place = { latitude: lat, longitude: lng };
      if (price !== null) fields.price = price;
      const s = await saveEntry(ctx, {
        model_id: shops,
        locale: "en",
        slug,
        fields,
        expected_current_version_id: null,
      });
      ok(s.ok, JSON.stringify(s));
      ok(
        (await publishEntry(ctx, {
          group_id: s.group_id,
          expected_current_version_id: s.current_version_id,
          expected_workflow_revision: s.revision,
        })).ok,
      );
      shopIds[slug] = s.group_id;
    }

    await t.step(
      "private fields never appear and are unknown to filter, sort, fields (spec 2 part 2.3 item 3, MOD-029, MOD-030)",
      async () => {
        const list = await w.get("/v1/shops?limit=100");
        const text = await list.text();
        ok(
          !text.includes("cost") && !text.includes("271828182"),
          "private field leaked",
        );
        const single = await (await w.get("/v1/shops/berlin")).text();
        ok(!single.includes("cost") && !single.includes("271828182"));
        for (
          const q of [
            "filter[cost]=999",
            "sort=cost",
            "fields=cost",
            "filter[cost][gt]=1",
          ]
        ) {
          const res = await w.get(`/v1/shops?${q}`);
          equal(res.status, 400, q);
          equal(await codeOf(res), "public_filter_invalid", q);
        }
        const scoped = await issueSiteToken({
          db: w.services.db,
          clock: w.clock,
        }, { siteId: w.siteId, name: "t", modelIds: [shops] });
        ok(scoped.ok);
        const withToken = await (await w.get("/v1/shops/berlin", {
          authorization: `Bearer ${scoped.token}`,
        })).text();
        ok(
          !withToken.includes("271828182"),
          "a token does not reveal private fields either",
        );
      },
    );

    await t.step(
      "sort: items without a value come last in both directions (PUB-017)",
      async () => {
        const asc = await (await w.get("/v1/shops?sort=price")).json();
        deepEqual(asc.data.map((i: { slug: string }) => i.slug), [
          "nowhere",
          "berlin",
          "munich",
          "hamburg",
          "paris",
        ]);
        const desc = await (await w.get("/v1/shops?sort=-price")).json();
        deepEqual(desc.data.map((i: { slug: string }) => i.slug), [
          "hamburg",
          "munich",
          "berlin",
          "nowhere",
          "paris",
        ]);
        const paged: string[] = [];
        let cursor: string | null = null;
        for (let i = 0; i < 6; i++) {
          const body: {
            data: { slug: string }[];
            page: { next_cursor: string | null };
          } = await (await w.get(
            `/v1/shops?sort=-price&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
          )).json();
          paged.push(...body.data.map((d) => d.slug));
          cursor = body.page.next_cursor;
          if (!cursor) break;
        }
        deepEqual(paged, ["hamburg", "munich", "berlin", "nowhere", "paris"]);
      },
    );

    await t.step(
      "point fields sort by distance from origin, and need it (PUB-018)",
      async () => {
        equal(
          await codeOf(await w.get("/v1/shops?sort=place")),
          "public_filter_invalid",
        );
        equal(
          await codeOf(await w.get("/v1/shops?sort=place&origin=91,0")),
          "public_filter_invalid",
        );
        equal(
          await codeOf(await w.get("/v1/shops?origin=1,2")),
          "public_filter_invalid",
        );
        const near =
          await (await w.get("/v1/shops?sort=place&origin=53.0,10.0")).json();
        deepEqual(near.data.map((i: { slug: string }) => i.slug), [
          "hamburg",
          "berlin",
          "munich",
          "paris",
          "nowhere",
        ]);
        const first =
          await (await w.get("/v1/shops?sort=place&origin=53.0,10.0&limit=3"))
            .json();
        const rest = await (await w.get(
          `/v1/shops?sort=place&origin=53.0,10.0&limit=3&cursor=${first.page.next_cursor}`,
        )).json();
        deepEqual(rest.data.map((i: { slug: string }) => i.slug), [
          "paris",
          "nowhere",
        ]);
        equal(
          await codeOf(
            await w.get(
              `/v1/shops?sort=place&origin=50.0,10.0&limit=3&cursor=${first.page.next_cursor}`,
            ),
          ),
          "public_cursor_mismatch",
        );
      },
    );

    await t.step(
      "order=manual follows the editorial order; a cursor is refused after it changes (PUB-016)",
      async () => {
        await setManualOrder(w.services.db, {
          siteId: w.siteId,
          modelId: shops,
          groupIds: [shopIds.paris, shopIds.nowhere, shopIds.berlin],
        });
        const first = await (await w.get("/v1/shops?order=manual&limit=2"))
          .json();
        deepEqual(first.data.map((i: { slug: string }) => i.slug), [
          "paris",
          "nowhere",
        ]);
        const second = await (await w.get(
          `/v1/shops?order=manual&limit=2&cursor=${first.page.next_cursor}`,
        )).json();
        equal(second.data[0].slug, "berlin");
        await setManualOrder(w.services.db, {
          siteId: w.siteId,
          modelId: shops,
          groupIds: [shopIds.berlin],
        });
        const res = await w.get(
          `/v1/shops?order=manual&limit=2&cursor=${first.page.next_cursor}`,
        );
        equal(res.status, 400);
        equal(await codeOf(res), "public_filter_invalid");
        equal(
          await codeOf(await w.get("/v1/shops?order=manual&sort=price")),
          "public_filter_invalid",
        );
      },
    );

    await t.step(
      "expand inlines 25 targets; /v1/_related pages the rest (PUB-028, PUB-038, PUB-039)",
      async () => {
        const body = await (await w.get("/v1/shops/berlin?expand=tags")).json();
        const expanded = body.data.expanded.tags;
        equal(expanded.data.length, 25);
        deepEqual(
          expanded.data.map((i: { id: string }) => i.id),
          tagIds.slice(0, 25),
        );
        equal(expanded.page.has_more, true);
        const cursor = expanded.page.next_cursor;
        ok(cursor);
        const rest = await (await w.get(`/v1/_related/shops?cursor=${cursor}`))
          .json();
        deepEqual(rest.data.map((i: { id: string }) => i.id), tagIds.slice(25));
        deepEqual(rest.page, { limit: 25, has_more: false, next_cursor: null });
        const small =
          await (await w.get(`/v1/_related/shops?cursor=${cursor}&limit=2`))
            .json();
        equal(small.data.length, 2);
        const after = await (await w.get(
          `/v1/_related/shops?cursor=${small.page.next_cursor}&limit=100`,
        )).json();
        deepEqual(
          after.data.map((i: { id: string }) => i.id),
          tagIds.slice(27),
        );
        equal(
          await codeOf(await w.get("/v1/_related/shops")),
          "public_filter_invalid",
        );
        equal(
          await codeOf(
            await w.get(`/v1/_related/shops?cursor=${cursor}&limit=101`),
          ),
          "public_filter_invalid",
        );
        equal(
          await codeOf(
            await w.get(`/v1/_related/shops?cursor=${cursor}&limit=0`),
          ),
          "public_filter_invalid",
        );
        equal(
          await codeOf(
            await w.get(`/v1/_related/shops?cursor=${cursor}&foo=1`),
          ),
          "public_filter_invalid",
        );
        equal(
          await codeOf(await w.get(`/v1/_related/shops?cursor=nope`)),
          "public_filter_invalid",
        );
        equal(
          await codeOf(await w.get(`/v1/_related/posts?cursor=${cursor}`)),
          "public_cursor_mismatch",
        );
        const scoped = await issueSiteToken({
          db: w.services.db,
          clock: w.clock,
        }, { siteId: w.siteId, name: "t", modelIds: [shops] });
        ok(scoped.ok);
        const other = await w.get(`/v1/_related/shops?cursor=${cursor}`, {
          authorization: `Bearer ${scoped.token}`,
        });
        equal(await codeOf(other), "public_cursor_mismatch");
        // Republishing the owner makes the cursor stale.
        const g = await w.services.db.selectFrom("entry_groups").select([
          "revision",
        ]).where("id", "=", shopIds.berlin).executeTakeFirstOrThrow();
        const e = await w.services.db.selectFrom("entries").select([
          "current_version_id",
        ]).where("group_id", "=", shopIds.berlin).executeTakeFirstOrThrow();
        const saved = await saveEntry(ctx, {
          group_id: shopIds.berlin,
          locale: "en",
          slug: "berlin",
          fields: {
            name: "Berlin",
            price: 11,
            cost: 1,
            place: { latitude: 52.52, longitude: 13.405 },
            tags: tagIds,
          },
          expected_current_version_id: e.current_version_id,
        });
        ok(saved.ok, JSON.stringify(saved));
        ok(
          (await publishEntry(ctx, {
            group_id: shopIds.berlin,
            expected_current_version_id: saved.current_version_id,
            expected_workflow_revision: g.revision,
          })).ok,
        );
        equal(
          await codeOf(await w.get(`/v1/_related/shops?cursor=${cursor}`)),
          "public_cursor_stale",
        );
      },
    );
  } finally {
    await w.close();
  }
});
