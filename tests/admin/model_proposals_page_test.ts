// Model proposals reviewed in the admin: the proposal beside the model, what it would do to existing
// content, apply (an ordinary model save) or dismiss; a blocked change offers no apply (MOD-018..MOD-023).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { entryContentFacts } from "../../core/manage/content_facts.ts";
import { getModel } from "../../core/models/model_reads.ts";
import { createModelProposal } from "../../core/proposals/mod.ts";
import { setupDemo } from "./demo_helpers.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";

Deno.test("a model proposal page compares the fields, applies a safe change, refuses none for a blocked one, and dismisses", async () => {
  const demo = await setupDemo();
  const { t } = demo;
  try {
    const { db, clock } = t.services;
    const posts = await db.selectFrom("models").select("id")
      .where("site_id", "=", demo.siteId).where("slug", "=", "posts")
      .executeTakeFirstOrThrow();
    const read = async () => {
      const found = await getModel(
        { db, clock, siteId: demo.siteId },
        posts.id,
      );
      if (!found.ok) throw new Error("no posts model");
      return found.model;
    };
    const model = await read();
    const ctx = {
      db,
      clock,
      siteId: demo.siteId,
      actor: { kind: "person" as const, userId: demo.adminId },
      facts: (tx: typeof db, m: typeof model) =>
        entryContentFacts(tx, demo.siteId, m),
    };
    const definition = (fields: unknown[]) => ({
      model: { name: model.name, slug: model.slug, enableI18n: true },
      fields,
    });
    const safe = await createModelProposal(ctx, {
      mode: "update",
      model_id: model.id,
      base_updated_at: model.updatedAt.toISOString(),
      definition: definition([
        ...model.fields,
        { key: "subtitle", label: "Subtitle", type: "text", localized: true },
      ]),
      note: "Add a subtitle",
    });
    ok(safe.ok);
    // The title becoming a number cannot hold the stored text: blocked.
    const blocked = await createModelProposal(ctx, {
      mode: "update",
      model_id: model.id,
      base_updated_at: model.updatedAt.toISOString(),
      definition: definition(
        model.fields.map((f) =>
          f.key === "title" ? { ...f, type: "number", validation: {} } : f
        ),
      ),
      note: "Titles as numbers",
    });
    ok(blocked.ok);

    const jar = new CookieJar();
    await signInAs(t, jar, { email: demo.email, password: PASSWORD });
    const list = await (await request(t, jar, "/admin/models")).text();
    match(
      list,
      new RegExp(`href="/admin/models/proposals/${safe.proposal.id}"`),
    );
    const editor = await (await request(t, jar, `/admin/models/${model.id}`))
      .text();
    match(editor, /Open proposals for this model/);

    const blockedPage = await (await request(
      t,
      jar,
      `/admin/models/proposals/${blocked.proposal.id}`,
    )).text();
    match(blockedPage, /What applying would do/);
    equal(/>Apply</.test(blockedPage), false);
    match(blockedPage, />Dismiss</);

    const page = await (await request(
      t,
      jar,
      `/admin/models/proposals/${safe.proposal.id}`,
    ))
      .text();
    match(
      page,
      /<code>subtitle<\/code><\/th><td><span class="badge changed">added/,
    );
    match(page, /Existing content is not affected/);
    t.clock.advance(60_000);
    const applied = await request(
      t,
      jar,
      `/admin/models/proposals/${safe.proposal.id}`,
      {
        form: { _csrf: csrfField(page), action: "apply" },
      },
    );
    equal(applied.status, 303);
    ok((await read()).fields.some((f) => f.key === "subtitle"));
    const after =
      await (await request(t, jar, applied.headers.get("location")!)).text();
    match(after, /Applied: the model is saved/);
    equal(/>Dismiss</.test(after), false);

    // The model changed since the blocked proposal was made: it is stale and can only be dismissed.
    const stale = await (await request(
      t,
      jar,
      `/admin/models/proposals/${blocked.proposal.id}`,
    )).text();
    match(stale, /stale: the model changed since/);
    const dismissed = await request(
      t,
      jar,
      `/admin/models/proposals/${blocked.proposal.id}`,
      {
        form: { _csrf: csrfField(stale), action: "dismiss" },
      },
    );
    equal(dismissed.status, 303);
    const states = await db.selectFrom("model_proposals").select([
      "id",
      "state",
    ])
      .where("site_id", "=", demo.siteId).orderBy("note").execute();
    deepEqual(states.map((s) => s.state).sort(), ["applied", "dismissed"]);
    const again = await request(
      t,
      jar,
      `/admin/models/proposals/${blocked.proposal.id}`,
      {
        form: { _csrf: csrfField(stale), action: "dismiss" },
      },
    );
    equal(again.status, 409);
  } finally {
    await t.close();
  }
});
