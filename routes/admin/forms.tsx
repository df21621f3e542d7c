// GET /admin/forms: the site's visitor form submissions, newest first, with their attachments
// (site:infra; FORM-010, FORM-011).
import type { Context } from "hono";
import { requireSignedIn } from "../../core/auth/session_middleware.ts";
import {
  formAttachmentStore,
  listSubmissions,
  type SubmissionDetail,
} from "../../core/forms/mod.ts";
import type { ShellData } from "../../core/admin/shell.ts";
import type { AppEnv } from "../../core/web/env.ts";
import { refuse } from "../../core/web/errors.ts";
import { page, type PageProps } from "../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "./_shell.tsx";

export const middleware = requireSignedIn;

interface FormsData {
  shell: ShellData;
  submissions: SubmissionDetail[];
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const { shell } = await openAdminPage(c, [{ label: "Form submissions" }]);
    const { db, clock } = c.var.services;
    const listed = await listSubmissions({
      db,
      clock,
      siteId: c.var.site.id,
      personId: c.var.user!.id,
      store: formAttachmentStore(c.var.services),
    });
    if (!listed.ok) {
      refuse(
        403,
        "missing_permission",
        "Form submissions need the site:infra permission",
      );
    }
    const data: FormsData = { shell, submissions: listed.data };
    return page(data);
  },
};

function size(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1_048_576
    ? `${Math.round(bytes / 1024)} KiB`
    : `${(bytes / 1_048_576).toFixed(1)} MiB`;
}

export default function FormSubmissions({ data }: PageProps<FormsData>) {
  return (
    <AdminShell shell={data.shell} title="Form submissions">
      <p class="muted">
        What visitors sent through the forms of published pages, newest first.
        Submissions and their files are erased 180 days after they arrive.
      </p>
      {data.submissions.length === 0
        ? <p class="card">No submissions yet.</p>
        : data.submissions.map((s) => (
          <article class="card form-submission" key={s.id}>
            <h2>
              {s.page_title ?? "Page"}{" "}
              <span class="muted">
                ({s.locale}, form “{s.section}”)
              </span>
            </h2>
            <p class="muted">
              Received{" "}
              <time datetime={s.received_at}>
                {s.received_at.slice(0, 16).replace("T", " ")} UTC
              </time>
              {s.consent ? " · consent given" : ""}
            </p>
            <dl>
              {Object.entries(s.values).map(([name, value]) => (
                <div key={name}>
                  <dt>{name}</dt>
                  <dd>
                    {typeof value === "boolean"
                      ? (value ? "Yes" : "No")
                      : String(value)}
                  </dd>
                </div>
              ))}
              {Object.entries(s.attachments).map(([name, files]) => (
                <div key={`files-${name}`}>
                  <dt>{name}</dt>
                  <dd>
                    <ul>
                      {files.map((f) => (
                        <li key={f.id}>
                          <a
                            href={`/api/forms/submissions/${s.id}/attachments/${f.id}`}
                          >
                            {f.name}
                          </a>{" "}
                          <span class="muted">({f.type}, {size(f.size)})</span>
                        </li>
                      ))}
                    </ul>
                  </dd>
                </div>
              ))}
            </dl>
          </article>
        ))}
    </AdminShell>
  );
}
