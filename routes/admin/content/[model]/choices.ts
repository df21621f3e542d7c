// GET /admin/content/{model}/choices?field=&q=: a relation picker's search (JSON), the entries of
// the field's target models whose title or slug holds the words, readable by the person.
import type { Context } from "hono";
import { adminContext } from "../../../../core/admin/context.ts";
import { relationChoicesOf } from "../../../../core/admin/editor.ts";
import { controlAt, fieldControls } from "../../../../core/admin/entry_form.ts";
import { modelBySlug } from "../../../../core/admin/models.ts";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";

export const middleware = requireSignedIn;

/** Most choices one search answers. */
const SEARCH_LIMIT = 50;

export const handler = {
  async GET(c: Context<AppEnv>) {
    const ctx = await adminContext(c);
    const model = await modelBySlug(ctx, c.req.param("model")!);
    const key = c.req.query("field") ?? "";
    const q = (c.req.query("q") ?? "").trim().slice(0, 100);
    // A relation field of the model, or of one of its component items (`faq.0.link`).
    const control = controlAt(fieldControls(model, ctx.authority), key);
    if (control?.type !== "relation") {
      return refuse(404, "not_found", "No such relation field");
    }
    const choices = q === ""
      ? []
      : await relationChoicesOf(ctx, control, { q, limit: SEARCH_LIMIT });
    return c.json({ choices }, 200, { "cache-control": "no-store" });
  },
};
