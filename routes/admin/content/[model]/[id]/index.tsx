// GET/POST /admin/content/{model}/{id}?lang=..: the entry editor; every action goes through the lifecycle service.
import type { Context } from "hono";
import { adminContext } from "../../../../../core/admin/context.ts";
import {
  loadEditor,
  mediaChoices,
  relationChoices,
} from "../../../../../core/admin/editor.ts";
import { draftState, dropDraft } from "../../../../../core/admin/autosave.ts";
import {
  type FieldControl,
  parseEntryForm,
  type RawValues,
  rawValues,
} from "../../../../../core/admin/entry_form.ts";
import {
  conflictRows,
  refusalErrors,
  runCheckedEditorAction,
  saveFromForm,
} from "../../../../../core/admin/editor_save.ts";
import { refusalMessage } from "../../../../../core/admin/messages.ts";
import {
  keepNotes,
  policyLines,
  policyRefusalText,
  takeNotes,
} from "../../../../../core/admin/policy_checks.ts";
import { modelBySlug } from "../../../../../core/admin/models.ts";
import { requireSignedInKeepingEdits } from "../../../../../core/admin/session_lost.tsx";
import { isPageField } from "../../../../../core/models/validate_values.ts";
import { mintPreviewToken } from "../../../../../core/public/preview_tokens.ts";
import type { Config } from "../../../../../core/config.ts";
import { renderedPath } from "../../../../../core/sites/site_address.ts";
import {
  getPreviewAddress,
  setPreviewAddress,
} from "../../../../../core/sites/preview_address.ts";
import { decide } from "../../../../../core/access/decide.ts";
import { pluginCardsFor } from "../../../../../core/plugins/cards.ts";
import { withCardStatus } from "../../../../../core/admin/plugin_cards.ts";
import { runnableOperations } from "../../../../../core/admin/plugin_operations.ts";
import { ERROR_STATUS } from "../../../../../core/manage/contract/errors.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";
import { cspAllowingFrames } from "../../../../../core/web/csp.ts";
import { page, type PageProps } from "../../../../../core/web/manifest.ts";
import { openAdminPage } from "../../../_shell.tsx";
import { type EditorData, EditorPage } from "../_editor.tsx";

export const middleware = requireSignedInKeepingEdits;

const NOTICES: Record<string, string> = {
  saved: "Saved as a draft.",
  created: "Created as a draft.",
  publish: "Published.",
  unpublish: "Unpublished: readers no longer get this language.",
  trash: "Moved to Trash.",
  restore: "Restored from Trash.",
  submit: "Submitted for review.",
  approve: "Approved.",
  request_changes: "Changes requested.",
  withdraw: "Withdrawn from review.",
  assign: "Assignee saved.",
  restored_version: "The older version is now the current draft.",
  applied: "Proposal applied as a new draft version.",
  preview_address: "The site's preview address is saved.",
};

async function editorData(
  c: Context<AppEnv>,
  locale: string,
): Promise<EditorData> {
  const { ctx, shell } = await openAdminPage(c, []);
  const model = await modelBySlug(ctx, c.req.param("model")!);
  const editor = await loadEditor(ctx, model, c.req.param("id")!, locale);
  shell.crumbs.push(
    { label: model.name, href: `/admin/content/${model.slug}` },
    { label: editor.title },
  );
  const done = c.req.query("done") ?? "";
  const drafts = await draftState(ctx, editor.groupId, editor.locale);
  if (drafts.own && sameAsSaved(editor, drafts.own.fields)) {
    // An autosave that reached the service after the save it was part of holds nothing the
    // saved version lacks: offering it back would be a phantom, so it is dropped.
    await dropDraft(ctx, editor.groupId, editor.locale);
    drafts.own = null;
  }
  let restored = false;
  if (drafts.own && c.req.query("draft") === "restore") {
    // The form starts from the autosaved values, pinned to the version the work began on, so
    // a save made since is shown as a conflict instead of being overwritten.
    editor.raw = {
      ...editor.raw,
      ...rawValues(editor.controls, drafts.own.fields),
    };
    editor.currentVersionId = drafts.own.baseVersionId ??
      editor.currentVersionId;
    editor.mediaChoices = await mediaChoices(
      ctx,
      editor.controls,
      editor.raw,
      editor.locale,
    );
    restored = true;
  }
  const instance = editor.exists
    ? await ctx.services.db.selectFrom("entries").select("id")
      .where("site_id", "=", ctx.site.id)
      .where("group_id", "=", editor.groupId)
      .where("locale", "=", editor.locale).executeTakeFirst()
    : undefined;
  const cards = instance
    ? await pluginCardsFor(ctx.services.db, {
      siteId: ctx.site.id,
      userId: ctx.user.id,
      modelId: model.id,
      isPage: model.fields.some(isPageField),
    })
    : [];
  const operations = instance
    ? (await runnableOperations(ctx, model.id)).length
    : 0;
  return {
    title: editor.title,
    shell,
    model: {
      id: model.id,
      slug: model.slug,
      name: model.name,
      isPublic: model.isPublic,
      isPage: model.fields.some(isPageField),
    },
    editor,
    isNew: false,
    errors: {},
    drafts,
    restored,
    notice: restored
      ? "Your autosaved changes are back in the form: save to keep them."
      : NOTICES[done],
    policyNotes: await takeNotes(ctx, c.req.query("notes")),
    plugins: instance && cards.length > 0
      ? {
        cards: await withCardStatus(ctx, {
          modelId: model.id,
          instanceId: instance.id,
        }, cards),
        instanceId: instance.id,
      }
      : undefined,
    operations: instance && operations > 0
      ? { count: operations, instanceId: instance.id }
      : undefined,
    previewAddress: model.isPublic && editor.exists
      ? {
        url: await getPreviewAddress(ctx.services.db, ctx.site.id),
        mayChange: decide(ctx.authority, { action: "settings.write" }).ok,
        rendered: Boolean(ctx.services.config.siteRenderers[ctx.site.domain]),
      }
      : undefined,
    siteHref: model.isPublic &&
        editor.languages.some((l) => l.code === editor.locale && l.published)
      ? renderedHref(ctx, model.slug, editor) ?? undefined
      : undefined,
  };
}

/** True when a working draft's values are the ones the form already holds from the saved version. */
function sameAsSaved(
  editor: { controls: FieldControl[]; raw: RawValues },
  fields: Record<string, unknown>,
): boolean {
  const drafted = rawValues(editor.controls, fields);
  return editor.controls.every((c) =>
    JSON.stringify(drafted[c.key] ?? "") ===
      JSON.stringify(editor.raw[c.key] ?? "")
  );
}

/** True when a posted editor form holds exactly the saved version the page showed. */
function formUnchanged(
  editor: {
    exists: boolean;
    controls: FieldControl[];
    raw: RawValues;
    slug: string;
    currentVersionId: string | null;
  },
  form: Record<string, unknown>,
): boolean {
  if (!editor.exists) return false;
  if (
    String(form.expected_current_version_id ?? "") !==
      (editor.currentVersionId ?? "")
  ) {
    return false;
  }
  if (String(form.slug ?? editor.slug) !== editor.slug) return false;
  const parsed = parseEntryForm(editor.controls, form);
  if (parsed.problems.length > 0) return false;
  const text = (v: unknown) =>
    JSON.stringify(v ?? "").replaceAll("\\r\\n", "\\n");
  return Object.keys(parsed.raw).every((key) =>
    text(parsed.raw[key]) === text(editor.raw[key])
  );
}

/** The rendered address of this entry language on the site's renderer, when one serves it. */
function renderedHref(
  ctx: {
    services: { config: Config };
    site: { domain: string; defaultLanguage: string };
  },
  model: string,
  editor: { slug: string; liveSlug: string | null; locale: string },
): string | null {
  const origin = ctx.services.config.siteRenderers[ctx.site.domain];
  const path = renderedPath(
    { model, slug: editor.liveSlug ?? editor.slug, locale: editor.locale },
    ctx.site.defaultLanguage,
  );
  return origin && path ? origin + path : null;
}

/** The editor page; cards with reviewed frames add their plugins' origins to `frame-src`. */
function editorPage(data: EditorData, init: { status?: number } = {}) {
  const origins = (data.plugins?.cards ?? []).flatMap((c) =>
    c.frame ? [c.frame.origin] : []
  );
  return page(data, {
    ...init,
    ...(origins.length > 0
      ? { headers: { "content-security-policy": cspAllowingFrames(origins) } }
      : {}),
  });
}

function statusOf(code: string): 400 | 403 | 404 | 409 | 422 {
  return ((ERROR_STATUS as Record<string, number>)[code] ?? 422) as 422;
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return editorPage(await editorData(c, c.req.query("lang") ?? ""));
  },

  async POST(c: Context<AppEnv>) {
    const posted = await c.req.parseBody({ all: true });
    let action = String(posted.action ?? "save");
    let form: Record<string, unknown> = posted;
    /** Set when the action bar's Publish or Preview first saved the form. */
    let savedFirst = false;
    const locale = String(form.lang ?? "");
    const ctx = await adminContext(c);
    const model = await modelBySlug(ctx, c.req.param("model")!);
    const groupId = c.req.param("id")!;
    const base = `/admin/content/${model.slug}/${groupId}`;
    if (
      action === "save" || action === "save_publish" ||
      action === "save_preview"
    ) {
      const data = await editorData(c, locale);
      // Publish or Preview of a form nobody changed acts on the saved version as it is, without
      // a version that repeats it.
      const saved = action !== "save" && formUnchanged(data.editor, form)
        ? {
          ok: true as const,
          groupId: data.editor.groupId,
          policyResults: [],
        }
        : await saveFromForm(ctx, {
          model,
          controls: data.editor.controls,
          groupId: data.editor.groupId,
          locale: data.editor.locale,
          form,
        });
      if (saved.ok) {
        // The autosaved work is in the saved version now.
        await dropDraft(ctx, saved.groupId, data.editor.locale);
        const notes = await keepNotes(ctx, policyLines(saved.policyResults));
        if (action !== "save") {
          // The action bar's Publish and Preview act on what the form held: the version just
          // saved, pinned as the sidebar's buttons pin the version they show.
          const fresh = await loadEditor(
            ctx,
            model,
            groupId,
            data.editor.locale,
          );
          action = action === "save_publish" ? "publish" : "preview";
          form = {
            lang: fresh.locale,
            revision: String(fresh.revision),
            expected_current_version_id: fresh.currentVersionId ?? "",
            related_drafts: posted.related_drafts,
          };
          savedFirst = true;
        } else {
          return c.redirect(
            `${base}?lang=${encodeURIComponent(data.editor.locale)}&done=saved${
              notes ? `&notes=${notes}` : ""
            }`,
            303,
          );
        }
      }
      if (!saved.ok) {
        // Keep what the person typed; read-only fields keep their stored text.
        data.editor.raw = { ...data.editor.raw, ...saved.parsed.raw };
        data.editor.mediaChoices = await mediaChoices(
          ctx,
          data.editor.controls,
          data.editor.raw,
          data.editor.locale,
        );
        data.editor.relationChoices = await relationChoices(
          ctx,
          data.editor.controls,
          data.editor.raw,
        );
        data.editor.slug = String(form.slug ?? data.editor.slug);
        data.errors = saved.errors;
        data.notice = undefined;
        data.alert = saved.alert ??
          (saved.code === "form_invalid"
            ? "Some fields need attention: see the messages beside them"
            : refusalMessage(saved.code));
        if (saved.current) {
          data.conflict = {
            rows: conflictRows(
              data.editor.controls,
              saved.parsed,
              saved.current.values,
            ),
          };
          // Saving again keeps this person's version, pinned to the one they have now seen.
          data.editor.currentVersionId = saved.current.versionId;
        }
        return editorPage(data, {
          status: saved.code === "form_invalid" ? 422 : statusOf(saved.code),
        });
      }
    }
    if (action === "preview_address") {
      if (!decide(ctx.authority, { action: "settings.write" }).ok) {
        const data = await editorData(c, locale);
        data.notice = undefined;
        data.alert = "Changing the site's preview address needs site:settings";
        return editorPage(data, { status: 403 });
      }
      const typed = String(form.preview_address ?? "").trim();
      const set = await setPreviewAddress({
        db: ctx.services.db,
        clock: ctx.services.clock,
        siteId: ctx.site.id,
        personId: ctx.user.id,
      }, typed === "" ? null : typed);
      if (!set.ok) {
        const data = await editorData(c, locale);
        data.notice = undefined;
        data.alert = set.message;
        if (data.previewAddress) data.previewAddress.typed = typed;
        return editorPage(data, { status: 422 });
      }
      return c.redirect(
        `${base}?lang=${encodeURIComponent(locale)}&done=preview_address`,
        303,
      );
    }
    if (action === "preview") {
      // The link carries the token, so it is shown on this answer only, never redirected to.
      const data = await editorData(c, locale);
      const { db, clock } = ctx.services;
      const relatedDrafts = form.related_drafts === "on";
      const minted = await mintPreviewToken({ db, clock }, {
        siteId: ctx.site.id,
        groupId: data.editor.groupId,
        personId: ctx.user.id,
        relatedDrafts,
      });
      const slug = data.editor.liveSlug ?? data.editor.slug;
      data.notice = savedFirst ? NOTICES.saved : undefined;
      const rendered = renderedHref(ctx, model.slug, data.editor);
      data.preview = {
        href: `/v1/${model.slug}/${encodeURIComponent(slug)}?locale=${
          encodeURIComponent(data.editor.locale)
        }&preview=${minted.token}`,
        siteHref: rendered ? `${rendered}?preview=${minted.token}` : undefined,
        // The site's own front end gets the token in a form's body, never in its address.
        post: !rendered && data.previewAddress?.url
          ? {
            action: data.previewAddress.url,
            fields: {
              preview: minted.token,
              model: model.slug,
              slug,
              locale: data.editor.locale,
              path: renderedPath(
                { model: model.slug, slug, locale: data.editor.locale },
                ctx.site.defaultLanguage,
              ) ?? "",
            },
          }
          : undefined,
        minutes: Math.round(
          (minted.expiresAt.getTime() - clock.now().getTime()) / 60_000,
        ),
        relatedDrafts,
      };
      return editorPage(data, { status: 201 });
    }
    const checked = await runCheckedEditorAction(ctx, {
      groupId,
      modelId: model.id,
      action,
      form,
    });
    if (!checked.ok) {
      const data = await editorData(c, locale);
      data.notice = undefined;
      data.alert = policyRefusalText(checked);
      return editorPage(data, { status: checked.status });
    }
    const outcome = checked.outcome;
    if (outcome.ok) {
      const notes = await keepNotes(ctx, policyLines(checked.results));
      return c.redirect(
        `${base}?lang=${encodeURIComponent(locale)}&done=${
          encodeURIComponent(action)
        }${notes ? `&notes=${notes}` : ""}`,
        303,
      );
    }
    const data = await editorData(c, locale);
    data.notice = savedFirst ? NOTICES.saved : undefined;
    data.alert = outcome.code === "field_validation_failed"
      ? "This language cannot be published yet: fix the fields marked below, save, then publish"
      : refusalMessage(outcome.code);
    data.errors = refusalErrors(outcome, data.editor.locale);
    return editorPage(data, { status: statusOf(outcome.code) });
  },
};

export default function EntryEditor({ data }: PageProps<EditorData>) {
  return <EditorPage data={data} />;
}
