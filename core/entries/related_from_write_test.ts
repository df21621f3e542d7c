// Tests of writeRelatedFrom(): which entries link to one entry, changed in one command across the sources.
import assert from "node:assert/strict";
import { allCounts, create, linksOf, model } from "./_rules_testing.ts";
import { code, ok, openWorld, type World } from "./_testing.ts";
import { trashEntry } from "./lifecycle.ts";
import { modelValidator } from "./model_validator.ts";
import {
  RELATED_FROM_WRITE_LIMIT,
  writeRelatedFrom,
} from "./related_from_write.ts";

async function withWorld(fn: (w: World) => Promise<void>) {
  const w = await openWorld();
  try {
    await fn(w);
  } finally {
    await w.close();
  }
}

async function setup(w: World) {
  const tags = await model(w, "tags", [
    { key: "name", label: "Name", type: "text" },
  ]);
  const relation = (
    key: string,
    cardinality: string,
    extra: Record<string, unknown> = {},
  ) => ({
    key,
    label: key,
    type: "relation",
    config: { targets: [tags.id], cardinality, ...extra },
  });
  const posts = await model(w, "posts", [
    { key: "title", label: "Title", type: "text" },
    relation("tags", "many-to-many", { ordered: true }),
    relation("lead", "one-to-one"),
    relation("local", "many-to-many", { localizedMembership: true }),
  ]);
  const tag = ok(await create(w, tags.id, { name: "t" })).group_id;
  const other = ok(await create(w, tags.id, { name: "o" })).group_id;
  const p: string[] = [];
  p.push(
    ok(
      await create(w, posts.id, {
        title: "p0",
        tags: [other, tag],
        lead: tag,
      }),
    ).group_id,
  );
  for (let i = 1; i < 4; i++) {
    p.push(
      ok(await create(w, posts.id, { title: `p${i}`, tags: [other] }))
        .group_id,
    );
  }
  return { tags: tags.id, posts: posts.id, tag, other, p };
}

const ctx = (w: World) => w.ctx(undefined, { validate: modelValidator() });

Deno.test("writeRelatedFrom() connects and disconnects sources in one command: a version, workflow event and audit entry each", () =>
  withWorld(async (w) => {
    const s = await setup(w);
    const before = await allCounts(w);
    const written = ok(
      await writeRelatedFrom(ctx(w), {
        group_id: s.tag,
        model_id: s.posts,
        field: "tags",
        set: [s.p[2], s.p[1]],
        expected_ids: [s.p[0]],
      }),
    );
    assert.deepEqual(written.ids, [s.p[2], s.p[1]]);
    assert.equal(written.locale, null);
    assert.equal(written.hidden, 0);
    assert.deepEqual(
      written.written.map((c) => [c.group_id, c.change, c.locale]),
      [
        [s.p[0], "disconnect", "en"],
        [s.p[2], "connect", "en"],
        [s.p[1], "connect", "en"],
      ],
    );
    assert.deepEqual((await linksOf(w, s.p[0])).tags, [s.other]);
    assert.deepEqual((await linksOf(w, s.p[1])).tags, [s.other, s.tag]);
    assert.deepEqual((await linksOf(w, s.p[2])).tags, [s.other, s.tag]);
    const version = await w.db.selectFrom("entry_versions").select("fields")
      .where("id", "=", written.written[1].version_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(version.fields, { title: "p2", tags: [s.other, s.tag] });
    const after = await allCounts(w);
    assert.equal(after.entry_versions, before.entry_versions + 3);
    assert.equal(after.workflow_events, before.workflow_events + 3);
    assert.equal(after.audit_entries, before.audit_entries + 3);
    const audit = await w.db.selectFrom("audit_entries").select("details")
      .where("action", "=", "entry.save").execute();
    assert.deepEqual(
      audit.map((a) => (a.details as { related_from: unknown }).related_from),
      Array(3).fill({ target_group_id: s.tag, field: "tags" }),
    );
    // The same write again changes nothing: the list already is the set.
    const again = ok(
      await writeRelatedFrom(ctx(w), {
        group_id: s.tag,
        model_id: s.posts,
        field: "tags",
        set: [s.p[1], s.p[2]],
        expected_ids: [s.p[2], s.p[1]],
      }),
    );
    assert.deepEqual(again.written, []);
    assert.deepEqual(await allCounts(w), after);
  }));

Deno.test("writeRelatedFrom() refuses relation_changed_concurrently when the links are not the ones read, writing nothing", () =>
  withWorld(async (w) => {
    const s = await setup(w);
    const before = await allCounts(w);
    const refused = await writeRelatedFrom(ctx(w), {
      group_id: s.tag,
      model_id: s.posts,
      field: "tags",
      set: [s.p[1]],
      expected_ids: [],
    });
    assert.deepEqual(refused, {
      ok: false,
      code: "relation_changed_concurrently",
      current_ids: [s.p[0]],
    });
    assert.deepEqual(await allCounts(w), before);
  }));

Deno.test("writeRelatedFrom() is all or nothing: one refused source rolls back every other", () =>
  withWorld(async (w) => {
    const s = await setup(w);
    ok(await trashEntry(w.ctx(), { group_id: s.p[3] }));
    const before = await allCounts(w);
    const refused = await writeRelatedFrom(ctx(w), {
      group_id: s.tag,
      model_id: s.posts,
      field: "tags",
      set: [s.p[0], s.p[1], s.p[3]],
      expected_ids: [s.p[0]],
    });
    assert.equal(code(refused), "transition_unavailable");
    assert.deepEqual(await allCounts(w), before);
    assert.deepEqual((await linksOf(w, s.p[1])).tags, [s.other]);
  }));

Deno.test("writeRelatedFrom() moves an exclusive one-to-one link: the old holder lets go first", () =>
  withWorld(async (w) => {
    const s = await setup(w);
    const moved = ok(
      await writeRelatedFrom(ctx(w), {
        group_id: s.tag,
        model_id: s.posts,
        field: "lead",
        set: [s.p[1]],
        expected_ids: [s.p[0]],
      }),
    );
    assert.deepEqual(moved.written.map((c) => c.change), [
      "disconnect",
      "connect",
    ]);
    assert.equal((await linksOf(w, s.p[0])).lead, undefined);
    assert.deepEqual((await linksOf(w, s.p[1])).lead, [s.tag]);
    const taken = await writeRelatedFrom(ctx(w), {
      group_id: s.tag,
      model_id: s.posts,
      field: "lead",
      set: [s.p[1], s.p[2]],
      expected_ids: [s.p[1]],
    });
    assert.equal(code(taken), "relation_target_taken");
  }));

Deno.test("writeRelatedFrom() refusals: unknown field, missing list language, repeated or unknown sources, the limit at its edge", () =>
  withWorld(async (w) => {
    const s = await setup(w);
    const base = {
      group_id: s.tag,
      model_id: s.posts,
      field: "tags",
      set: [] as string[],
      expected_ids: [s.p[0]],
    };
    const before = await allCounts(w);
    assert.deepEqual(
      await writeRelatedFrom(ctx(w), { ...base, field: "title" }),
      { ok: false, code: "field_not_found", fields: ["title"] },
    );
    const local = await writeRelatedFrom(ctx(w), { ...base, field: "local" });
    assert.equal(code(local), "invalid_request");
    assert.equal(
      code(await writeRelatedFrom(ctx(w), { ...base, set: [s.p[1], s.p[1]] })),
      "relation_duplicate_target",
    );
    assert.deepEqual(
      await writeRelatedFrom(ctx(w), { ...base, set: [s.p[0], s.other] }),
      { ok: false, code: "not_found", ids: [s.other] },
    );
    assert.equal(
      code(
        await writeRelatedFrom(ctx(w), {
          ...base,
          group_id: crypto.randomUUID(),
        }),
      ),
      "not_found",
    );
    const ids = (n: number) =>
      Array.from({ length: n }, () => crypto.randomUUID());
    assert.equal(
      code(
        await writeRelatedFrom(ctx(w), {
          ...base,
          set: ids(RELATED_FROM_WRITE_LIMIT + 1),
        }),
      ),
      "invalid_request",
    );
    // 100 names pass the limit and meet the next check (unknown sources).
    assert.equal(
      code(
        await writeRelatedFrom(ctx(w), {
          ...base,
          set: [s.p[0], ...ids(RELATED_FROM_WRITE_LIMIT - 1)],
        }),
      ),
      "not_found",
    );
    assert.deepEqual(await allCounts(w), before);
  }));

Deno.test("writeRelatedFrom() on a per-language list writes that language's version and list", () =>
  withWorld(async (w) => {
    const s = await setup(w);
    const written = ok(
      await writeRelatedFrom(ctx(w), {
        group_id: s.tag,
        model_id: s.posts,
        field: "local",
        locale: "en",
        set: [s.p[1]],
        expected_ids: [],
      }),
    );
    assert.equal(written.locale, "en");
    assert.deepEqual((await linksOf(w, s.p[1])).local, [`en:${s.tag}`]);
    const noLanguage = await writeRelatedFrom(ctx(w), {
      group_id: s.tag,
      model_id: s.posts,
      field: "local",
      locale: "de",
      set: [s.p[1]],
      expected_ids: [],
    });
    assert.deepEqual(noLanguage, {
      ok: false,
      code: "not_found",
      ids: [s.p[1]],
    });
  }));
