// GET /admin/models: the site's models by folder, with their field counts and open model proposals.
import type { Context } from "hono";
import { mayApplyModels } from "../../../core/admin/model_editor.ts";
import type { ShellData } from "../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import { listModels } from "../../../core/models/model_reads.ts";
import { listModelProposals } from "../../../core/proposals/mod.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { AdminShell, openAdminPage, when } from "../_shell.tsx";
import { scrollRegion } from "../_table.tsx";

export const middleware = requireSignedIn;

interface ModelsData {
  title: string;
  shell: ShellData;
  models: {
    id: string;
    name: string;
    slug: string;
    folder: string | null;
    kind: string;
    fields: number;
    isPublic: boolean;
    updatedAt: string;
  }[];
  proposals: { id: string; note: string; mode: string; stale: boolean }[];
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const { ctx, shell } = await openAdminPage(c, [{ label: "Models" }]);
    if (!mayApplyModels(ctx)) {
      refuse(403, "missing_permission", "Changing models needs model:apply");
    }
    const { db, clock } = ctx.services;
    const models = await listModels({ db, clock, siteId: ctx.site.id });
    const listed = await listModelProposals(
      { db, clock, siteId: ctx.site.id, actor: ctx.actor },
      { state: "open" },
    );
    const data: ModelsData = {
      title: "Models",
      shell,
      models: models.map((m) => ({
        id: m.id,
        name: m.name,
        slug: m.slug,
        folder: m.folder,
        kind: m.kind,
        fields: m.fields.length,
        isPublic: m.isPublic,
        updatedAt: m.updatedAt.toISOString(),
      })),
      proposals: listed.ok
        ? listed.proposals.map((p) => ({
          id: p.id,
          note: p.note,
          mode: p.mode,
          stale: p.stale,
        }))
        : [],
    };
    return page(data);
  },
};

export default function Models({ data }: PageProps<ModelsData>) {
  return (
    <AdminShell shell={data.shell} title="Models">
      {data.proposals.length > 0 && (
        <section class="card" aria-labelledby="model-proposals">
          <h2 id="model-proposals">Open model proposals</h2>
          <ul class="plain">
            {data.proposals.map((p) => (
              <li key={p.id}>
                <a href={`/admin/models/proposals/${p.id}`}>
                  {p.mode === "create" ? "New model" : "Change"}: {p.note ||
                    "(no note)"}
                </a>
                {p.stale && <span class="badge missing">stale</span>}
              </li>
            ))}
          </ul>
          <p class="muted">
            Open one to compare it with the model, see what it would do to
            existing content, and apply or dismiss it.
          </p>
        </section>
      )}
      <section class="card" aria-label="Models">
        <div class="table-wrap" {...scrollRegion("Models table")}>
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Folder</th>
                <th scope="col">Kind</th>
                <th scope="col">Fields</th>
                <th scope="col">Public</th>
                <th scope="col">Changed</th>
              </tr>
            </thead>
            <tbody>
              {data.models.map((m) => (
                <tr key={m.id}>
                  <td>
                    <a href={`/admin/models/${m.id}`}>{m.name}</a>{" "}
                    <span class="muted">{m.slug}</span>
                  </td>
                  <td>{m.folder ?? ""}</td>
                  <td>{m.kind}</td>
                  <td>{m.fields}</td>
                  <td>{m.isPublic ? "Yes" : "No"}</td>
                  <td>{when(m.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </AdminShell>
  );
}
