// GET/POST /admin/site/templates: Settings → Templates. Upload a template file, read each
// candidate's report and section diff, open previews, accept one or use the built-in template
// (site:infra to read, site:deploy to upload and accept). Forms work without JavaScript.
import type { Context } from "hono";
import { requireSignedIn } from "../../../../core/auth/session_middleware.ts";
import type { ShellData } from "../../../../core/admin/shell.ts";
import {
  acceptCandidate,
  currentAcceptance,
  readReport,
  type SectionDiff,
  sectionDiff,
} from "../../../../core/templates/accept.ts";
import { refusalText } from "../../../../core/templates/admin_text.ts";
import type { ReportCheck } from "../../../../core/templates/build_client.ts";
import {
  type Candidate,
  listCandidates,
  storeCandidate,
} from "../../../../core/templates/candidates.ts";
import { FIXTURE_NAMES } from "../../../../core/templates/fixtures.ts";
import {
  type BuiltInUsed,
  useBuiltInTemplate,
} from "../../../../core/templates/builtin.ts";
import { templateContext } from "../../../../core/templates/http.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { HttpError } from "../../../../core/web/errors.ts";
import {
  page,
  type PageProps,
  type RouteConfig,
} from "../../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../../_shell.tsx";

export const middleware = requireSignedIn;
/** A template file is at most 4 MiB of source plus its manifest. */
export const config: RouteConfig = { bodyLimit: 6 * 1024 * 1024 };

const HERE = "/admin/site/templates";

interface Row {
  candidate: Candidate;
  checks: ReportCheck[];
  diff: SectionDiff[];
  accepted: boolean;
}

interface TemplatesData {
  title: string;
  shell: ShellData;
  csrfToken: string;
  rows: Row[];
  acceptance: number;
  pages: { id: string; title: string; locale: string }[];
  /** The failed report of an upload, shown until the next one. */
  failed?: ReportCheck[];
  error?: string;
  notice?: string;
}

/** What "Use built-in template" did, in words: accepted, and released or why not. */
function builtInNotice(used: BuiltInUsed): string {
  const accepted = "The built-in template is accepted.";
  if (used.release) {
    return `${accepted} Release ${used.release.number} of it is active at ${used.release.origin}.`;
  }
  if (used.release_refused) {
    return `${accepted} It was not released: ${
      refusalText(used.release_refused)
    }.`;
  }
  if (used.missing.includes("address")) {
    return `${accepted} It was not released: the site has no address yet. Check one under Site delivery.`;
  }
  return `${accepted} It was not released: delivery needs ${
    used.missing.join(", ")
  }.`;
}

const FIXTURE_LABELS: Record<string, string> = {
  ordinary: "Ordinary page",
  long: "Long page",
  sparse: "Sparse page",
  no_images: "Page without images",
  error: "Error page",
};

async function pageData(
  c: Context<AppEnv>,
  extra: Partial<TemplatesData> = {},
): Promise<TemplatesData> {
  const ctx = await templateContext(c, ["site:infra"]);
  const { shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: "Templates" },
  ]);
  const acceptance = await currentAcceptance(ctx);
  const rows: Row[] = [];
  for (const candidate of await listCandidates(ctx)) {
    const report = await readReport(ctx, candidate.id);
    const diff = await sectionDiff(ctx, candidate.id);
    rows.push({
      candidate,
      checks: report?.checks ?? [],
      diff: diff.ok ? diff.data : [],
      accepted: acceptance.candidate_id === candidate.id,
    });
  }
  const pages = await ctx.db.selectFrom("entries as e")
    .innerJoin("models as m", (j) =>
      j.onRef("m.site_id", "=", "e.site_id").on(
        (eb) => eb(eb.cast("m.id", "text"), "=", eb.ref("e.model_id")),
      ))
    .select(["e.group_id", "e.locale", "e.list_title"])
    .where("e.site_id", "=", ctx.siteId).where("m.slug", "=", "pages")
    .where("e.current_version_id", "is not", null)
    .orderBy("e.list_title").limit(100).execute();
  return {
    title: "Templates",
    shell,
    csrfToken: c.var.csrfToken,
    rows,
    acceptance: acceptance.sequence,
    pages: pages.map((p) => ({
      id: p.group_id,
      title: p.list_title || "(untitled)",
      locale: p.locale,
    })),
    ...extra,
  };
}

async function refused(
  c: Context<AppEnv>,
  status: number,
  refusal: { code: string; detail?: string },
) {
  const failed = ((refusal as { report?: unknown }).report as
    | { checks?: ReportCheck[] }
    | undefined)
    ?.checks;
  return page(await pageData(c, { error: refusalText(refusal), failed }), {
    status,
  });
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await pageData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    try {
      const ctx = await templateContext(c, ["site:deploy"]);
      if (form.action === "use_builtin") {
        const used = await useBuiltInTemplate(ctx, {
          observed: Number(form.observed ?? -1),
        });
        // The page names what is missing; the API's 503s are for scripts that retry.
        if (!used.ok) return await refused(c, 409, used);
        return page(await pageData(c, { notice: builtInNotice(used) }));
      }
      if (form.action === "accept") {
        const accepted = await acceptCandidate(ctx, {
          candidateId: String(form.candidate ?? ""),
          observed: Number(form.observed ?? -1),
        });
        if (!accepted.ok) {
          return await refused(
            c,
            accepted.code === "not_found" ? 404 : 409,
            accepted,
          );
        }
        return c.redirect(`${HERE}?accepted=${accepted.sequence}`, 303);
      }
      const file = form.file;
      if (!(file instanceof File) || file.size === 0) {
        return await refused(c, 400, {
          code: "invalid_template_manifest",
          detail: "Choose a template file (JSON with manifest and source)",
        });
      }
      let upload: { manifest?: unknown; source?: unknown };
      try {
        upload = JSON.parse(await file.text());
      } catch {
        return await refused(c, 400, {
          code: "invalid_template_manifest",
          detail: "The file is not JSON",
        });
      }
      const source = upload?.source;
      if (
        typeof source !== "object" || source === null ||
        Object.values(source).some((v) => typeof v !== "string")
      ) {
        return await refused(c, 400, {
          code: "template_source_refused",
          detail: "source must map file paths to text",
        });
      }
      const stored = await storeCandidate(ctx, {
        manifest: upload.manifest,
        source: source as Record<string, string>,
        origin: "upload",
      });
      if (!stored.ok) {
        // The page names missing settings; the API's 503 is for scripts that retry.
        const status = stored.code === "template_operation_unavailable"
          ? 409
          : stored.code === "template_checks_failed"
          ? 422
          : 400;
        return await refused(c, status, stored);
      }
      return c.redirect(`${HERE}?stored=${stored.candidate.id}`, 303);
    } catch (e) {
      if (e instanceof HttpError && e.code === "missing_permission") {
        return page(
          await pageData(c, {
            error:
              "missing_permission: uploading and accepting need site:deploy",
          }),
          { status: 403 },
        );
      }
      throw e;
    }
  },
};

function when(iso: string): string {
  return iso.slice(0, 16).replace("T", " ");
}

function Checks({ checks }: { checks: ReportCheck[] }) {
  return (
    <ul class="plain">
      {checks.map((check) => (
        <li key={check.name}>
          <span
            class={check.status === "passed"
              ? "badge result-ok"
              : check.status === "failed"
              ? "badge result-refused"
              : "badge"}
          >
            {check.status}
          </span>{" "}
          {check.name.replace("_", " ")}
          {check.status === "failed" && check.detail.length > 0 && (
            <pre class="json-block">{check.detail.join("\n")}</pre>
          )}
        </li>
      ))}
    </ul>
  );
}

export default function TemplatesPage({ data, url }: PageProps<TemplatesData>) {
  const stored = url.searchParams.get("stored");
  const accepted = url.searchParams.get("accepted");
  return (
    <AdminShell shell={data.shell} title="Templates">
      {data.error && <p role="alert" class="alert">{data.error}</p>}
      {data.notice && <p role="status" class="notice">{data.notice}</p>}
      {stored && !data.error && (
        <p role="status" class="notice">
          The template passed every check and is stored as a candidate.
        </p>
      )}
      {accepted && !data.error && (
        <p role="status" class="notice">
          Accepted. Nothing is deployed until you release it under{" "}
          <a href="/admin/site/delivery">Site delivery</a>.
        </p>
      )}
      {data.failed && (
        <section class="card">
          <h2>Report of the refused upload</h2>
          <Checks checks={data.failed} />
        </section>
      )}
      <p>
        Accepted templates reach visitors through a release:{" "}
        <a href="/admin/site/delivery">Site delivery</a>.
      </p>
      <section class="card">
        <h2>Built-in template</h2>
        <p class="muted">
          The template this service ships with, checked like any upload. Using
          it accepts a copy of it and, when delivery is set up and the site has
          an address, releases it there at once.
        </p>
        <form method="post">
          <input type="hidden" name="_csrf" value={data.csrfToken} />
          <input type="hidden" name="action" value="use_builtin" />
          <input type="hidden" name="observed" value={data.acceptance} />
          <button type="submit">Use built-in template</button>
        </form>
      </section>
      <section class="card">
        <h2>Upload a template</h2>
        <p class="muted">
          A template file is JSON holding the manifest and the source files. It
          is checked, installed offline, type-checked, built, drawn against the
          sample pages and checked for accessibility at phone and desktop
          widths; only a template that passes everything is stored. See the
          templates guide in the documentation.
        </p>
        <form method="post" enctype="multipart/form-data">
          <input type="hidden" name="_csrf" value={data.csrfToken} />
          <input type="hidden" name="action" value="upload" />
          <p>
            <label for="template-file">Template file</label>
            <input
              id="template-file"
              name="file"
              type="file"
              accept="application/json,.json"
              required
            />
          </p>
          <button type="submit">Upload and check</button>
        </form>
      </section>
      <section class="card">
        <h2>Candidates</h2>
        {data.rows.length === 0 && <p class="muted">None yet.</p>}
        {data.rows.map(({ candidate, checks, diff, accepted }) => (
          <article key={candidate.id} class="stack">
            <h3>
              {candidate.name}
              {accepted && (
                <>
                  {" "}
                  <span class="badge result-ok">accepted</span>
                </>
              )}
            </h3>
            <p class="muted">
              {candidate.origin === "builtin" ? "Built in, copied" : "Uploaded"}
              {" "}
              {when(candidate.created_at)} · page contract {candidate.contract}
              {" "}
              · {candidate.regions.length}{" "}
              {candidate.regions.length === 1 ? "region" : "regions"} ·{" "}
              <code>{candidate.digest.slice(0, 12)}</code>
            </p>
            <details>
              <summary>Report</summary>
              <Checks checks={checks} />
            </details>
            {diff.length > 0 && (
              <>
                <h4>Registered sections</h4>
                <ul class="plain">
                  {diff.map((d) => (
                    <li key={d.key}>
                      <code>{d.key}</code>: version {d.version}, {d.change}
                      {d.reasons.length > 0 && ` (${d.reasons.join("; ")})`}
                      {d.pages_on_older > 0 &&
                        `; ${d.pages_on_older} pages pin an older version`}
                    </li>
                  ))}
                </ul>
              </>
            )}
            <form
              method="get"
              action={`${HERE}/preview`}
              target="_blank"
              class="inline"
            >
              <input type="hidden" name="candidate" value={candidate.id} />
              <label for={`preview-${candidate.id}`}>Preview with</label>{" "}
              <select id={`preview-${candidate.id}`} name="with">
                <optgroup label="Sample pages">
                  {FIXTURE_NAMES.map((f) => (
                    <option key={f} value={`fixture:${f}`}>
                      {FIXTURE_LABELS[f]}
                    </option>
                  ))}
                </optgroup>
                {data.pages.length > 0 && (
                  <optgroup label="Saved pages">
                    {data.pages.map((p) => (
                      <option
                        key={`${p.id}-${p.locale}`}
                        value={`page:${p.id}:${p.locale}`}
                      >
                        {p.title} ({p.locale})
                      </option>
                    ))}
                  </optgroup>
                )}
              </select>{" "}
              <button type="submit" class="secondary">Open preview</button>
            </form>{" "}
            {!accepted && (
              <form method="post" class="inline">
                <input type="hidden" name="_csrf" value={data.csrfToken} />
                <input type="hidden" name="action" value="accept" />
                <input type="hidden" name="candidate" value={candidate.id} />
                <input type="hidden" name="observed" value={data.acceptance} />
                <button type="submit" aria-label={`Accept ${candidate.name}`}>
                  Accept
                </button>
              </form>
            )}
          </article>
        ))}
      </section>
    </AdminShell>
  );
}
