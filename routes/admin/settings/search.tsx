// GET/POST /admin/settings/search: whether site search is on, and per public type the fields it
// searches with their weights and how words match (the `search` settings document; site:infra).
import type { Context } from "hono";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import { listModels } from "../../../core/models/model_reads.ts";
import type { StoredModel } from "../../../core/models/store_rows.ts";
import { searchableFields, titleField } from "../../../core/search/fields.ts";
import { MATCHING_MODES } from "../../../core/sites/settings_documents.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import type { PageProps } from "../../../core/web/manifest.ts";
import { AdminShell } from "../_shell.tsx";
import { formList } from "../../../core/admin/form_values.ts";
import {
  type DocumentData,
  DocumentFormHead,
  documentHandler,
  DocumentMessages,
  openDocumentPage,
  problemsAt,
} from "./_document.tsx";

export const middleware = requireSignedIn;

interface SearchData extends DocumentData<"search"> {
  models: {
    id: string;
    slug: string;
    name: string;
    fields: string[];
    /** Where custom settings start, shown while a type has none. */
    starting: string;
  }[];
}

/** New custom settings start with the title at 10 and other text fields at 1 (spec 3 part 4.7 item 2). */
function startingFields(model: StoredModel): string {
  const title = titleField(model);
  const others = searchableFields(model).filter((f) =>
    f.type !== "relation" && f.key !== title?.key
  ).map((f) => `${f.key}:1`);
  return [...(title ? [`${title.key}:10`] : []), ...others].slice(0, 16)
    .join(", ");
}

const MATCHING_LABELS: Record<typeof MATCHING_MODES[number], string> = {
  whole_words: "Whole words",
  english_word_forms: "English word forms (run, runs, running)",
  parts_of_words: "Parts of words",
};

async function searchData(
  c: Context<AppEnv>,
  extra: Partial<SearchData> = {},
): Promise<SearchData> {
  const { ctx, data } = await openDocumentPage(c, "search", "Site search");
  const { db, clock } = ctx.services;
  const models = (await listModels({ db, clock, siteId: ctx.site.id }))
    .filter((m) => m.isPublic);
  return {
    ...data,
    models: models.map((m) => ({
      id: m.id,
      slug: m.slug,
      name: m.name,
      fields: m.fields.filter((f) => !f.private).map((f) => f.key),
      starting: startingFields(m),
    })),
    ...extra,
  };
}

/** `title:3, body` -> ranked fields (weight 1 when left out; a bad weight is passed on to be refused). */
function rankedFields(text: string): { field: string; weight: number }[] {
  return text.split(",").map((part) => part.trim()).filter(Boolean).map(
    (part) => {
      const [field, weight] = part.split(":").map((s) => s.trim());
      return { field, weight: weight === undefined ? 1 : Number(weight) };
    },
  );
}

export const handler = documentHandler({
  key: "search",
  path: "/admin/settings/search",
  load: searchData,
  fromForm(form) {
    const chosen = formList(form.type);
    const types = chosen.map((slug) => {
      const matching = String(form[`matching.${slug}`] ?? "whole_words");
      return {
        model: slug,
        fields: rankedFields(String(form[`fields.${slug}`] ?? "")),
        matching: matching as typeof MATCHING_MODES[number],
      };
    });
    return { enabled: form.enabled === "true", types };
  },
});

export default function Search({ data }: PageProps<SearchData>) {
  const doc = data.document;
  const settingOf = (m: SearchData["models"][number]) => {
    const index = doc.types.findIndex((t) =>
      t.model === m.slug || t.model === m.id
    );
    return { index, setting: index >= 0 ? doc.types[index] : undefined };
  };
  return (
    <AdminShell shell={data.shell} title="Site search">
      <DocumentMessages notice={data.notice} alert={data.alert} />
      <form method="post" class="stack">
        <DocumentFormHead
          csrfToken={data.shell.csrfToken}
          revision={data.revision}
        />
        <section class="card">
          <label>
            <input
              type="checkbox"
              name="enabled"
              value="true"
              checked={doc.enabled}
            />{" "}
            Visitors can search the site
          </label>
        </section>
        <section class="card" aria-labelledby="types-heading">
          <h2 id="types-heading">What is searched</h2>
          <p class="muted">
            Pages are always searched. Tick the other public types to search,
            then list their fields with a weight from 1 to 10, such as{" "}
            <code>title:5, summary:2, body</code>{" "}
            (no weight means 1). Left empty, a type searches every public field
            and ranks a title match at 10. Private fields are never searched.
          </p>
          {data.models.map((m) => {
            const { index, setting } = settingOf(m);
            const messages = index >= 0
              ? problemsAt(data.problems, `types.${index}`)
              : [];
            return (
              <fieldset key={m.id}>
                <legend>{m.name}</legend>
                {messages.length > 0 && (
                  <p class="field-error" id={`type-${m.slug}-error`}>
                    {messages.join("; ")}
                  </p>
                )}
                <label>
                  <input
                    type="checkbox"
                    name="type"
                    value={m.slug}
                    checked={setting !== undefined}
                  />{" "}
                  Search {m.name}
                </label>
                <div class="field">
                  <label for={`fields-${m.slug}`}>Fields and weights</label>
                  <input
                    id={`fields-${m.slug}`}
                    name={`fields.${m.slug}`}
                    value={(setting?.fields ?? []).map((f) =>
                      `${f.field}:${f.weight}`
                    ).join(", ")}
                    placeholder={m.starting}
                    aria-invalid={messages.length > 0 ? "true" : undefined}
                    aria-describedby={`fields-${m.slug}-hint`}
                  />
                  <p class="hint" id={`fields-${m.slug}-hint`}>
                    Fields: {m.fields.join(", ") || "none"}
                  </p>
                </div>
                <div class="field">
                  <label for={`matching-${m.slug}`}>Words match as</label>
                  <select id={`matching-${m.slug}`} name={`matching.${m.slug}`}>
                    {MATCHING_MODES.map((mode) => (
                      <option
                        value={mode}
                        selected={(setting?.matching ?? "whole_words") === mode}
                      >
                        {MATCHING_LABELS[mode]}
                      </option>
                    ))}
                  </select>
                </div>
              </fieldset>
            );
          })}
        </section>
        <p class="buttons">
          <button type="submit">Save</button>
        </p>
      </form>
    </AdminShell>
  );
}
