// A test world for the sync, search, client, redirects and chrome routes: an app, a site, an admin.
// deno-lint-ignore-file no-explicit-any -- answers are parsed JSON checked field by field
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import {
  type LifecycleContext,
  type LifecycleResult,
  publishEntry,
  purgeEntry,
  restoreEntry,
  saveEntry,
  trashEntry,
  unpublishEntry,
} from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/mod.ts";
import {
  groupPublishedVersionId,
  type InstanceRow,
} from "../../core/entries/store.ts";
import { putSettings } from "../../core/sites/settings.ts";
import type { SettingsKey } from "../../core/sites/settings_documents.ts";
import { openTestApp, type TestApp } from "../support/app.ts";
import { insertSite } from "../support/sites.ts";

/** One test's world. */
export interface AuxWorld extends TestApp {
  siteId: string;
  host: string;
  ctx: LifecycleContext;
  adminId: string;
  /** GETs `path` on the site's host; extra headers optional. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** GETs and parses JSON, asserting nothing. */
  json(
    path: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; res: Response }>;
  model(definition: unknown): Promise<string>;
  /** Saves a new language (or a first one) and answers the result. */
  save(options: {
    model?: string;
    group?: string;
    locale: string;
    slug: string;
    fields: Record<string, unknown>;
  }): Promise<LifecycleResult>;
  publish(group: string, locale?: string): Promise<LifecycleResult>;
  unpublish(group: string, locale?: string): Promise<LifecycleResult>;
  trash(group: string): Promise<LifecycleResult>;
  restore(group: string): Promise<LifecycleResult>;
  purge(group: string): Promise<void>;
  settings(key: SettingsKey, document: unknown): Promise<void>;
}

function ok<T extends { ok: boolean }>(o: T): Extract<T, { ok: true }> {
  if (!o.ok) throw new Error(`Expected success, got ${JSON.stringify(o)}`);
  return o as Extract<T, { ok: true }>;
}

/** Opens a site `aux.test` with `languages` (default en, de) and an administrator. */
export async function openAuxWorld(
  languages: string[] = ["en", "de"],
): Promise<AuxWorld> {
  const app = await openTestApp();
  const { db } = app.services;
  const host = "aux.test";
  const siteId = await insertSite(db, { domain: host, languages });
  const roleId = await insertRole(
    db,
    siteId,
    administratorPermissions(),
    app.clock,
  );
  const adminId = await insertMember(db, siteId, { roleId, clock: app.clock });
  const ctx: LifecycleContext = {
    db,
    clock: app.clock,
    siteId,
    actor: { kind: "person", userId: adminId },
  };
  const revisions = new Map<string, number>();
  async function state(group: string) {
    const g = await db.selectFrom("entry_groups").selectAll()
      .where("id", "=", group).executeTakeFirstOrThrow();
    const e = await db.selectFrom("entries").selectAll()
      .where("group_id", "=", group).execute();
    return { g, e };
  }
  const world: AuxWorld = {
    ...app,
    siteId,
    host,
    ctx,
    adminId,
    get: (path, headers = {}) =>
      Promise.resolve(app.app.request(path, { headers: { host, ...headers } })),
    async json(path, headers) {
      const res = await world.get(path, headers);
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch { /* plain text */ }
      return { status: res.status, body, res };
    },
    async model(definition) {
      const made = await createModel(
        { db, clock: app.clock, siteId },
        definition,
      );
      if (!made.ok) {
        throw new Error(`Cannot create model: ${JSON.stringify(made)}`);
      }
      return made.model_id;
    },
    async save(o) {
      let expected: string | null = null;
      if (o.group) {
        const { e } = await state(o.group);
        expected = e.find((x) => x.locale === o.locale)?.current_version_id ??
          null;
      }
      const result = ok(
        await saveEntry(ctx, {
          ...(o.group ? { group_id: o.group } : { model_id: o.model! }),
          locale: o.locale,
          slug: o.slug,
          fields: o.fields,
          expected_current_version_id: expected,
        }),
      );
      revisions.set(result.group_id, result.revision);
      return result;
    },
    async publish(group, locale) {
      const { g, e } = await state(group);
      const current = locale === undefined
        ? g.current_version_id
        : e.find((x) => x.locale === locale)!.current_version_id;
      return ok(
        await publishEntry(ctx, {
          group_id: group,
          locale,
          expected_current_version_id: current,
          expected_workflow_revision: g.revision,
        }),
      );
    },
    async unpublish(group, locale) {
      const { g, e } = await state(group);
      const published = locale === undefined
        ? await groupPublishedVersionId(db, siteId, e as InstanceRow[])
        : e.find((x) => x.locale === locale)!.published_version_id;
      return ok(
        await unpublishEntry(ctx, {
          group_id: group,
          locale,
          expected_published_version_id: published,
          expected_workflow_revision: g.revision,
        }),
      );
    },
    async trash(group) {
      return ok(await trashEntry(ctx, { group_id: group }));
    },
    async restore(group) {
      return ok(await restoreEntry(ctx, { group_id: group }));
    },
    async purge(group) {
      ok(await purgeEntry(ctx, { group_id: group }));
    },
    async settings(key, document) {
      const row = await db.selectFrom("site_settings").select("revision")
        .where("site_id", "=", siteId).where("key", "=", key)
        .executeTakeFirst();
      const put = await putSettings(
        { db, clock: app.clock, siteId, personId: adminId },
        key,
        { document, expectedRevision: row?.revision ?? 0 },
      );
      if (!put.ok) throw new Error(`Cannot put ${key}: ${JSON.stringify(put)}`);
    },
  };
  return world;
}

/** A public model `articles` (title, body, private notes, tags relation) and a private model `memos`. */
export async function articleModels(w: AuxWorld): Promise<{
  articles: string;
  memos: string;
  people: string;
}> {
  const people = await w.model({
    model: { name: "People", slug: "people", enableI18n: true },
    fields: [{ key: "name", label: "Name", type: "text", localized: true }],
  });
  const articles = await w.model({
    model: { name: "Articles", slug: "articles", enableI18n: true },
    fields: [
      { key: "title", label: "Title", type: "text", localized: true },
      { key: "body", label: "Body", type: "text", localized: true },
      {
        key: "secret",
        label: "Secret",
        type: "text",
        private: true,
        localized: true,
      },
      {
        key: "author",
        label: "Author",
        type: "relation",
        config: { targets: [people], cardinality: "many-to-one" },
      },
    ],
  });
  const memos = await w.model({
    model: { name: "Memos", slug: "memos", isPublic: false },
    fields: [{ key: "title", label: "Title", type: "text" }],
  });
  return { articles, memos, people };
}
