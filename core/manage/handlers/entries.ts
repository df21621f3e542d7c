// Handlers of the entry routes: list, create, read, update, versions, dependents, publish, unpublish, languages.
import {
  listDependents,
  publishEntry as publish,
  readWorkflow,
  restoreVersion,
  saveEntry,
  unpublishEntry as unpublish,
} from "../../entries/mod.ts";
import { readAssignment } from "../../entries/review.ts";
import { readReviewStage } from "../../entries/review_state.ts";
import {
  readGroup,
  readGroupWith,
  readInstances,
} from "../../entries/store.ts";
import {
  activeInstallationsJson,
  installationRowsOf,
} from "../../plugins/installation_store.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/entries.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import {
  auditByKey,
  decodeCursor,
  encodeCursor,
  iso,
  lifecycleOf,
  pageGroups,
  readable,
  readableGroup,
  refuseWith,
  requireDecision,
  requireModel,
  summaries,
  unwrap,
  writtenAnswer,
} from "./entries_support.ts";

import { underPolicies } from "./policy_gate.ts";

export * from "./entries_more.ts";

/** The group to write to, or 404. */
async function writableGroup(ctx: ManageContext, id: string) {
  const group = await readGroup(ctx.services.db, ctx.site.id, id);
  if (!group) return refuseWith({ ok: false, code: "not_found" });
  return group;
}

/** Refuses unless the entry has `locale` (422 when the site lacks it, else 404). */
async function requireLocale(
  ctx: ManageContext,
  groupId: string,
  locale: string,
) {
  const instances = await readInstances(ctx.services.db, ctx.site.id, groupId);
  if (instances.some((i) => i.locale === locale)) return instances;
  return refuseLocale(ctx, locale);
}

/**
 * The group to write to under the site's policies, or 404, with the site's active installations
 * the policy gate asks (read in the same statement). With `locale`, refuses next unless the
 * entry has it, as {@linkcode requireLocale} does.
 */
async function gatedGroup(
  ctx: ManageContext,
  id: string,
  locale?: string,
) {
  const found = await readGroupWith(ctx.services.db, ctx.site.id, id, {
    locale,
    extra: activeInstallationsJson,
  });
  if (!found) return refuseWith({ ok: false, code: "not_found" });
  if (locale !== undefined && !found.hasLanguage) {
    return refuseLocale(ctx, locale);
  }
  return {
    group: found.group,
    installations: installationRowsOf(found.extra),
  };
}

/** The refusal for a language the entry lacks: 422 when the site lacks it, else 404. */
function refuseLocale(ctx: ManageContext, locale: string): never {
  if (!ctx.site.languages.includes(locale)) {
    refuseWith({ ok: false, code: "unknown_locale", languages: [locale] });
  }
  return refuse(
    404,
    "not_found",
    `The entry has no language "${locale}": add it with POST /entries/{id}/locales`,
  );
}

/** `list-entries`: a model's entries outside Trash, paged in SQL. */
export const listEntries = defineHandler(contract.listEntries, {
  async run(ctx, { query }) {
    requireDecision(ctx.authority, {
      action: "entries.read",
      model: query.model_id,
      owner: ctx.authority.personId,
    });
    const { groups, page } = await pageGroups(ctx, {
      modelId: query.model_id,
      trashed: false,
      limit: query.limit,
      cursor: query.cursor,
    });
    // After the cursor check, so a refusal names the first thing wrong with the request.
    if (groups.length === 0) await requireModel(ctx, query.model_id);
    const data = await summaries(
      ctx.services.db,
      ctx.authority,
      ctx.site.id,
      groups,
    );
    return { body: { data, page } };
  },
});

/** `create-entry`: a new entry with its first language. */
export const createEntry = defineHandler(contract.createEntry, {
  async run(ctx, { body }) {
    requireDecision(ctx.authority, {
      action: "entries.create",
      model: body.model_id,
      languages: [body.locale],
    });
    // The command reads the model in its first statement and refuses a create without one.
    const saved = await saveEntry(lifecycleOf(ctx), {
      model_id: body.model_id.toLowerCase(),
      require_model: true,
      locale: body.locale,
      slug: body.slug,
      fields: body.fields,
      expected_current_version_id: null,
    });
    if (!saved.ok && saved.code === "not_found") {
      refuse(404, "not_found", `No model "${body.model_id}" on this site`);
    }
    return { body: writtenAnswer(unwrap(saved)) };
  },
});

/** `get-entry`: every language's readable values, pins, review stage, assignee and workflow block. */
export const getEntry = defineHandler(contract.getEntry, {
  async run(ctx, { params }) {
    const group = await readableGroup(ctx, params.id);
    const { db } = ctx.services;
    const [summary] = await summaries(db, ctx.authority, ctx.site.id, [group]);
    const workflow = unwrap(
      await readWorkflow({ db, siteId: ctx.site.id, actor: ctx.actor }, {
        group_id: group.id,
      }),
    );
    return {
      body: {
        ...summary,
        review_stage: await readReviewStage(db, ctx.site.id, group.id),
        assignee_id: await readAssignment(db, ctx.site.id, group.id),
        workflow: workflow.workflow,
      },
    };
  },
});

/** `update-entry`: a new version of one language, pinned. */
export const updateEntry = defineHandler(contract.updateEntry, {
  async run(ctx, { params, body }) {
    const { group, installations } = await gatedGroup(
      ctx,
      params.id,
      body.locale,
    );
    const { result, policy_results } = await underPolicies(
      ctx,
      {
        kind: "save",
        groupId: group.id,
        modelId: group.model_id,
        locale: body.locale,
        installations,
        values: {
          pinnedVersionId: body.expected_current_version_id,
          after: body.fields,
        },
      },
      async ({ dryRun, transform }) =>
        await saveEntry({ ...lifecycleOf(ctx), dryRun }, {
          group_id: group.id,
          locale: body.locale,
          slug: body.slug,
          fields: { ...body.fields, ...transform },
          expected_current_version_id: body.expected_current_version_id,
        }),
    );
    return { body: { ...writtenAnswer(result), policy_results } };
  },
});

/** `list-entry-versions`: newest first, paged by version number. */
export const listEntryVersions = defineHandler(contract.listEntryVersions, {
  async run(ctx, { params, query }) {
    const group = await readableGroup(ctx, params.id);
    const { db } = ctx.services;
    const instances = await readInstances(db, ctx.site.id, group.id);
    const list = `versions:${group.id}:${query.locale ?? ""}`;
    let q = db.selectFrom("entry_versions").select([
      "id",
      "number",
      "locale",
      "entry_id",
      "created_at",
      "created_by",
    ])
      .where("site_id", "=", ctx.site.id).where("group_id", "=", group.id);
    if (query.locale) q = q.where("locale", "=", query.locale);
    if (query.cursor) {
      const after = Number(decodeCursor(query.cursor, list).at);
      if (!Number.isInteger(after)) decodeCursor("", list);
      q = q.where("number", "<", after);
    }
    const rows = await q.orderBy("number", "desc").limit(query.limit + 1)
      .execute();
    const page = rows.slice(0, query.limit);
    const hasMore = rows.length > query.limit;
    const last = page.at(-1);
    return {
      body: {
        data: page.map((v) => versionSummary(v, instances)),
        page: {
          limit: query.limit,
          has_more: hasMore,
          next_cursor: hasMore && last
            ? encodeCursor({ list, at: String(last.number), id: last.id })
            : null,
        },
      },
    };
  },
});

function versionSummary(
  v: {
    id: string;
    number: number;
    locale: string;
    entry_id: string;
    created_at: Date;
    created_by: unknown;
  },
  instances: readonly {
    locale: string;
    current_version_id: string | null;
    published_version_id: string | null;
  }[],
) {
  const instance = instances.find((i) => i.locale === v.locale);
  return {
    id: v.id,
    number: v.number,
    locale: v.locale,
    entry_id: v.entry_id,
    created_at: iso(v.created_at)!,
    created_by:
      (typeof v.created_by === "string"
        ? JSON.parse(v.created_by)
        : v.created_by) as { kind: string },
    current: instance?.current_version_id === v.id,
    published: instance?.published_version_id === v.id,
  };
}

/** `get-entry-version`: one version with its readable values. */
export const getEntryVersion = defineHandler(contract.getEntryVersion, {
  async run(ctx, { params }) {
    const group = await readableGroup(ctx, params.id);
    const { db } = ctx.services;
    const version = await db.selectFrom("entry_versions")
      .select([
        "id",
        "number",
        "locale",
        "entry_id",
        "created_at",
        "created_by",
        "fields",
      ])
      .where("site_id", "=", ctx.site.id).where("group_id", "=", group.id)
      .where("id", "=", params.versionId).executeTakeFirst();
    if (!version) {
      return refuse(404, "not_found", "No such version of this entry");
    }
    const instances = await readInstances(db, ctx.site.id, group.id);
    return {
      body: {
        ...versionSummary(version, instances),
        fields: readable(
          ctx.authority,
          group.model_id,
          version.fields as Record<string, unknown>,
        ),
      },
    };
  },
});

/** `restore-entry-version`: an old version's values as a new draft version. */
export const restoreEntryVersion = defineHandler(contract.restoreEntryVersion, {
  async run(ctx, { params, body }) {
    const restore = async (
      { dryRun, transform }: {
        dryRun: boolean;
        transform: Record<string, unknown> | null;
      },
    ) =>
      await restoreVersion({ ...lifecycleOf(ctx), dryRun }, {
        group_id: params.id,
        version_id: params.versionId,
        expected_current_version_id: body.expected_current_version_id,
        overrides: transform ?? undefined,
      });
    const { db } = ctx.services;
    const group = await readGroup(db, ctx.site.id, params.id);
    const version = group
      ? await db.selectFrom("entry_versions").select(["locale", "fields"])
        .where("site_id", "=", ctx.site.id).where("group_id", "=", group.id)
        .where("id", "=", params.versionId).executeTakeFirst()
      : undefined;
    // Without the entry or the version the service's own refusal answers.
    if (!group || !version) {
      unwrap(await restore({ dryRun: false, transform: null }));
      throw new Error("A restore of a missing version cannot succeed");
    }
    const { result, policy_results } = await underPolicies(ctx, {
      kind: "restore",
      groupId: group.id,
      modelId: group.model_id,
      locale: version.locale,
      values: {
        pinnedVersionId: body.expected_current_version_id,
        after: version.fields as Record<string, unknown>,
      },
    }, restore);
    return { body: { ...writtenAnswer(result), policy_results } };
  },
});

/** `list-entry-dependents`: who links to the entry; unreadable linking entries are only counted. */
export const listEntryDependents = defineHandler(contract.listEntryDependents, {
  async run(ctx, { params }) {
    await readableGroup(ctx, params.id);
    const result = unwrap(
      await listDependents(lifecycleOf(ctx), { group_id: params.id }),
    );
    return {
      body: {
        data: result.dependents.map((d) => ({
          id: d.group_id,
          model_id: d.model_id,
          trashed: d.trashed,
          fields: d.fields,
        })),
        hidden: result.hidden,
      },
    };
  },
});

/** `publish-entry`: pinned to the current version and the workflow revision. */
export const publishEntry = defineHandler(contract.publishEntry, {
  async run(ctx, { params, body }) {
    const { group, installations } = await gatedGroup(ctx, params.id);
    requireDecision(ctx.authority, {
      action: "entries.publish",
      model: group.model_id,
      owner: group.created_by,
      languages: body.locale ? [body.locale] : undefined,
    });
    const pins = await publishPins(ctx, group, body);
    const { result, policy_results } = await underPolicies(ctx, {
      kind: "transition",
      transition: "publish",
      groupId: group.id,
      modelId: group.model_id,
      locale: body.locale ?? null,
      installations,
    }, async ({ dryRun }) =>
      await publish({ ...lifecycleOf(ctx), dryRun }, {
        group_id: group.id,
        ...body,
        ...pins,
      }));
    return { body: { ...writtenAnswer(result), policy_results } };
  },
});

/**
 * The pins of a publish, with `"current"` read now: the lifecycle service then compares them
 * inside its transaction, so a change landing meanwhile is a conflict, never published unseen.
 */
async function publishPins(
  ctx: ManageContext,
  group: { id: string; revision: number; current_version_id: string | null },
  body: {
    locale?: string;
    expected_current_version_id: string | null;
    expected_workflow_revision: number | typeof contract.CURRENT_PIN;
  },
): Promise<
  {
    expected_current_version_id: string | null;
    expected_workflow_revision: number;
  }
> {
  let version = body.expected_current_version_id;
  if (version === contract.CURRENT_PIN) {
    if (body.locale === undefined) version = group.current_version_id;
    else {
      const instances = await requireLocale(ctx, group.id, body.locale);
      version = instances.find((i) => i.locale === body.locale)!
        .current_version_id;
    }
  }
  const revision = body.expected_workflow_revision === contract.CURRENT_PIN
    ? group.revision
    : body.expected_workflow_revision;
  return {
    expected_current_version_id: version,
    expected_workflow_revision: revision,
  };
}

/** `unpublish-entry`: pinned to the published version and the workflow revision. */
export const unpublishEntry = defineHandler(contract.unpublishEntry, {
  async run(ctx, { params, body }) {
    const { group, installations } = await gatedGroup(ctx, params.id);
    requireDecision(ctx.authority, {
      action: "entries.unpublish",
      model: group.model_id,
      owner: group.created_by,
      languages: body.locale ? [body.locale] : undefined,
    });
    const { result, policy_results } = await underPolicies(ctx, {
      kind: "transition",
      transition: "unpublish",
      groupId: group.id,
      modelId: group.model_id,
      locale: body.locale ?? null,
      installations,
    }, async ({ dryRun }) =>
      await unpublish({ ...lifecycleOf(ctx), dryRun }, {
        group_id: group.id,
        ...body,
      }));
    return { body: { ...writtenAnswer(result), policy_results } };
  },
});

/** The answer of a language addition, read back from its audit entry so a lost answer is proved identically. */
async function localeAdded(ctx: ManageContext, groupId: string, slug: string) {
  const audit = await auditByKey(ctx, "entry.locale.add", groupId);
  if (!audit) return null;
  const versionId = String(audit.details.version_id);
  const version = await ctx.services.db.selectFrom("entry_versions").select(
    "entry_id",
  )
    .where("site_id", "=", ctx.site.id).where("id", "=", versionId)
    .executeTakeFirst();
  if (!version) return null;
  return {
    body: {
      id: groupId,
      model_id: String(audit.target.model_id),
      locale: String(audit.target.locale),
      entry_id: version.entry_id,
      slug,
      current_version_id: versionId,
    },
  };
}

/** `add-entry-locale`: a new language with its first draft version; the answer is held (settled by proof). */
export const addEntryLocale = defineHandler(contract.addEntryLocale, {
  async run(ctx, { params, body }) {
    const group = await writableGroup(ctx, params.id);
    const instances = await readInstances(
      ctx.services.db,
      ctx.site.id,
      group.id,
    );
    if (instances.some((i) => i.locale === body.locale)) {
      refuse(
        409,
        "locale_exists",
        `The entry already has language "${body.locale}"`,
        { language: body.locale },
      );
    }
    requireDecision(ctx.authority, {
      action: "entries.add_language",
      model: group.model_id,
      owner: group.created_by,
      languages: [body.locale],
    });
    unwrap(
      await saveEntry(lifecycleOf(ctx), {
        group_id: group.id,
        locale: body.locale,
        slug: body.slug,
        fields: body.fields,
        expected_current_version_id: null,
      }),
    );
    const answer = await localeAdded(ctx, group.id, body.slug);
    if (!answer) {
      throw new Error(
        `Cannot read back language "${body.locale}" of entry "${group.id}"`,
      );
    }
    return answer;
  },
  prove(ctx, { params, body }) {
    return localeAdded(ctx, params.id, body.slug);
  },
});
