// The fixture site's generated backend (every field kind) as its own process over HTTP: column
// shapes, text rules, private fields, translations, single entry, disabled operations, read
// tokens and the API description.
import assert from "node:assert/strict";
import pg from "pg";
import { fixtureBackend, whereId } from "./fixture_backend.ts";

type Row = Record<string, unknown>;
// The first bytes of a PNG: enough for a file the route serves as an image.
const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13]);
const code = (body: unknown) => (body as { code: string }).code;

Deno.test("generated fixture backend: fields, access and translations over HTTP", async (t) => {
  const b = await fixtureBackend();
  const post = (path: string, body: unknown, as?: string) =>
    b.call(path, { method: "POST", body: JSON.stringify(body), as });
  try {
    let article: Row = {};
    await t.step(
      "GEN-005 GEN-021: a row holds every kind; media has _id, _url and _originals",
      async () => {
        const res = await post("/api/article", {
          data: {
            price: 9.5,
            stock: 3,
            live: true,
            day: "2026-02-28",
            at: "2026-02-28T10:00:00Z",
            kind: "news",
            flags: ["a", "b"],
            meta: { any: ["json"] },
            cover_id: crypto.randomUUID(),
            gallery_id: [crypto.randomUUID()],
            secret: "hidden",
            seo: { meta_title: "T", note: "private" },
            location: { lat: 52.52, lon: 13.405 },
          },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        article = res.body as Row;
        assert.equal(article.day, "2026-02-28");
        assert.deepEqual(article.flags, ["a", "b"]);
        assert.deepEqual(article.location, { lat: 52.52, lon: 13.405 });
        assert.ok("cover_id" in article && "cover_url" in article);
        assert.deepEqual(article.cover_originals, {});
        // GEN-020: the write answer leaves out private columns, the component holding one too.
        assert.ok(!("secret" in article) && !("seo" in article));
      },
    );

    await t.step(
      "GEN-020: readers never see private columns; the service does",
      async () => {
        const anonymous = await b.call(
          `/api/article/unique?${whereId(article.id as string)}`,
          {
            as: "anonymous",
          },
        );
        assert.equal(anonymous.status, 200);
        const row = anonymous.body as Row;
        assert.ok(!("secret" in row) && !("seo" in row));
        assert.equal(row.kind, "news");
        const service =
          (await b.call(`/api/article/unique?${whereId(article.id as string)}`))
            .body as Row;
        assert.equal(service.secret, "hidden");
        assert.deepEqual(service.seo, { meta_title: "T", note: "private" });
      },
    );

    await t.step(
      "GEN-022: text keeps minLength, maxLength and a Unicode property pattern",
      async () => {
        const id = article.id as string;
        const title = (value: string) =>
          post("/api/articletranslation", {
            data: { article_id: id, lang: "en", title: value },
          });
        const tooShort = await title("É");
        assert.equal(tooShort.status, 422);
        assert.equal(code(tooShort.body), "field_validation_failed");
        const lower = await title("élan");
        assert.equal(lower.status, 422);
        const tooLong = await title("Ü".padEnd(11, "x"));
        assert.equal(tooLong.status, 422);
        const edge = await title("Ü".padEnd(10, "x"));
        assert.equal(edge.status, 201, JSON.stringify(edge.body));
      },
    );

    await t.step(
      "GEN-017 GEN-018: translation rows need a known language, an existing row, one per language",
      async () => {
        const id = article.id as string;
        const unknown = await post("/api/articletranslation", {
          data: { article_id: id, lang: "xx", title: "Abc" },
        });
        assert.equal(unknown.status, 422);
        assert.equal(code(unknown.body), "unknown_locale");
        const missing = await post("/api/articletranslation", {
          data: { article_id: crypto.randomUUID(), lang: "de", title: "Abc" },
        });
        assert.equal(missing.status, 422);
        assert.equal(code(missing.body), "translation_row_missing");
        const twice = await post("/api/articletranslation", {
          data: { article_id: id, lang: "en", title: "Abc" },
        });
        assert.equal(twice.status, 409);
        assert.equal(code(twice.body), "locale_exists");
        const rows = (await b.call(
          `/api/articletranslation?where=${
            encodeURIComponent(JSON.stringify({ article_id: id }))
          }`,
          { as: "anonymous" },
        )).body as Row[];
        assert.equal(rows.length, 1);
      },
    );

    await t.step(
      "GEN-019: translation updates change only translated values; writes inherit update",
      async () => {
        const [row] = (await b.call(`/api/articletranslation?take=1`))
          .body as Row[];
        const moveLang = await b.call("/api/articletranslation", {
          method: "PUT",
          body: JSON.stringify({ where: { id: row.id }, data: { lang: "de" } }),
        });
        assert.equal(moveLang.status, 400);
        const ok = await b.call("/api/articletranslation", {
          method: "PUT",
          body: JSON.stringify({
            where: { id: row.id },
            data: { title: "Neu" },
          }),
        });
        assert.equal(ok.status, 200);
        assert.equal((ok.body as Row).lang, row.lang);
        const reader = await b.call("/api/articletranslation", {
          method: "PUT",
          as: b.wildcardReader,
          body: JSON.stringify({
            where: { id: row.id },
            data: { title: "Nope" },
          }),
        });
        assert.equal(reader.status, 403);
      },
    );

    await t.step(
      "GEN-016: the single-entry table holds one row; a second create is 409",
      async () => {
        const first = await post("/api/settings", {
          data: { site_title: "One" },
        });
        assert.equal(first.status, 201);
        const second = await post("/api/settings", {
          data: { site_title: "Two" },
        });
        assert.equal(second.status, 409);
        assert.equal(code(second.body), "single_entry_exists");
        assert.equal(((await b.call("/api/settings")).body as Row[]).length, 1);
      },
    );

    await t.step(
      "GEN-011: a disabled operation is refused and left out of the description; its path stays",
      async () => {
        const tag = await post("/api/tag", { data: { label: "x" } });
        assert.equal(tag.status, 201);
        const del = await b.call("/api/tag", {
          method: "DELETE",
          body: JSON.stringify({ where: { id: (tag.body as Row).id } }),
        });
        assert.equal(del.status, 404);
        assert.equal(code(del.body), "operation_unavailable");
        const doc = (await b.call("/api/openapi.json")).body as {
          paths: Record<string, Record<string, unknown>>;
        };
        assert.ok(doc.paths["/api/tag/"].post);
        assert.ok(!("delete" in doc.paths["/api/tag/"]));
        assert.ok("delete" in doc.paths["/api/article/"]);
      },
    );

    await t.step(
      "GACC-003 GACC-006: an issued and an owned read token both work; each reads its models only, never writes",
      async () => {
        assert.equal(
          (await b.call("/api/tag", { as: b.tagReader })).status,
          200,
        );
        const other = await b.call("/api/section", { as: b.tagReader });
        assert.equal(other.status, 403);
        assert.equal(code(other.body), "forbidden");
        const write = await post(
          "/api/tag",
          { data: { label: "y" } },
          b.tagReader,
        );
        assert.equal(write.status, 403);
        assert.equal(
          (await b.call("/api/section", { as: b.wildcardReader })).status,
          200,
        );
      },
    );

    await t.step(
      "GEN-036 GACC-003: the description needs a wildcard token",
      async () => {
        assert.equal(
          (await b.call("/api/openapi.json", { as: b.tagReader })).status,
          403,
        );
        assert.equal(
          (await b.call("/api/openapi.json", { as: b.wildcardReader })).status,
          200,
        );
      },
    );

    await t.step(
      "GEN-020: a reader token does not see private columns either",
      async () => {
        const row = (await b.call(
          `/api/article/unique?${whereId(article.id as string)}`,
          {
            as: b.wildcardReader,
          },
        )).body as Row;
        assert.ok(!("secret" in row) && !("seo" in row));
      },
    );

    await t.step(
      "GEN-015: readers may not select or order by a private column",
      async () => {
        const where = encodeURIComponent(JSON.stringify({ secret: "hidden" }));
        assert.equal(
          (await b.call(`/api/article?where=${where}`, { as: "anonymous" }))
            .status,
          400,
        );
        assert.equal((await b.call(`/api/article?where=${where}`)).status, 200);
        const order = encodeURIComponent(JSON.stringify({ secret: "asc" }));
        assert.equal(
          (await b.call(`/api/article?orderBy=${order}`, { as: "anonymous" }))
            .status,
          400,
        );
      },
    );

    await t.step(
      "GEN-027 GEN-028 GEN-029 GEN-030 GEN-031: spatial filters and nearest order",
      async () => {
        const at = async (location: unknown) =>
          ((await post("/api/article", { data: { location } })).body as Row)
            .id as string;
        const berlin = article.id as string; // 52.52, 13.405
        const near = await at({ lat: 52.529, lon: 13.405 }); // about 1 km north
        const far = await at({ lat: 52.61, lon: 13.405 }); // about 10 km north
        const dateline = await at({ lat: 0, lon: 179 });
        const nowhere = await at(null);
        const ids = async (query: string) => {
          const res = await b.call(`/api/article?take=100&${query}`, {
            as: "anonymous",
          });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          return (res.body as Row[]).map((r) => r.id as string);
        };
        const radius = await ids(
          "filter[location][within_radius]=52.52,13.405,5000",
        );
        assert.deepEqual(radius.sort(), [berlin, near].sort());
        const box = await ids("filter[location][within_bbox]=-1,170,1,-170");
        assert.deepEqual(box, [dateline]);
        const inclusive = await ids(
          "filter[location][within_bbox]=52.529,13.405,52.61,13.405",
        );
        assert.deepEqual(inclusive.sort(), [near, far].sort());
        const nearest = await ids("sort=location&origin=52.52,13.405");
        const located = [berlin, near, far, dateline];
        assert.deepEqual(nearest.slice(0, 4), located);
        assert.ok(nearest.indexOf(nowhere) >= 4);
        const unplaced = nearest.slice(4);
        assert.deepEqual(unplaced, [...unplaced].sort());
        const farthest = await ids("sort=-location&origin=52.52,13.405");
        assert.deepEqual(farthest.slice(0, 4), [...located].reverse());
        // Filtering and order come before pagination and counts.
        const page = await b.call(
          "/api/article/paginated?take=1&filter[location][within_radius]=52.52,13.405,5000&sort=location&origin=52.52,13.405",
          { as: "anonymous" },
        );
        assert.deepEqual(page.body, {
          data: [
            (await b.call(`/api/article/unique?${whereId(berlin)}`, {
              as: "anonymous",
            })).body,
          ],
          total: 2,
          hasMore: true,
        });
        for (
          const bad of [
            "filter[location][within_radius]=91,0,10",
            "filter[location][within_radius]=1,2",
            "filter[location][within_bbox]=5,0,1,1",
            "sort=location",
            `sort=location&origin=0,0&orderBy=${
              encodeURIComponent('{"id":"asc"}')
            }`,
            "filter[kind][within_radius]=0,0,1",
          ]
        ) {
          const res = await b.call(`/api/article?${bad}`, { as: "anonymous" });
          assert.equal(res.status, 400, bad);
          assert.equal(code(res.body), "spatial_query_invalid", bad);
        }
        const denied = await b.call(
          "/api/article?filter[hideout][within_radius]=0,0,10",
          {
            as: "anonymous",
          },
        );
        assert.equal(denied.status, 403);
        assert.equal(code(denied.body), "spatial_field_denied");
        assert.equal(
          (await b.call("/api/article?filter[hideout][within_radius]=0,0,10"))
            .status,
          200,
        );
      },
    );

    await t.step(
      "GEN-032 GEN-034 GEN-035: private files are served from their marker, private and no-store",
      async () => {
        const id = article.id as string;
        const path = `/api/article/files/contract/${id}`;
        // No marker in contract_url yet.
        assert.equal((await b.call(path)).status, 404);
        assert.equal(
          (await b.call(`/api/article/files/title/${id}`)).status,
          404,
        );
        assert.equal(
          (await b.call(`/api/article/files/contract/${crypto.randomUUID()}`))
            .status,
          404,
        );
        // A reader may read the row but not its private field: the file does not exist for them.
        assert.equal((await b.call(path, { as: "anonymous" })).status, 404);
        if (!b.databaseUrl) return; // The marker is set from outside, which needs PostgreSQL.
        const client = new pg.Client({ connectionString: b.databaseUrl });
        await client.connect();
        try {
          await client.query(
            "update article set contract_url = $1 where id = $2",
            [
              "private-file:contract.pdf",
              id,
            ],
          );
        } finally {
          await client.end();
        }
        assert.equal((await b.call(path)).status, 404); // the object is missing
        await Deno.writeFile(
          `${b.filesDir}/contract.pdf`,
          new TextEncoder().encode("%PDF-1.4 test"),
        );
        const res = await fetch(`${b.url}${path}`, {
          headers: { authorization: `Bearer ${b.bearer}` },
        });
        assert.equal(res.status, 200);
        assert.equal(await res.text(), "%PDF-1.4 test");
        assert.equal(res.headers.get("cache-control"), "private, no-store");
        assert.equal(res.headers.get("content-type"), "application/pdf");
        assert.equal(res.headers.get("content-disposition"), "inline");
      },
    );

    await t.step(
      "GEN-033: ?media= serves a private rich-text field's file, &variant=thumb|preview its variant",
      async () => {
        const id = article.id as string;
        const path = `/api/article/files/dossier/${id}`;
        const media = crypto.randomUUID();
        const object = crypto.randomUUID();
        // A rich-text field has no file of its own: without ?media= there is no marker.
        assert.equal((await b.call(path)).status, 404);
        assert.equal((await b.call(`${path}?media=${media}`)).status, 404);
        // Bad combinations are refused before anything is read.
        for (
          const query of [
            `?variant=thumb`,
            `?media=${media}&variant=large`,
          ]
        ) {
          const res = await b.call(`${path}${query}`);
          assert.equal(res.status, 400, query);
          assert.equal(code(res.body), "invalid_request");
        }
        const onMediaField = await b.call(
          `/api/article/files/contract/${id}?media=${media}`,
        );
        assert.equal(onMediaField.status, 400);
        if (!b.databaseUrl) return; // The map is set from outside, which needs PostgreSQL.
        const client = new pg.Client({ connectionString: b.databaseUrl });
        await client.connect();
        try {
          await client.query(
            "update article set dossier_media = $1 where id = $2",
            [JSON.stringify({ [media]: `private-file:${object}.png` }), id],
          );
        } finally {
          await client.end();
        }
        assert.equal((await b.call(`${path}?media=${media}`)).status, 404); // no object yet
        await Deno.writeFile(`${b.filesDir}/${object}.png`, PNG);
        await Deno.writeFile(
          `${b.filesDir}/${object}.thumb.webp`,
          new TextEncoder().encode("RIFF-thumb"),
        );
        const get = (query: string, as = b.bearer) =>
          fetch(`${b.url}${path}${query}`, {
            headers: { authorization: `Bearer ${as}` },
          });
        const original = await get(`?media=${media}`);
        assert.equal(original.status, 200);
        assert.deepEqual(new Uint8Array(await original.arrayBuffer()), PNG);
        assert.equal(original.headers.get("content-type"), "image/png");
        assert.equal(
          original.headers.get("cache-control"),
          "private, no-store",
        );
        const thumb = await get(`?media=${media}&variant=thumb`);
        assert.equal(thumb.status, 200);
        assert.equal(await thumb.text(), "RIFF-thumb");
        assert.equal(thumb.headers.get("content-type"), "image/webp");
        assert.equal(thumb.headers.get("content-disposition"), "inline");
        // No preview was copied: that variant does not exist, and the original is not sent instead.
        const preview = await get(`?media=${media}&variant=preview`);
        assert.equal(preview.status, 404);
        await preview.body?.cancel();
        // The media id is matched whatever its case; another id is not in the map.
        assert.equal(
          (await get(`?media=${media.toUpperCase()}&variant=thumb`)).status,
          200,
        );
        assert.equal(
          (await b.call(`${path}?media=${crypto.randomUUID()}`)).status,
          404,
        );
        // The field is private: a reader, even one with a wildcard token, finds nothing.
        assert.equal(
          (await b.call(`${path}?media=${media}`, { as: "anonymous" })).status,
          404,
        );
        assert.equal(
          (await b.call(`${path}?media=${media}`, { as: b.wildcardReader }))
            .status,
          404,
        );
        // A write cannot set the map: it is the generator's.
        const write = await b.call("/api/article", {
          method: "PUT",
          body: JSON.stringify({
            where: { id },
            data: { dossier_media: {} },
          }),
        });
        assert.equal(write.status, 400);
      },
    );
  } finally {
    await b.stop();
  }
});
