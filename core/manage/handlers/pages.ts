// Handlers of the page routes: read a page, save its document, add a language (ENT-028 to
// ENT-031). Saves go through the one lifecycle service, whose validator parses the document.
import { saveEntry } from "../../entries/mod.ts";
import { readGroup, readInstances } from "../../entries/store.ts";
import { getModel } from "../../models/model_reads.ts";
import type { StoredModel } from "../../models/store_rows.ts";
import { isPageField } from "../../models/validate_values.ts";
import { changePageAddress } from "../../pages/page_address_command.ts";
import { parsePageDocument } from "../../pages/parse.ts";
import { siteSectionRegistry } from "../../templates/registry.ts";
import { isReservedPageSlug } from "../../pages/addresses.ts";
import {
  pendingAddresses,
  setPageAddress as setAddress,
} from "../../pages/pending_address.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/pages.ts";
import { underPolicies } from "./policy_gate.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import {
  iso,
  lifecycleOf,
  readable,
  readableGroup,
  refuseWith,
  requireDecision,
  unwrap,
  writtenAnswer,
} from "./entries_support.ts";

/** The page's model; an entry of a model without a page document is not a page (404). */
async function pageModel(
  ctx: ManageContext,
  modelId: string,
): Promise<StoredModel & { pageField: string }> {
  const { db, clock } = ctx.services;
  const found = await getModel({ db, clock, siteId: ctx.site.id }, modelId);
  const field = found.ok ? found.model.fields.find(isPageField) : undefined;
  if (!found.ok || !field) {
    return refuse(404, "not_found", "No page with this id on this site");
  }
  return { ...found.model, pageField: field.key };
}

function refuseReserved(slug: string | undefined): void {
  if (slug !== undefined && isReservedPageSlug(slug)) {
    refuse(
      409,
      "slug_reserved",
      `The address "${slug}" is reserved for the service's own routes`,
      { slug },
    );
  }
}

async function versionFields(
  ctx: ManageContext,
  versionId: string | null,
): Promise<Record<string, unknown>> {
  if (versionId === null) return {};
  const row = await ctx.services.db.selectFrom("entry_versions").select(
    "fields",
  ).where("site_id", "=", ctx.site.id).where("id", "=", versionId)
    .executeTakeFirst();
  return (row?.fields ?? {}) as Record<string, unknown>;
}

/** `get-page`: each language's pins, address and current page document. */
export const getPage = defineHandler(contract.getPage, {
  async run(ctx, { params }) {
    const group = await readableGroup(ctx, params.id);
    const model = await pageModel(ctx, group.model_id);
    const instances = await readInstances(
      ctx.services.db,
      ctx.site.id,
      group.id,
    );
    const pending = await pendingAddresses(
      ctx.services.db,
      ctx.site.id,
      instances.map((i) => i.id),
    );
    const registry = await siteSectionRegistry(ctx.services.db, ctx.site.id);
    const locales: Record<string, unknown> = {};
    for (const i of instances) {
      const values = readable(
        ctx.authority,
        group.model_id,
        await versionFields(ctx, i.current_version_id),
      );
      const { [model.pageField]: stored, ...fields } = values;
      const parsed = stored === undefined || stored === null
        ? null
        : parsePageDocument(stored, { registry });
      locales[i.locale] = {
        entry_id: i.id,
        slug: i.slug,
        state: group.trashed_at
          ? "trashed"
          : i.published_version_id
          ? "published"
          : "draft",
        current_version_id: i.current_version_id,
        published_version_id: i.published_version_id,
        published_at: iso(i.published_at),
        document: parsed?.ok ? parsed.value : null,
        document_error: parsed && !parsed.ok ? parsed.error : null,
        page_contract: { required: parsed?.ok ? parsed.contract : null },
        fields,
        pending_address: pending.has(i.id)
          ? {
            address: pending.get(i.id)!.address,
            version_id: pending.get(i.id)!.version_id,
          }
          : null,
      };
    }
    return {
      body: {
        id: group.id,
        model_id: group.model_id,
        state: group.trashed_at
          ? "trashed" as const
          : instances.some((i) => i.published_version_id)
          ? "published" as const
          : "draft" as const,
        revision: group.revision,
        current_version_id: group.current_version_id,
        published_version_id: instances.find((i) =>
          i.published_version_id
        )?.published_version_id ?? null,
        locales: locales as never,
      },
    };
  },
});

/** `save-page`: a new version of one language with this document; other values are kept. */
export const savePage = defineHandler(contract.savePage, {
  async run(ctx, { params, body }) {
    const group = await readGroup(ctx.services.db, ctx.site.id, params.id);
    if (!group) return refuseWith({ ok: false, code: "not_found" });
    const model = await pageModel(ctx, group.model_id);
    refuseReserved(body.slug);
    const instances = await readInstances(
      ctx.services.db,
      ctx.site.id,
      group.id,
    );
    const instance = instances.find((i) => i.locale === body.locale);
    if (!instance) {
      if (!ctx.site.languages.includes(body.locale)) {
        refuseWith({
          ok: false,
          code: "unknown_locale",
          languages: [body.locale],
        });
      }
      return refuse(
        404,
        "not_found",
        `The page has no language "${body.locale}": add it with POST /pages/{id}/translations`,
      );
    }
    const fields = {
      ...await versionFields(ctx, instance.current_version_id),
      [model.pageField]: body.document,
    };
    // A new address waits for publication like one set at /pages/{id}/address (DLV-013).
    const { result, policy_results } = await underPolicies(ctx, {
      kind: "save",
      groupId: group.id,
      modelId: group.model_id,
      locale: body.locale,
      values: {
        pinnedVersionId: body.expected_current_version_id,
        after: fields,
      },
    }, async ({ dryRun, transform }) => {
      const lifecycle = { ...lifecycleOf(ctx), dryRun };
      const values = { ...fields, ...transform };
      return body.slug === undefined
        ? await saveEntry(lifecycle, {
          group_id: group.id,
          locale: body.locale,
          fields: values,
          expected_current_version_id: body.expected_current_version_id,
        })
        : await setAddress(lifecycle, {
          group_id: group.id,
          locale: body.locale,
          address: body.slug,
          fields: values,
          expected_current_version_id: body.expected_current_version_id,
        });
    });
    return {
      body: { ...writtenAnswer(result), created: true, policy_results },
    };
  },
});

/** `set-page-address`: a new draft version recording the address; publication moves it. */
export const setPageAddress = defineHandler(contract.setPageAddress, {
  async run(ctx, { params, body }) {
    const group = await readGroup(ctx.services.db, ctx.site.id, params.id);
    if (!group) return refuseWith({ ok: false, code: "not_found" });
    await pageModel(ctx, group.model_id);
    refuseReserved(body.address ?? undefined);
    requireDecision(ctx.authority, {
      action: "pages.save",
      model: group.model_id,
      owner: group.created_by,
      languages: [body.locale],
    });
    const changed = unwrap(
      await changePageAddress(lifecycleOf(ctx), {
        group_id: group.id,
        locale: body.locale,
        address: body.address,
        expected_current_version_id: body.expected_current_version_id,
      }),
    );
    return {
      body: {
        ...writtenAnswer(changed.result),
        pending_address: changed.pending_address,
      },
    };
  },
});

/** `add-page-translation`: a new language with its own address and document. */
export const addPageTranslation = defineHandler(contract.addPageTranslation, {
  async run(ctx, { params, body }) {
    const group = await readGroup(ctx.services.db, ctx.site.id, params.id);
    if (!group) return refuseWith({ ok: false, code: "not_found" });
    const model = await pageModel(ctx, group.model_id);
    refuseReserved(body.slug);
    const instances = await readInstances(
      ctx.services.db,
      ctx.site.id,
      group.id,
    );
    if (instances.some((i) => i.locale === body.locale)) {
      refuse(
        409,
        "locale_exists",
        `The page already has language "${body.locale}"`,
        { language: body.locale },
      );
    }
    requireDecision(ctx.authority, {
      action: "entries.add_language",
      model: group.model_id,
      owner: group.created_by,
      languages: [body.locale],
    });
    if (body.fields && model.pageField in body.fields) {
      refuse(
        400,
        "invalid_request",
        `Send the page document as "document", not as fields.${model.pageField}`,
      );
    }
    const result = unwrap(
      await saveEntry(lifecycleOf(ctx), {
        group_id: group.id,
        locale: body.locale,
        slug: body.slug,
        fields: { ...body.fields, [model.pageField]: body.document },
        expected_current_version_id: null,
      }),
    );
    return {
      body: { ...writtenAnswer(result), locale: body.locale, created: true },
    };
  },
});
