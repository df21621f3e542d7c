// Tests of saveEntry(): creating groups, adding languages, new versions, pins, permissions.
import assert from "node:assert/strict";
import { article, ok, openWorld } from "./_testing.ts";
import { publishEntry, saveEntry } from "./lifecycle.ts";
import { readResult } from "./store.ts";

Deno.test("saveEntry() creates a group with its first language, version 1, an event and an audit entry (ENT-002)", async () => {
  const w = await openWorld();
  try {
    const saved = ok(
      await saveEntry(w.ctx(), {
        model_id: "article",
        locale: "en",
        slug: "hello",
        fields: { title: "Hello" },
        expected_current_version_id: null,
      }),
    );
    assert.deepEqual(saved.state, "draft");
    assert.deepEqual(saved.revision, 0);
    assert.deepEqual(saved.instances.length, 1);
    assert.deepEqual(
      saved.instances[0].current_version_id,
      saved.current_version_id,
    );
    const version = await w.db.selectFrom("entry_versions").selectAll()
      .where("site_id", "=", w.siteId).executeTakeFirstOrThrow();
    assert.deepEqual(version.number, 1);
    assert.deepEqual(version.fields, { title: "Hello" });
    const group = await w.db.selectFrom("entry_groups").selectAll()
      .executeTakeFirstOrThrow();
    assert.deepEqual(group.created_by, w.editorId);
    assert.deepEqual(group.primary_entry_id, saved.instances[0].entry_id);
    const event = await w.db.selectFrom("workflow_events").selectAll()
      .executeTakeFirstOrThrow();
    assert.deepEqual([event.kind, event.to_state, event.version_id], [
      "create",
      "draft",
      version.id,
    ]);
    assert.deepEqual(event.actor, {
      kind: "person",
      person_id: w.editorId,
      email: `${w.editorId}@example.test`,
    });
    const audit = await w.db.selectFrom("audit_entries").selectAll()
      .executeTakeFirstOrThrow();
    assert.deepEqual(audit.action, "entry.create");
    assert.deepEqual(
      (audit.target as { group_id: string }).group_id,
      saved.group_id,
    );
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() adds a language and writes new immutable versions pinned to the current one (ENT-004, ENT-012)", async () => {
  const w = await openWorld();
  try {
    const first = ok(
      await saveEntry(w.ctx(), {
        model_id: "article",
        locale: "en",
        slug: "hello",
        fields: { title: "Hello" },
        expected_current_version_id: null,
      }),
    );
    const de = ok(
      await saveEntry(w.ctx(), {
        group_id: first.group_id,
        locale: "de",
        slug: "hallo",
        fields: { title: "Hallo" },
        expected_current_version_id: null,
      }),
    );
    assert.deepEqual(de.instances.map((i) => i.locale), ["en", "de"]);
    const v1 = first.current_version_id!;
    const second = ok(
      await saveEntry(w.ctx(), {
        group_id: first.group_id,
        locale: "en",
        fields: { title: "Hello again" },
        expected_current_version_id: v1,
      }),
    );
    const en = second.instances.find((i) => i.locale === "en")!;
    assert.notEqual(en.current_version_id, v1);
    assert.deepEqual(en.slug, "hello");
    const versions = await w.db.selectFrom("entry_versions").select([
      "id",
      "number",
      "fields",
    ])
      .where("site_id", "=", w.siteId).orderBy("number").execute();
    assert.deepEqual(versions.map((v) => v.number), [1, 2, 3]);
    assert.deepEqual(versions[0], {
      id: v1,
      number: 1,
      fields: { title: "Hello" },
    });
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() answers a new version of a language as the group reads back after it, with two languages published", async () => {
  const w = await openWorld();
  try {
    const made = await article(w);
    const published = ok(
      await publishEntry(w.ctx(), {
        group_id: made.group_id,
        expected_current_version_id: made.current_version_id,
        expected_workflow_revision: made.revision,
      }),
    );
    w.clock.advance(60_000);
    const en = published.instances.find((i) => i.locale === "en")!;
    const saved = ok(
      await saveEntry(w.ctx(), {
        group_id: made.group_id,
        locale: "en",
        slug: "a-renamed",
        fields: { title: "A again" },
        expected_current_version_id: en.current_version_id,
      }),
    );
    assert.deepEqual(
      saved,
      ok(await readResult(w.db, w.siteId, made.group_id)),
    );
    assert.deepEqual(saved.state, "published");
    assert.deepEqual(
      saved.published_version_id,
      published.instances.find((i) => i.locale === "de")!.published_version_id,
    );
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() of a group with nothing published serves nothing, and a published language's new slug is served at once", async () => {
  const w = await openWorld();
  try {
    const made = await article(w);
    const served = async () =>
      await w.db.selectFrom("public_items")
        .select(["requested_locale", "served_locale", "slug"])
        .where("site_id", "=", w.siteId).where("group_id", "=", made.group_id)
        .orderBy("requested_locale").execute();
    assert.deepEqual(await served(), []);
    const en = made.instances.find((i) => i.locale === "en")!;
    const published = ok(
      await publishEntry(w.ctx(), {
        group_id: made.group_id,
        locale: "en",
        expected_current_version_id: en.current_version_id,
        expected_workflow_revision: made.revision,
      }),
    );
    assert.deepEqual(
      (await served()).filter((row) => row.requested_locale === "en"),
      [{ requested_locale: "en", served_locale: "en", slug: "a" }],
    );
    // The group has a published language: a save of it refreshes what is served.
    ok(
      await saveEntry(w.ctx(), {
        group_id: made.group_id,
        locale: "en",
        slug: "a-renamed",
        fields: { title: "A again" },
        expected_current_version_id: published.instances.find((i) =>
          i.locale === "en"
        )!.current_version_id,
      }),
    );
    assert.deepEqual(
      (await served()).filter((row) => row.requested_locale === "en"),
      [{ requested_locale: "en", served_locale: "en", slug: "a-renamed" }],
    );
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() refuses a stale pin with version_conflict and writes nothing (ENT-004)", async () => {
  const w = await openWorld();
  try {
    const first = ok(
      await saveEntry(w.ctx(), {
        model_id: "article",
        locale: "en",
        slug: "hello",
        fields: { title: "A" },
        expected_current_version_id: null,
      }),
    );
    const base = first.current_version_id;
    ok(
      await saveEntry(w.ctx(), {
        group_id: first.group_id,
        locale: "en",
        fields: { title: "B" },
        expected_current_version_id: base,
      }),
    );
    const before = await w.counts();
    const stale = await saveEntry(w.ctx(), {
      group_id: first.group_id,
      locale: "en",
      fields: { title: "C" },
      expected_current_version_id: base,
    });
    assert.deepEqual(stale, { ok: false, code: "version_conflict" });
    const readdedLanguage = await saveEntry(w.ctx(), {
      group_id: first.group_id,
      locale: "de",
      slug: "x",
      fields: {},
      expected_current_version_id: base,
    });
    assert.deepEqual(
      readdedLanguage.ok ? "ok" : readdedLanguage.code,
      "version_conflict",
    );
    assert.deepEqual(await w.counts(), before);
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() refuses an unknown language, a taken slug (in a dry run too) and a missing group", async () => {
  const w = await openWorld();
  try {
    const base = {
      model_id: "article",
      fields: {},
      expected_current_version_id: null,
    };
    ok(await saveEntry(w.ctx(), { ...base, locale: "en", slug: "same" }));
    const other = ok(
      await saveEntry(w.ctx(), { ...base, locale: "en", slug: "other" }),
    );
    const before = await w.counts();
    const unknown = await saveEntry(w.ctx(), {
      ...base,
      locale: "xx",
      slug: "a",
    });
    assert.deepEqual(unknown.ok ? "ok" : unknown.code, "unknown_locale");
    const taken = await saveEntry(w.ctx(), {
      ...base,
      locale: "en",
      slug: "same",
    });
    assert.deepEqual(taken, { ok: false, code: "slug_taken" });
    // A save's writing statement is held back to go with the next one on PostgreSQL; a dry run
    // (a policy gate's first attempt) sends what it held before its rollback, so it still finds
    // a taken slug.
    const dry = w.ctx(undefined, { dryRun: true });
    const takenDry = await saveEntry(dry, {
      ...base,
      locale: "en",
      slug: "same",
    });
    assert.deepEqual(takenDry, { ok: false, code: "slug_taken" });
    ok(await saveEntry(dry, { ...base, locale: "en", slug: "free" }));
    // A new version of the other entry under the taken slug, dry and not.
    for (const ctx of [dry, w.ctx()]) {
      const moved = await saveEntry(ctx, {
        ...base,
        group_id: other.group_id,
        locale: "en",
        slug: "same",
        expected_current_version_id: other.current_version_id,
      });
      assert.deepEqual(moved, { ok: false, code: "slug_taken" });
    }
    const missing = await saveEntry(w.ctx(), {
      ...base,
      group_id: crypto.randomUUID(),
      locale: "en",
    });
    assert.deepEqual(missing, { ok: false, code: "not_found" });
    assert.deepEqual(await w.counts(), before);
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() checks create, update and update:own through decide(), with language limits", async () => {
  const w = await openWorld();
  try {
    const own = await w.person({
      models: { article: ["create", "update:own"] },
      system: [],
    });
    const enOnly = await w.person({
      models: { article: ["create", "update"] },
      system: [],
      languages: { create: ["en"], update: ["en"] },
    });
    const base = {
      model_id: "article",
      fields: { t: 1 },
      expected_current_version_id: null,
    };
    const mine = ok(
      await saveEntry(w.ctx(own), { ...base, locale: "en", slug: "mine" }),
    );
    const theirs = ok(
      await saveEntry(w.ctx(), { ...base, locale: "en", slug: "theirs" }),
    );
    ok(
      await saveEntry(w.ctx(own), {
        group_id: mine.group_id,
        locale: "en",
        fields: { t: 2 },
        expected_current_version_id: mine.current_version_id,
      }),
    );
    const refused = await saveEntry(w.ctx(own), {
      group_id: theirs.group_id,
      locale: "en",
      fields: { t: 2 },
      expected_current_version_id: theirs.current_version_id,
    });
    assert.deepEqual(refused.ok ? "ok" : refused.code, "missing_permission");
    const denied = await saveEntry(w.ctx(enOnly), {
      ...base,
      locale: "de",
      slug: "de",
    });
    assert.deepEqual(denied, {
      ok: false,
      code: "locale_denied",
      languages: ["de"],
    });
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() keeps stored values of fields the role cannot read, and refuses writing unwritable ones (MOD-040)", async () => {
  const w = await openWorld();
  try {
    const limited = await w.person({
      models: { article: ["read", "update"] },
      system: [],
      fields: { article: { read: ["title"], write: ["title"] } },
    });
    const first = ok(
      await saveEntry(w.ctx(), {
        model_id: "article",
        locale: "en",
        slug: "s",
        fields: { title: "A", secret: "keep" },
        expected_current_version_id: null,
      }),
    );
    const saved = ok(
      await saveEntry(w.ctx(limited), {
        group_id: first.group_id,
        locale: "en",
        fields: { title: "B" },
        expected_current_version_id: first.current_version_id,
      }),
    );
    const version = await w.db.selectFrom("entry_versions").select("fields")
      .where("id", "=", saved.current_version_id!).executeTakeFirstOrThrow();
    assert.deepEqual(version.fields, { title: "B", secret: "keep" });
    const refused = await saveEntry(w.ctx(limited), {
      group_id: first.group_id,
      locale: "en",
      fields: { title: "B", body: "new" },
      expected_current_version_id: saved.current_version_id,
    });
    assert.deepEqual(refused, {
      ok: false,
      code: "field_denied",
      fields: ["body"],
    });
  } finally {
    await w.close();
  }
});
