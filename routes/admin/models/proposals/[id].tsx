// GET/POST /admin/models/proposals/{id}: one model proposal beside the model it changes, what it
// would do to existing content, and apply or dismiss (the proposals service decides).
import type { Context } from "hono";
import {
  assessForm,
  mayApplyModels,
} from "../../../../core/admin/model_editor.ts";
import {
  type FieldDiff,
  fieldDiff,
  type InfoDiff,
  infoDiff,
} from "../../../../core/admin/model_proposal_diff.ts";
import type { ShellData } from "../../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import { entryContentFacts } from "../../../../core/manage/content_facts.ts";
import type { ModelChange } from "../../../../core/models/mod.ts";
import { getModel } from "../../../../core/models/model_reads.ts";
import type { StoredModel } from "../../../../core/models/store_rows.ts";
import type { ProposalSource } from "../../../../core/proposals/types.ts";
import {
  applyModelProposal,
  dismissModelProposal,
} from "../../../../core/proposals/mod.ts";
import {
  readModelProposal,
  readModelProposalRow,
} from "../../../../core/proposals/model_proposal_rows.ts";
import { reindexModel } from "../../../../core/search/index_documents.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";
import { page, type PageProps } from "../../../../core/web/manifest.ts";
import { AdminShell, openAdminPage, when } from "../../_shell.tsx";
import { scrollRegion } from "../../_table.tsx";

export const middleware = requireSignedIn;

interface ProposalData {
  title: string;
  shell: ShellData;
  id: string;
  mode: "create" | "update";
  state: string;
  stale: boolean;
  note: string;
  source: string;
  createdAt: string;
  modelId: string | null;
  modelName: string | null;
  fields: FieldDiff[];
  info: InfoDiff[];
  /** What applying would do to existing content (update proposals). */
  changes: ModelChange[];
  problems: { path: string; message: string }[];
  alert?: string;
  notice?: string;
}

const SOURCE_KINDS: Record<string, string> = {
  management: "Script or AI agent",
  plugin: "Plugin",
  ai: "AI job",
  person: "Person",
};

function sourceOf(source: ProposalSource): string {
  const kind = SOURCE_KINDS[source.kind] ?? source.kind;
  const by = source.kind === "plugin"
    ? ` for ${source.requested_by.email}`
    : "";
  return `${kind}: ${source.label}${by}`;
}

async function proposalData(
  c: Context<AppEnv>,
  extra: Partial<ProposalData> = {},
): Promise<ProposalData> {
  const id = c.req.param("id")!;
  const { ctx, shell } = await openAdminPage(c, [
    { label: "Models", href: "/admin/models" },
    { label: "Model proposal" },
  ]);
  if (!mayApplyModels(ctx)) {
    refuse(403, "missing_permission", "Reviewing models needs model:apply");
  }
  const { db, clock } = ctx.services;
  const row = await readModelProposalRow(db, ctx.site.id, id);
  if (!row) refuse(404, "not_found", "No such model proposal");
  const proposal = await readModelProposal(db, ctx.site.id, row.id);
  let model: StoredModel | null = null;
  if (proposal.model_id) {
    const found = await getModel(
      { db, clock, siteId: ctx.site.id },
      proposal.model_id,
    );
    if (found.ok) model = found.model;
  }
  const before = model
    ? {
      model: {
        name: model.name,
        slug: model.slug,
        description: model.description,
        kind: model.kind,
        isPublic: model.isPublic,
        enableI18n: model.enableI18n,
        settings: model.settings,
      },
      fields: model.fields,
    }
    : null;
  let changes: ModelChange[] = [];
  let problems: { path: string; message: string }[] = [];
  if (model && proposal.state === "open" && !proposal.stale) {
    const assessed = await assessForm(ctx, model, proposal.definition as never);
    if (assessed.ok) changes = assessed.changes;
    else problems = assessed.problems;
  }
  return {
    title: proposal.mode === "create"
      ? `Proposed model: ${proposal.definition.model.name}`
      : `Proposed change to ${model?.name ?? "a removed model"}`,
    shell,
    id: proposal.id,
    mode: proposal.mode,
    state: proposal.state,
    stale: proposal.stale,
    note: proposal.note,
    source: sourceOf(proposal.source),
    createdAt: proposal.created_at.toISOString(),
    modelId: model?.id ?? null,
    modelName: model?.name ?? null,
    fields: fieldDiff(before, proposal.definition),
    info: infoDiff(before, proposal.definition),
    changes,
    problems,
    notice: c.req.query("done") === "dismissed"
      ? "Dismissed."
      : c.req.query("done") === "applied"
      ? "Applied: the model is saved."
      : undefined,
    ...extra,
  };
}

const REFUSALS: Record<string, string> = {
  schema_proposal_stale:
    "The model changed after this proposal was made: it can only be dismissed",
  proposal_not_open: "Someone decided this proposal already",
  model_change_blocked:
    "Existing content cannot survive this change: see what it would do below",
  private_field_on_public_route:
    "A saved query on a public route would serve a field this proposal makes private",
  model_slug_taken: "Another model has the proposed slug",
  model_name_collision: "Another model has the proposed name",
  missing_permission: "Your role may not change models",
};

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await proposalData(c));
  },

  async POST(c: Context<AppEnv>) {
    const id = c.req.param("id")!;
    const form = await c.req.parseBody();
    const { ctx } = await openAdminPage(c, []);
    if (!mayApplyModels(ctx)) {
      refuse(403, "missing_permission", "Reviewing models needs model:apply");
    }
    const { db, clock } = ctx.services;
    const base = { db, clock, siteId: ctx.site.id, actor: ctx.actor };
    if (form.action === "dismiss") {
      const dismissed = await dismissModelProposal(base, id);
      if (!dismissed.ok) {
        return page(
          await proposalData(c, {
            alert: REFUSALS[dismissed.code] ?? `Refused: ${dismissed.code}`,
          }),
          { status: dismissed.code === "not_found" ? 404 : 409 },
        );
      }
      return c.redirect(`/admin/models/proposals/${id}?done=dismissed`, 303);
    }
    const applied = await applyModelProposal(
      {
        ...base,
        facts: (tx, m) => entryContentFacts(tx, ctx.site.id, m),
      },
      id,
      {
        onApplied: (tx, saved) => reindexModel(tx, ctx.site.id, saved.model_id),
      },
    );
    if (!applied.ok) {
      return page(
        await proposalData(c, {
          alert: REFUSALS[applied.code] ?? `Refused: ${applied.code}`,
        }),
        { status: applied.code === "not_found" ? 404 : 409 },
      );
    }
    return c.redirect(`/admin/models/proposals/${id}?done=applied`, 303);
  },
};

const STATUS_LABELS: Record<FieldDiff["status"], string> = {
  added: "added",
  removed: "removed",
  changed: "changed",
  same: "unchanged",
};

export default function ModelProposalPage({ data }: PageProps<ProposalData>) {
  const open = data.state === "open";
  const blocked = data.changes.length > 0 || data.problems.length > 0;
  return (
    <AdminShell shell={data.shell} title={data.title}>
      {data.notice && <p class="notice" role="status">{data.notice}</p>}
      {data.alert && <p class="alert" role="alert">{data.alert}</p>}
      <section class="card" aria-labelledby="about-heading">
        <h2 id="about-heading">About this proposal</h2>
        <dl class="facts">
          <dt>State</dt>
          <dd>
            {data.state}
            {data.stale && open && (
              <span class="badge missing">stale: the model changed since</span>
            )}
          </dd>
          <dt>Proposed by</dt>
          <dd>{data.source}, {when(data.createdAt)}</dd>
          <dt>Note</dt>
          <dd>{data.note || "(no note)"}</dd>
          {data.modelId && (
            <>
              <dt>Model</dt>
              <dd>
                <a href={`/admin/models/${data.modelId}`}>{data.modelName}</a>
              </dd>
            </>
          )}
        </dl>
      </section>
      {data.info.length > 0 && (
        <section class="card" aria-labelledby="info-heading">
          <h2 id="info-heading">The model</h2>
          <div class="table-wrap" {...scrollRegion("The model table")}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Setting</th>
                  <th scope="col">Now</th>
                  <th scope="col">Proposed</th>
                </tr>
              </thead>
              <tbody>
                {data.info.map((i) => (
                  <tr key={i.name}>
                    <th scope="row">{i.name}</th>
                    <td>
                      <code>{i.before}</code>
                    </td>
                    <td>
                      <code>{i.after}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      <section class="card" aria-labelledby="fields-heading">
        <h2 id="fields-heading">Fields</h2>
        <div class="table-wrap" {...scrollRegion("Fields table")}>
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Change</th>
                <th scope="col">Now</th>
                <th scope="col">Proposed</th>
              </tr>
            </thead>
            <tbody>
              {data.fields.map((f) => (
                <tr key={f.key} class={`diff-${f.status}`}>
                  <th scope="row">
                    <code>{f.key}</code>
                  </th>
                  <td>
                    <span
                      class={`badge ${f.status === "same" ? "" : "changed"}`}
                    >
                      {STATUS_LABELS[f.status]}
                    </span>
                  </td>
                  <td>{f.before ?? "—"}</td>
                  <td>{f.after ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {open && !data.stale && data.mode === "update" && (
        <section class="card" aria-labelledby="safety-heading">
          <h2 id="safety-heading">What applying would do</h2>
          {data.problems.length > 0 && (
            <ul class="alert">
              {data.problems.map((p, i) => (
                <li key={i}>
                  <code>{p.path}</code>: {p.message}
                </li>
              ))}
            </ul>
          )}
          {data.changes.length > 0
            ? (
              <ul>
                {data.changes.map((ch, i) => (
                  <li key={i}>
                    <strong>{ch.field ?? "Model"}</strong>: {ch.message}{" "}
                    ({ch.affected_count} affected). {ch.suggestion}
                  </li>
                ))}
              </ul>
            )
            : data.problems.length === 0 && (
              <p class="notice">Existing content is not affected.</p>
            )}
        </section>
      )}
      {open && (
        <section class="card" aria-labelledby="decide-heading">
          <h2 id="decide-heading">Decide</h2>
          <div class="buttons">
            {!data.stale && !blocked && (
              <form method="post" class="inline">
                <input
                  type="hidden"
                  name="_csrf"
                  value={data.shell.csrfToken}
                />
                <input type="hidden" name="action" value="apply" />
                <button type="submit">Apply</button>
              </form>
            )}
            <form method="post" class="inline">
              <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
              <input type="hidden" name="action" value="dismiss" />
              <button type="submit" class="secondary">Dismiss</button>
            </form>
          </div>
        </section>
      )}
    </AdminShell>
  );
}
