// GET/POST /admin/settings/editorial: version retention, whether publishing needs a review, and
// the origins rich-text embeds may come from (the `editorial` settings document).
import type { Context } from "hono";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import { MAX_EMBED_ORIGINS } from "../../../core/sites/settings_documents.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import type { PageProps } from "../../../core/web/manifest.ts";
import { AdminShell } from "../_shell.tsx";
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

type EditorialData = DocumentData<"editorial">;

async function editorialData(
  c: Context<AppEnv>,
  extra: Partial<EditorialData> = {},
): Promise<EditorialData> {
  const { data } = await openDocumentPage(c, "editorial", "Editorial");
  return { ...data, ...extra };
}

export const handler = documentHandler({
  key: "editorial",
  path: "/admin/settings/editorial",
  load: editorialData,
  fromForm(form) {
    const days = String(form.version_retention_days ?? "").trim();
    return {
      version_retention_days: days === "" ? null : Number(days),
      review_required: form.review_required === "true",
      allowed_embed_origins: String(form.allowed_embed_origins ?? "")
        .split(/\r?\n/).map((o) => o.trim()).filter(Boolean),
    };
  },
});

export default function Editorial({ data }: PageProps<EditorialData>) {
  const doc = data.document;
  const invalid = (path: string) =>
    problemsAt(data.problems, path).length > 0 ? "true" as const : undefined;
  const days = doc.version_retention_days;
  return (
    <AdminShell shell={data.shell} title="Editorial">
      <DocumentMessages notice={data.notice} alert={data.alert} />
      <form method="post" class="card stack">
        <DocumentFormHead
          csrfToken={data.shell.csrfToken}
          revision={data.revision}
        />
        <div class="field">
          <label for="retention">Keep old versions for (days)</label>
          <FieldProblem
            problems={data.problems}
            path="version_retention_days"
            id="retention-error"
          />
          <input
            id="retention"
            name="version_retention_days"
            type="number"
            min={1}
            max={3650}
            value={days === null || Number.isNaN(days) ? "" : String(days)}
            aria-invalid={invalid("version_retention_days")}
            aria-describedby="retention-hint"
          />
          <p class="hint" id="retention-hint">
            1 to 3650; empty keeps every version. Published and current versions
            are always kept.
          </p>
        </div>
        <div class="field">
          <label>
            <input
              type="checkbox"
              name="review_required"
              value="true"
              checked={doc.review_required}
            />{" "}
            Publishing needs an approved review first
          </label>
        </div>
        <div class="field">
          <label for="embed-origins">Rich-text embeds may come from</label>
          <FieldProblem
            problems={data.problems}
            path="allowed_embed_origins"
            id="embed-origins-error"
          />
          <textarea
            id="embed-origins"
            name="allowed_embed_origins"
            rows={4}
            aria-invalid={invalid("allowed_embed_origins")}
            aria-describedby="embed-origins-hint"
          >
            {(doc.allowed_embed_origins ?? []).join("\n")}
          </textarea>
          <p class="hint" id="embed-origins-hint">
            One exact https origin per line, such as{" "}
            <code>https://www.youtube.com</code>; at most{" "}
            {MAX_EMBED_ORIGINS}. Empty allows no embeds.
          </p>
        </div>
        <p class="buttons">
          <button type="submit">Save</button>
        </p>
      </form>
    </AdminShell>
  );
}
