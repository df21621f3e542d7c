// GET/POST /admin/settings/comments: whether visitors may comment, on which public types, and
// for how long after publication (the `comments` settings document).
import type { Context } from "hono";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import { MAX_COMMENT_MODELS } from "../../../core/sites/settings_documents.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import type { PageProps } from "../../../core/web/manifest.ts";
import { AdminShell } from "../_shell.tsx";
import { formList } from "../../../core/admin/form_values.ts";
import { listModels } from "../../../core/models/model_reads.ts";
import {
  type DocumentData,
  DocumentFormHead,
  documentHandler,
  DocumentMessages,
  FieldProblem,
  openDocumentPage,
  problemsAt,
} from "./_document.tsx";

export const middleware = requireSignedIn;

interface CommentsData extends DocumentData<"comments"> {
  models: { id: string; name: string; slug: string }[];
}

async function commentsData(
  c: Context<AppEnv>,
  extra: Partial<CommentsData> = {},
): Promise<CommentsData> {
  const { ctx, data } = await openDocumentPage(c, "comments", "Comments");
  const { db, clock } = ctx.services;
  const models = (await listModels({ db, clock, siteId: ctx.site.id }))
    .filter((m) => m.isPublic);
  return {
    ...data,
    models: models.map((m) => ({ id: m.id, name: m.name, slug: m.slug })),
    ...extra,
  };
}

export const handler = documentHandler({
  key: "comments",
  path: "/admin/settings/comments",
  load: commentsData,
  fromForm(form) {
    const days = String(form.close_after_days ?? "").trim();
    return {
      enabled: form.enabled === "true",
      models: formList(form.models),
      close_after_days: days === "" ? null : Number(days),
    };
  },
});

export default function Comments({ data }: PageProps<CommentsData>) {
  const doc = data.document;
  const days = doc.close_after_days;
  return (
    <AdminShell shell={data.shell} title="Comments">
      <DocumentMessages notice={data.notice} alert={data.alert} />
      <form method="post" class="card stack">
        <DocumentFormHead
          csrfToken={data.shell.csrfToken}
          revision={data.revision}
        />
        <label>
          <input
            type="checkbox"
            name="enabled"
            value="true"
            checked={doc.enabled}
          />{" "}
          Visitors may comment on published items
        </label>
        <FieldProblem
          problems={data.problems}
          path="models"
          id="models-error"
        />
        <fieldset class="checks">
          <legend>On these types (at most {MAX_COMMENT_MODELS})</legend>
          {data.models.map((m) => (
            <label key={m.id}>
              <input
                type="checkbox"
                name="models"
                value={m.slug}
                checked={doc.models.includes(m.slug) ||
                  doc.models.includes(m.id)}
              />{" "}
              {m.name}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="close-after">Close comments after (days)</label>
          <FieldProblem
            problems={data.problems}
            path="close_after_days"
            id="close-after-error"
          />
          <input
            id="close-after"
            name="close_after_days"
            type="number"
            min={1}
            max={3650}
            value={days === null || Number.isNaN(days) ? "" : String(days)}
            aria-invalid={problemsAt(data.problems, "close_after_days").length >
                0
              ? "true"
              : undefined}
            aria-describedby="close-after-hint"
          />
          <p class="hint" id="close-after-hint">
            1 to 3650 days after an item is published; empty never closes.
          </p>
        </div>
        <p class="buttons">
          <button type="submit">Save</button>
        </p>
      </form>
    </AdminShell>
  );
}
