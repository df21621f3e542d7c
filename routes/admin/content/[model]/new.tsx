// GET/POST /admin/content/{model}/new?lang=..: a new entry's first language, saved as a draft.
import type { Context } from "hono";
import { decide } from "../../../../core/access/decide.ts";
import { adminContext } from "../../../../core/admin/context.ts";
import {
  mediaChoices,
  newEditor,
  relationChoices,
} from "../../../../core/admin/editor.ts";
import { saveFromForm } from "../../../../core/admin/editor_save.ts";
import { refusalMessage } from "../../../../core/admin/messages.ts";
import { modelBySlug } from "../../../../core/admin/models.ts";
import { requireSignedInKeepingEdits } from "../../../../core/admin/session_lost.tsx";
import { ERROR_STATUS } from "../../../../core/manage/contract/errors.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";
import { page, type PageProps } from "../../../../core/web/manifest.ts";
import { openAdminPage } from "../../_shell.tsx";
import { type EditorData, EditorPage } from "./_editor.tsx";

export const middleware = requireSignedInKeepingEdits;

async function newData(
  c: Context<AppEnv>,
  locale: string,
): Promise<EditorData> {
  const { ctx, shell } = await openAdminPage(c, []);
  const model = await modelBySlug(ctx, c.req.param("model")!);
  if (!decide(ctx.authority, { action: "create", model: model.id }).ok) {
    refuse(
      403,
      "missing_permission",
      "Your role may not create entries of this model",
    );
  }
  const lang = ctx.site.languages.includes(locale)
    ? locale
    : ctx.site.defaultLanguage;
  const editor = await newEditor(ctx, model, lang);
  shell.crumbs.push(
    { label: model.name, href: `/admin/content/${model.slug}` },
    { label: "New entry" },
  );
  return {
    title: editor.title,
    shell,
    model: { id: model.id, slug: model.slug, name: model.name },
    editor,
    isNew: true,
    errors: {},
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await newData(c, c.req.query("lang") ?? ""));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const data = await newData(c, String(form.lang ?? ""));
    const ctx = await adminContext(c);
    const model = await modelBySlug(ctx, c.req.param("model")!);
    const saved = await saveFromForm(ctx, {
      model,
      controls: data.editor.controls,
      groupId: null,
      locale: data.editor.locale,
      form,
    });
    if (saved.ok) {
      return c.redirect(
        `/admin/content/${model.slug}/${saved.groupId}?lang=${data.editor.locale}&done=created`,
        303,
      );
    }
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
    data.editor.slug = String(form.slug ?? "");
    data.errors = saved.errors;
    data.alert = saved.code === "form_invalid"
      ? "Some fields need attention: see the messages beside them"
      : refusalMessage(saved.code);
    const status = saved.code === "form_invalid"
      ? 422
      : ((ERROR_STATUS as Record<string, number>)[saved.code] ?? 422);
    return page(data, { status: status as 422 });
  },
};

export default function NewEntry({ data }: PageProps<EditorData>) {
  return <EditorPage data={data} />;
}
