// GET/POST /admin/content/{model}/{id}/proposals: open proposals with a diff against the entry; apply or dismiss.
import type { Context } from "hono";
import { adminContext } from "../../../../../core/admin/context.ts";
import { loadEditor } from "../../../../../core/admin/editor.ts";
import type { FieldControl } from "../../../../../core/admin/entry_form.ts";
import { refusalMessage } from "../../../../../core/admin/messages.ts";
import { modelBySlug } from "../../../../../core/admin/models.ts";
import type { ShellData } from "../../../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../../../core/auth/session_middleware.ts";
import {
  applyEntryProposal,
  dismissEntryProposal,
  listEntryProposals,
} from "../../../../../core/proposals/mod.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";
import { page, type PageProps } from "../../../../../core/web/manifest.ts";
import { AdminShell, openAdminPage, when } from "../../../_shell.tsx";
import { Diff } from "../_diff.tsx";

export const middleware = requireSignedIn;

interface ProposalView {
  id: string;
  locale: string;
  note: string;
  source: string;
  createdAt: string;
  stale: boolean;
  base: Record<string, unknown>;
  proposed: Record<string, unknown>;
}

interface ProposalsData {
  title: string;
  shell: ShellData;
  base: string;
  controls: FieldControl[];
  proposals: ProposalView[];
  alert?: string;
  notice?: string;
}

async function proposalsData(
  c: Context<AppEnv>,
  extra: Partial<ProposalsData> = {},
): Promise<ProposalsData> {
  const { ctx, shell } = await openAdminPage(c, []);
  const model = await modelBySlug(ctx, c.req.param("model")!);
  const editor = await loadEditor(
    ctx,
    model,
    c.req.param("id")!,
    c.req.query("lang") ?? "",
  );
  const base = `/admin/content/${model.slug}/${editor.groupId}`;
  shell.crumbs.push(
    { label: model.name, href: `/admin/content/${model.slug}` },
    { label: editor.title, href: `${base}?lang=${editor.locale}` },
    { label: "Proposals" },
  );
  const listed = await listEntryProposals(
    {
      db: ctx.services.db,
      clock: ctx.services.clock,
      siteId: ctx.site.id,
      actor: ctx.actor,
    },
    { group_id: editor.groupId, state: "open" },
  );
  const proposals = listed.ok ? listed.proposals : [];
  const { db } = ctx.services;
  const views: ProposalView[] = [];
  for (const p of proposals) {
    const baseRow = await db.selectFrom("entry_versions").select("fields")
      .where("site_id", "=", ctx.site.id).where("id", "=", p.base_version_id)
      .executeTakeFirst();
    const current = await db.selectFrom("entries").select("current_version_id")
      .where("site_id", "=", ctx.site.id).where("id", "=", p.entry_id)
      .executeTakeFirst();
    const baseValues = (baseRow?.fields ?? {}) as Record<string, unknown>;
    views.push({
      id: p.id,
      locale: p.locale,
      note: p.note,
      source: p.source.label,
      createdAt: new Date(p.created_at).toISOString(),
      stale: current?.current_version_id !== p.base_version_id,
      base: Object.fromEntries(
        editor.controls.map((c) => [c.key, baseValues[c.key]]),
      ),
      proposed: Object.fromEntries(
        editor.controls.map((c) => [
          c.key,
          c.key in p.fields ? p.fields[c.key] : baseValues[c.key],
        ]),
      ),
    });
  }
  return {
    title: `Proposals for ${editor.title}`,
    shell,
    base,
    controls: editor.controls,
    proposals: views,
    ...extra,
  };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await proposalsData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    const ctx = await adminContext(c);
    const id = String(form.proposal ?? "");
    const outcome = form.action === "apply"
      ? await applyEntryProposal(ctx.lifecycle, id)
      : await dismissEntryProposal(ctx.lifecycle, id);
    if (!outcome.ok) {
      return page(
        await proposalsData(c, { alert: refusalMessage(outcome.code) }),
        { status: outcome.code === "proposal_stale" ? 409 : 422 },
      );
    }
    if (form.action === "apply") {
      const model = await modelBySlug(ctx, c.req.param("model")!);
      return c.redirect(
        `/admin/content/${model.slug}/${
          c.req.param("id")
        }?lang=${outcome.proposal.locale}&done=applied`,
        303,
      );
    }
    return page(await proposalsData(c, { notice: "Proposal dismissed." }));
  },
};

export default function Proposals({ data }: PageProps<ProposalsData>) {
  return (
    <AdminShell shell={data.shell} title={data.title}>
      {data.alert && <p class="alert" role="alert">{data.alert}</p>}
      {data.notice && <p class="notice" role="status">{data.notice}</p>}
      {data.proposals.length === 0 && (
        <section class="card empty">
          <h2>No open proposals</h2>
          <p>
            Scripts, plugins and AI agents propose changes through the
            Management API; they appear here for you to apply or dismiss.
          </p>
        </section>
      )}
      {data.proposals.map((p) => (
        <section
          class="card"
          key={p.id}
          aria-labelledby={`proposal-${p.id}`}
        >
          <h2 id={`proposal-${p.id}`}>
            From {p.source} · {p.locale} · {when(p.createdAt)}
          </h2>
          {p.note && <p>{p.note}</p>}
          {p.stale && (
            <p class="warning">
              The entry changed after this proposal was made: it can only be
              dismissed.
            </p>
          )}
          <Diff
            controls={data.controls}
            left={p.base}
            right={p.proposed}
            leftLabel="Now"
            rightLabel="Proposed"
            changedOnly
          />
          <form method="post" class="inline">
            <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
            <input type="hidden" name="proposal" value={p.id} />
            {!p.stale && (
              <button type="submit" name="action" value="apply">
                Apply as a new draft
              </button>
            )}
            <button
              type="submit"
              name="action"
              value="dismiss"
              class="secondary"
            >
              Dismiss
            </button>
          </form>
        </section>
      ))}
    </AdminShell>
  );
}
