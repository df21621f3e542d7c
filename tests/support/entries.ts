// A test site with a translatable `posts` model, and entries saved as a person through the
// lifecycle service.
import { personActor } from "../../core/access/actor.ts";
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../core/db/database.ts";
import { modelValidator, saveEntry } from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/store.ts";
import type { Services } from "../../core/services.ts";
import { createInstallation } from "../../core/sites/installation.ts";

/** The entry's group and its language instances by locale. */
export interface SavedTestEntry {
  groupId: string;
  instances: Record<string, string>;
}

/** Saves `values` (fields by locale) as one entry of `modelId`, languages in the order given. */
export async function saveTestEntry(
  ctx: {
    db: Db;
    clock: Clock;
    siteId: string;
    userId: string;
    modelId: string;
  },
  values: Record<string, Record<string, unknown>>,
): Promise<SavedTestEntry> {
  let groupId: string | undefined;
  const instances: Record<string, string> = {};
  for (const [locale, fields] of Object.entries(values)) {
    const saved = await saveEntry({
      db: ctx.db,
      clock: ctx.clock,
      siteId: ctx.siteId,
      actor: personActor(ctx.userId),
      validate: modelValidator(),
    }, {
      group_id: groupId,
      model_id: ctx.modelId,
      locale,
      slug: `${locale}-${crypto.randomUUID().slice(0, 8)}`,
      fields,
      expected_current_version_id: null,
    });
    if (!saved.ok) throw new Error(`Cannot save the entry: ${saved.code}`);
    groupId = saved.group_id;
    for (const i of saved.instances) instances[i.locale] = i.entry_id;
  }
  return { groupId: groupId!, instances };
}

/** A site on `domain` (languages en, de) with its administrator and a `posts` model. */
export async function siteWithPosts(
  services: Pick<Services, "db" | "clock">,
  domain: string,
  adminEmail: string,
): Promise<{ siteId: string; adminId: string; modelId: string }> {
  const created = await createInstallation(services, {
    domain,
    locales: ["en", "de"],
    adminEmail,
  });
  if (!created.ok) throw new Error(created.message);
  const model = await createModel(
    { db: services.db, clock: services.clock, siteId: created.site.id },
    {
      model: { name: "Posts", slug: "posts", enableI18n: true },
      fields: [{ key: "title", label: "Title", type: "text", localized: true }],
    },
  );
  if (!model.ok) throw new Error(`Cannot create the test model: ${model.code}`);
  return {
    siteId: created.site.id,
    adminId: created.admin.id,
    modelId: model.model_id,
  };
}
