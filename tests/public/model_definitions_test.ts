// Public reads keep model definitions between requests (core/public/model_definitions.ts): a model
// change is served from the very next read (spec 2 part 2.3 item 3: private fields never leak;
// spec 3 part 4.2; inventory PUB-035: a private model answers like a missing one).
import { deepEqual, equal, ok } from "node:assert/strict";
import { entryContentFacts } from "../../core/manage/content_facts.ts";
import {
  applyModelDefinition,
  updateModelInfo,
} from "../../core/models/store.ts";
import { definitionOf, loadModels } from "../../core/models/store_rows.ts";
import { codeOf, openPublicWorld } from "./helpers.ts";

Deno.test("a model change shows at the next public read, though definitions are kept between reads (PUB-035, private fields)", async () => {
  const w = await openPublicWorld();
  const { db } = w.services;
  const ctx = { db, clock: w.clock, siteId: w.siteId };
  const facts = (d: typeof db, model: { id: string }) =>
    entryContentFacts(d, w.siteId, model);
  try {
    const postsId = await w.modelId("posts");
    const readFirst = async (query = "") => {
      const res = await w.get(`/v1/posts?limit=1${query}`);
      return { status: res.status, body: await res.json() };
    };
    // Two reads: the second one is served with the kept definition.
    for (let i = 0; i < 2; i++) {
      const { status, body } = await readFirst();
      equal(status, 200);
      ok("reading_minutes" in body.data[0].fields);
    }
    equal((await readFirst("&filter[reading_minutes][gte]=1")).status, 200);

    const [posts] = await loadModels(db, w.siteId, [postsId]);
    const definition = definitionOf(posts);
    const hidden = await applyModelDefinition(ctx, postsId, {
      ...definition,
      fields: definition.fields.map((f) =>
        f.key === "reading_minutes" ? { ...f, private: true } : f
      ),
    }, { baseRevision: posts.revision, facts });
    ok(hidden.ok, JSON.stringify(hidden));

    const after = await readFirst();
    equal(after.status, 200);
    equal("reading_minutes" in after.body.data[0].fields, false);
    const filtered = await w.get("/v1/posts?filter[reading_minutes][gte]=1");
    equal(filtered.status, 400);
    equal(await codeOf(filtered), "public_filter_invalid");

    // The whole model made private: the next read answers like a missing model.
    const [current] = await loadModels(db, w.siteId, [postsId]);
    const closed = await updateModelInfo(ctx, postsId, {
      ...definitionOf(current).model,
      isPublic: false,
    }, { baseRevision: current.revision, facts });
    ok(closed.ok, JSON.stringify(closed));
    const gone = await w.get("/v1/posts");
    equal(gone.status, 404);
    equal(await codeOf(gone), "not_found");
    deepEqual(
      (await (await w.get("/v1/_search?q=post&locale=en")).json()).data
        .filter((r: { model: string }) => r.model === "posts"),
      [],
    );
  } finally {
    await w.close();
  }
});
