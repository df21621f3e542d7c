// POST /admin/content/{model}/{id}/draft: the editor's autosave (the form as the person's working
// draft, answered as JSON) and "Discard them" (a form post, answered with the editor again).
import type { Context } from "hono";
import { autosave, dropDraft } from "../../../../../core/admin/autosave.ts";
import { adminContext } from "../../../../../core/admin/context.ts";
import { loadEditor } from "../../../../../core/admin/editor.ts";
import { modelBySlug } from "../../../../../core/admin/models.ts";
import { requireSignedIn } from "../../../../../core/auth/session_middleware.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

export const middleware = requireSignedIn;

const STATUS: Record<string, number> = {
  draft_conflict: 409,
  draft_held: 409,
  form_invalid: 422,
  not_found: 404,
  missing_permission: 403,
  locale_denied: 403,
  field_denied: 403,
};

export const handler = {
  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const ctx = await adminContext(c);
    const model = await modelBySlug(ctx, c.req.param("model")!);
    const locale = String(form.lang ?? "");
    const editor = await loadEditor(ctx, model, c.req.param("id")!, locale);
    if (form.action === "discard") {
      await dropDraft(ctx, editor.groupId, editor.locale);
      return c.redirect(
        `/admin/content/${model.slug}/${editor.groupId}?lang=${
          encodeURIComponent(editor.locale)
        }`,
        303,
      );
    }
    const result = await autosave(ctx, {
      controls: editor.controls,
      groupId: editor.groupId,
      locale: editor.locale,
      form,
    });
    return c.json(
      result,
      (result.ok ? 200 : STATUS[result.code] ?? 422) as 200,
      { "cache-control": "no-store" },
    );
  },
};
