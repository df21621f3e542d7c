// Shared by the model route tests: definitions, a schema credential, and entries written straight into the tables.
import type { ManageFixture } from "./helpers.ts";

/** A small definition: a localized title and an optional summary. */
export function postsDefinition(slug = "posts", name = "Posts") {
  return {
    model: { name, slug, enableI18n: true },
    fields: [
      { key: "title", label: "Title", type: "text", localized: true },
      { key: "summary", label: "Summary", type: "text" },
    ],
  };
}

/** A credential of the site's administrator with every scope the model and role routes use. */
export async function schemaCredential(t: ManageFixture): Promise<string> {
  const { secret } = await t.credential([
    "content:read",
    "schema:write",
    "schema:propose",
    "roles:write",
  ]);
  return secret;
}

/**
 * Writes one entry (a translation group) of `modelId` with one current version per language,
 * straight into the entries tables, and answers its group id. `trashed` puts it in Trash.
 */
export async function insertEntry(
  t: ManageFixture,
  modelId: string,
  values: Record<string, Record<string, unknown>>,
  options: { trashed?: boolean; history?: Record<string, unknown>[] } = {},
): Promise<string> {
  const db = t.services.db;
  const now = t.clock.now();
  const groupId = crypto.randomUUID();
  await db.insertInto("entry_groups").values({
    id: groupId,
    site_id: t.siteId,
    model_id: modelId,
    primary_entry_id: null,
    created_by: null,
    revision: 0,
    current_version_id: null,
    trashed_at: options.trashed ? now : null,
    created_at: now,
    updated_at: now,
  }).execute();
  let number = 0;
  for (const [locale, fields] of Object.entries(values)) {
    const entryId = crypto.randomUUID();
    await db.insertInto("entries").values({
      id: entryId,
      site_id: t.siteId,
      group_id: groupId,
      model_id: modelId,
      locale,
      slug: `${locale}-${groupId.slice(0, 8)}`,
      current_version_id: null,
      published_version_id: null,
      published_at: null,
      created_at: now,
      updated_at: now,
    }).execute();
    let versionId = "";
    for (const snapshot of [...(options.history ?? []), fields]) {
      versionId = crypto.randomUUID();
      await db.insertInto("entry_versions").values({
        id: versionId,
        site_id: t.siteId,
        group_id: groupId,
        entry_id: entryId,
        locale,
        number: ++number,
        fields: JSON.stringify(snapshot),
        created_by: JSON.stringify({ kind: "person" }),
        created_at: now,
      }).execute();
    }
    await db.updateTable("entries").set({ current_version_id: versionId })
      .where("id", "=", entryId).execute();
  }
  return groupId;
}
