// GET/POST /admin/models/{id}: fields added, edited, reordered and removed; change-safety warnings shown before saving.
import type { Context } from "hono";
import {
  ADDABLE_TYPES,
  assessForm,
  definitionFromForm,
  mayApplyModels,
  saveDefinition,
  type WireDefinition,
  wireDefinition,
} from "../../../core/admin/model_editor.ts";
import type { ShellData } from "../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import type { ModelChange } from "../../../core/models/mod.ts";
import { getModel, listModels } from "../../../core/models/model_reads.ts";
import { listModelProposals } from "../../../core/proposals/mod.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../_shell.tsx";
import { scrollRegion } from "../_table.tsx";
import {
  FieldSettings,
  NewFieldSettings,
  type TargetModel,
} from "./_field_settings.tsx";

export const middleware = requireSignedIn;

interface ModelEditorData {
  title: string;
  shell: ShellData;
  modelId: string;
  slug: string;
  revision: number;
  definition: WireDefinition;
  /** The site's models, which a relation field may link to. */
  targets: TargetModel[];
  /** Set after "Review changes": what saving would do to existing content. */
  review?: { changes: ModelChange[]; form: [string, string][] };
  /** Open proposals that change this model. */
  proposals: { id: string; note: string; stale: boolean }[];
  problems?: { path: string; message: string }[];
  alert?: string;
  notice?: string;
}

async function openProposals(
  ctx: Awaited<ReturnType<typeof openAdminPage>>["ctx"],
  modelId: string,
): Promise<ModelEditorData["proposals"]> {
  const { db, clock } = ctx.services;
  const listed = await listModelProposals(
    { db, clock, siteId: ctx.site.id, actor: ctx.actor },
    { state: "open" },
  );
  return listed.ok
    ? listed.proposals.filter((p) => p.model_id === modelId).map((p) => ({
      id: p.id,
      note: p.note,
      stale: p.stale,
    }))
    : [];
}

async function load(c: Context<AppEnv>) {
  const { ctx, shell } = await openAdminPage(c, [
    { label: "Models", href: "/admin/models" },
  ]);
  if (!mayApplyModels(ctx)) {
    refuse(403, "missing_permission", "Changing models needs model:apply");
  }
  const { db, clock } = ctx.services;
  const found = await getModel(
    { db, clock, siteId: ctx.site.id },
    c.req.param("id")!,
  );
  if (!found.ok) refuse(404, "not_found", "No such model on this site");
  shell.crumbs.push({ label: found.model.name });
  return { ctx, shell, model: found.model };
}

async function targetModels(
  ctx: Awaited<ReturnType<typeof openAdminPage>>["ctx"],
): Promise<TargetModel[]> {
  const { db, clock } = ctx.services;
  return (await listModels({ db, clock, siteId: ctx.site.id })).map((m) => ({
    id: m.id,
    name: m.name,
  }));
}

function formPairs(form: Record<string, unknown>): [string, string][] {
  return Object.entries(form).flatMap(([k, v]) =>
    k === "_csrf" || k === "step"
      ? []
      : (Array.isArray(v) ? v : [v]).flatMap((item) =>
        typeof item === "string" ? [[k, item] as [string, string]] : []
      )
  );
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const { ctx, shell, model } = await load(c);
    const data: ModelEditorData = {
      proposals: await openProposals(ctx, model.id),
      title: `Model: ${model.name}`,
      shell,
      modelId: model.id,
      slug: model.slug,
      revision: model.revision,
      definition: wireDefinition(model),
      targets: await targetModels(ctx),
      notice: c.req.query("done") === "saved" ? "Model saved." : undefined,
    };
    return page(data);
  },

  async POST(c: Context<AppEnv>) {
    const { ctx, shell, model } = await load(c);
    const form = await c.req.parseBody({ all: true });
    const definition = definitionFromForm(model, form);
    const base: ModelEditorData = {
      proposals: await openProposals(ctx, model.id),
      title: `Model: ${model.name}`,
      shell,
      modelId: model.id,
      slug: model.slug,
      revision: Number(form.revision ?? model.revision),
      definition,
      targets: await targetModels(ctx),
    };
    const assessed = await assessForm(ctx, model, definition);
    if (!assessed.ok) {
      return page({
        ...base,
        problems: assessed.problems,
        alert: "The model cannot be saved like this: see the problems below",
      }, { status: 400 });
    }
    if (form.step !== "save") {
      return page({
        ...base,
        review: { changes: assessed.changes, form: formPairs(form) },
      });
    }
    const saved = await saveDefinition(ctx, model, definition, base.revision);
    if (saved.ok) {
      return c.redirect(`/admin/models/${model.id}?done=saved`, 303);
    }
    const message = saved.code === "model_changed"
      ? "Someone changed this model after you opened it: reload and make your change again"
      : saved.code === "model_change_blocked"
      ? "Existing content cannot survive this change: see below"
      : saved.code === "private_field_on_public_route"
      ? `A saved query on a public route would serve a private field: ${
        saved.saved_queries.map((q) => `${q.name} (${q.fields.join(", ")})`)
          .join("; ")
      }. Change the query's route in Settings → Backend access first`
      : `Refused: ${saved.code}`;
    return page({
      ...base,
      alert: message,
      review: "changes" in saved
        ? { changes: saved.changes, form: formPairs(form) }
        : undefined,
      problems: "problems" in saved
        ? saved.problems.map((p) => ({ path: p.path, message: p.message }))
        : undefined,
    }, { status: saved.code === "model_changed" ? 409 : 422 });
  },
};

function Review({ data }: { data: ModelEditorData }) {
  if (!data.review) return null;
  const blocked = data.review.changes.length > 0;
  return (
    <section class="card" aria-labelledby="review-heading">
      <h2 id="review-heading">Before saving</h2>
      {blocked
        ? (
          <>
            <p class="warning" role="alert">
              Existing content cannot survive this change as it is:
            </p>
            <ul>
              {data.review.changes.map((ch, i) => (
                <li key={i}>
                  <strong>{ch.field ?? "Model"}</strong>: {ch.message}{" "}
                  ({ch.affected_count} affected). {ch.suggestion}
                </li>
              ))}
            </ul>
          </>
        )
        : (
          <p class="notice">
            Existing content is not affected by this change.
          </p>
        )}
      <form method="post" class="inline">
        <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
        {data.review.form.map(([k, v], i) => (
          <input key={i} type="hidden" name={k} value={v} />
        ))}
        <input type="hidden" name="step" value="save" />
        {!blocked && <button type="submit">Save the model</button>}
        <a class="button secondary" href={`/admin/models/${data.modelId}`}>
          Start over
        </a>
      </form>
    </section>
  );
}

export default function ModelEditor({ data }: PageProps<ModelEditorData>) {
  const fields = data.definition.fields;
  return (
    <AdminShell
      shell={data.shell}
      title={data.title}
      actions={
        <a
          class="button secondary"
          href={`/admin/models/${data.modelId}/order`}
        >
          Order entries
        </a>
      }
    >
      {data.notice && <p class="notice" role="status">{data.notice}</p>}
      {data.alert && <p class="alert" role="alert">{data.alert}</p>}
      {data.problems && (
        <ul class="alert">
          {data.problems.map((p, i) => (
            <li key={i}>
              <code>{p.path}</code>: {p.message}
            </li>
          ))}
        </ul>
      )}
      {data.proposals.length > 0 && (
        <section class="card" aria-labelledby="proposals-heading">
          <h2 id="proposals-heading">Open proposals for this model</h2>
          <ul class="plain">
            {data.proposals.map((p) => (
              <li key={p.id}>
                <a href={`/admin/models/proposals/${p.id}`}>
                  {p.note || "(no note)"}
                </a>
                {p.stale && <span class="badge missing">stale</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      <Review data={data} />
      <form method="post" class="card" aria-label="Fields">
        <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
        <input type="hidden" name="revision" value={String(data.revision)} />
        <h2>Fields</h2>
        <div class="table-wrap" {...scrollRegion("Fields table")}>
          <table>
            <thead>
              <tr>
                <th scope="col">Position</th>
                <th scope="col">Label</th>
                <th scope="col">Key and type</th>
                <th scope="col">Required</th>
                <th scope="col">Per language</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {fields.filter((f) => f.id).map((f, i) => {
                const id = String(f.id);
                return (
                  <tr key={id}>
                    <td>
                      <input
                        name={`position.${id}`}
                        type="number"
                        min={1}
                        value={String(i + 1)}
                        aria-label={`Position of ${f.label}`}
                        style="width: 5rem"
                      />
                    </td>
                    <td>
                      <input
                        name={`label.${id}`}
                        value={String(f.label)}
                        aria-label={`Label of ${f.key}`}
                      />
                      <details>
                        <summary>Settings of {String(f.key)}</summary>
                        <FieldSettings
                          id={id}
                          fieldKey={String(f.key)}
                          type={String(f.type)}
                          config={String(f.config ?? "{}")}
                          validation={String(f.validation ?? "{}")}
                          models={data.targets}
                        />
                      </details>
                    </td>
                    <td>
                      <code>{String(f.key)}</code>{" "}
                      <span class="muted">{String(f.type)}</span>
                    </td>
                    <td>
                      <input
                        type="checkbox"
                        name={`required.${id}`}
                        checked={f.required === true}
                        aria-label={`${f.label} is required`}
                      />
                    </td>
                    <td>
                      <input
                        type="checkbox"
                        name={`localized.${id}`}
                        checked={f.localized === true}
                        aria-label={`${f.label} has a value per language`}
                      />
                    </td>
                    <td>
                      <input
                        type="checkbox"
                        name={`remove.${id}`}
                        aria-label={`Remove ${f.label}`}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <fieldset>
          <legend>Add a field</legend>
          <div class="filters">
            <p>
              <label for="new-label">Label</label>
              <input id="new-label" name="new.label" />
            </p>
            <p>
              <label for="new-key">Key</label>
              <input
                id="new-key"
                name="new.key"
                aria-describedby="new-key-hint"
              />
            </p>
            <p>
              <label for="new-type">Type</label>
              <select id="new-type" name="new.type">
                {ADDABLE_TYPES.map((t) => <option key={t} value={t}>{t}
                </option>)}
              </select>
            </p>
          </div>
          <p class="hint muted" id="new-key-hint">
            Keys are lower-case letters, digits and _, starting with a letter. A
            select field needs its choices, a relation the models it links to:
            set them below.
          </p>
          <NewFieldSettings models={data.targets} />
          <label class="check">
            <input type="checkbox" name="new.required" /> Required
          </label>
          <label class="check">
            <input type="checkbox" name="new.localized" /> Per language
          </label>
        </fieldset>
        <p class="buttons">
          <button type="submit" name="step" value="review">
            Review changes
          </button>
        </p>
      </form>
    </AdminShell>
  );
}
