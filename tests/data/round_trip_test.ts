// IMP-001..007: the demo site exported and imported into a fresh site yields the same models,
// entries, published states and media references (issue 16 "Done means").
import assert from "node:assert/strict";
import type { Db } from "../../core/db/database.ts";
import {
  exportSite,
  IMPORT_SCOPES,
  key,
  ok,
  runImport,
  startImport,
  twoSites,
} from "./helpers.ts";

interface EntryFacts {
  model: string;
  locale: string;
  slug: string;
  state: "draft" | "published" | "changed";
  published: unknown;
  current: unknown;
}

/** Every non-trashed entry language of a site, by model slug and slug, values as stored. */
async function entriesOf(
  db: Db,
  siteId: string,
): Promise<Map<string, EntryFacts>> {
  const slugs = new Map(
    (await db.selectFrom("models").select(["id", "slug"]).where(
      "site_id",
      "=",
      siteId,
    )
      .execute()).map((m) => [String(m.id), m.slug]),
  );
  const rows = await db.selectFrom("entries")
    .innerJoin("entry_groups", "entry_groups.id", "entries.group_id")
    .leftJoin("entry_versions as cur", "cur.id", "entries.current_version_id")
    .leftJoin("entry_versions as pub", "pub.id", "entries.published_version_id")
    .select([
      "entries.model_id",
      "entries.locale",
      "entries.slug",
      "entries.current_version_id",
      "entries.published_version_id",
      "cur.fields as current",
      "pub.fields as published",
    ])
    .where("entries.site_id", "=", siteId)
    .where("entry_groups.trashed_at", "is", null).execute();
  const out = new Map<string, EntryFacts>();
  for (const row of rows) {
    const state = row.published_version_id === null
      ? "draft"
      : row.published_version_id === row.current_version_id
      ? "published"
      : "changed";
    const model = slugs.get(row.model_id) ?? row.model_id;
    out.set(`${model}/${row.locale}/${row.slug}`, {
      model,
      locale: row.locale,
      slug: row.slug,
      state,
      published: row.published,
      current: row.current,
    });
  }
  return out;
}

/** Replaces every id of the map inside a value (the receipt maps archive ids to new ones). */
function mapped(value: unknown, ids: Record<string, string>): unknown {
  return JSON.parse(
    JSON.stringify(value).replace(
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
      (id) => ids[id] ?? id,
    ),
  );
}

Deno.test("IMP-001..007, MAPI-022: the demo site's export imported into a fresh site gives the same models, entries, states and media", async () => {
  const s = await twoSites();
  try {
    const { db } = s.t.services;
    const demo = await s.caller(s.demoSiteId, s.demoAdminId, ["data:export"]);
    const archive = await exportSite(demo);
    const fresh = await s.caller(s.freshSiteId, s.freshAdminId, IMPORT_SCOPES);
    const received = await startImport(fresh, archive);
    assert.equal(received.state, "archive_received");
    const planned = await ok(
      await fresh("POST", `/imports/${received.id}/advance`, { key: key() }),
    );
    assert.equal(planned.state, "ready", JSON.stringify(planned.problems));
    const plan = planned.plan as {
      languages: { code: string; action: string }[];
    };
    assert.deepEqual(plan.languages, [
      { code: "en", action: "present" },
      { code: "de", action: "create" },
    ]);
    const done = await runImport(fresh, received.id as string);
    assert.equal(done.state, "completed", JSON.stringify(done.problems));
    assert.deepEqual(done.problems, []);

    const receiptPage = await ok<{ content_base64: string; next_page: null }>(
      await fresh("GET", `/imports/${received.id}/artifacts/receipt`),
    );
    const receipt = JSON.parse(atob(receiptPage.content_base64));
    const ids = receipt.ids as Record<string, string>;

    // Models: the same slugs and fields; relation targets point at the new models.
    const models = async (siteId: string) =>
      await db.selectFrom("models").innerJoin(
        "model_fields",
        "model_fields.model_id",
        "models.id",
      )
        .select([
          "models.slug",
          "model_fields.key",
          "model_fields.type",
          "model_fields.config",
        ])
        .where("models.site_id", "=", siteId).where(
          "models.deleted_at",
          "is",
          null,
        )
        .orderBy("models.slug").orderBy("model_fields.key").execute();
    const before = await models(s.demoSiteId);
    const after = await models(s.freshSiteId);
    assert.deepEqual(
      after.map((f) => [f.slug, f.key, f.type, f.config]),
      before.map((f) => [f.slug, f.key, f.type, mapped(f.config, ids)]),
    );

    // Entries: every language with its slug, state and values (ids mapped).
    const was = await entriesOf(db, s.demoSiteId);
    const is = await entriesOf(db, s.freshSiteId);
    assert.deepEqual([...is.keys()].sort(), [...was.keys()].sort());
    for (const [name, facts] of was) {
      const now = is.get(name)!;
      assert.equal(now.state, facts.state, name);
      assert.deepEqual(now.published, mapped(facts.published, ids), name);
      assert.deepEqual(now.current, mapped(facts.current, ids), name);
    }
    assert.ok([...was.values()].some((f) => f.state === "draft"));

    // Media: the same files and alt texts, referenced by the imported posts.
    const media = async (siteId: string) =>
      await db.selectFrom("media_files").select([
        "id",
        "digest",
        "alt_texts",
        "file_name",
      ])
        .where("site_id", "=", siteId).orderBy("digest").execute();
    const oldMedia = await media(s.demoSiteId);
    const newMedia = await media(s.freshSiteId);
    assert.ok(oldMedia.length > 0);
    assert.deepEqual(
      newMedia.map((m) => [m.digest, m.alt_texts, m.file_name]),
      oldMedia.map((m) => [m.digest, m.alt_texts, m.file_name]),
    );
    for (const item of oldMedia) {
      assert.ok(newMedia.some((m) => m.id === ids[item.id]));
    }
    assert.equal(
      (done.counts as Record<string, number>).media_created,
      oldMedia.length,
    );

    // The import created the missing language; readers of the fresh site get the posts.
    const languages = await db.selectFrom("site_languages").select("code")
      .where("site_id", "=", s.freshSiteId).orderBy("position").execute();
    assert.deepEqual(languages.map((l) => l.code), ["en", "de"]);
  } finally {
    await s.close();
  }
});
