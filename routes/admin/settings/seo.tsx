// GET/POST /admin/settings/seo: page titles, the default description, robots, and redirects with
// the redirect review's findings (the `seo` settings document).
import type { Context } from "hono";
import { adminContext } from "../../../core/admin/context.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import {
  type RedirectFinding,
  reviewRedirects,
} from "../../../core/chrome/redirect_review.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { AdminShell } from "../_shell.tsx";
import { formList } from "../../../core/admin/form_values.ts";
import {
  type DocumentData,
  DocumentFormHead,
  DocumentMessages,
  FieldProblem,
  openDocumentPage,
  problemsAt,
  requireSettingsWrite,
  saveAndAnswer,
} from "./_document.tsx";
import { scrollRegion } from "../_table.tsx";

export const middleware = requireSignedIn;

interface SeoData extends DocumentData<"seo"> {
  findings: RedirectFinding[];
}

/** Empty rows offered below the redirects for new ones. */
const BLANK_ROWS = 3;
const STATUSES = [301, 302, 307, 308, 410, 451] as const;

async function seoData(
  c: Context<AppEnv>,
  extra: Partial<SeoData> = {},
): Promise<SeoData> {
  const { data } = await openDocumentPage(c, "seo", "SEO and redirects");
  const document = extra.document ?? data.document;
  return {
    ...data,
    findings: reviewRedirects(document.redirects),
    ...extra,
  };
}

type Redirect = SeoData["document"]["redirects"][number];

/** The redirect rows of the form; a row with neither `from` nor `to`, or ticked to remove, is left out. */
function redirectsOf(form: Record<string, unknown>): Redirect[] {
  const from = formList(form["r.from"]);
  const match = formList(form["r.match"]);
  const status = formList(form["r.status"]);
  const to = formList(form["r.to"]);
  const removed = new Set(formList(form["r.remove"]));
  const rows: Redirect[] = [];
  from.forEach((path, i) => {
    const target = (to[i] ?? "").trim();
    if (removed.has(String(i)) || (path.trim() === "" && target === "")) {
      return;
    }
    rows.push({
      from: path.trim(),
      match: match[i] === "pattern" ? "pattern" : "exact",
      status: Number(status[i]) as Redirect["status"],
      to: target === "" ? null : target,
    });
  });
  return rows;
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await seoData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const ctx = await adminContext(c);
    requireSettingsWrite(ctx, "seo");
    const document = {
      title_template: String(form.title_template ?? ""),
      default_description: String(form.default_description ?? ""),
      robots: {
        index: form.robots_index === "true",
        extra: String(form.robots_extra ?? ""),
      },
      redirects: redirectsOf(form),
    };
    return saveAndAnswer<"seo", SeoData>(c, ctx, {
      key: "seo",
      path: "/admin/settings/seo",
      document,
      revision: form.revision,
      load: (shown) => seoData(c, shown),
      extra: { findings: reviewRedirects(document.redirects) },
    });
  },
};

export default function Seo({ data }: PageProps<SeoData>) {
  const doc = data.document;
  const invalid = (path: string) =>
    problemsAt(data.problems, path).length > 0 ? "true" as const : undefined;
  const rows: (Redirect | null)[] = [
    ...doc.redirects,
    ...Array(BLANK_ROWS).fill(null),
  ];
  return (
    <AdminShell shell={data.shell} title="SEO and redirects">
      <DocumentMessages notice={data.notice} alert={data.alert} />
      <form method="post" class="stack">
        <DocumentFormHead
          csrfToken={data.shell.csrfToken}
          revision={data.revision}
        />
        <section class="card stack" aria-labelledby="seo-heading">
          <h2 id="seo-heading">Search engines</h2>
          <div class="field">
            <label for="title-template">Page title</label>
            <FieldProblem
              problems={data.problems}
              path="title_template"
              id="title-template-error"
            />
            <input
              id="title-template"
              name="title_template"
              maxLength={200}
              value={doc.title_template}
              aria-invalid={invalid("title_template")}
              aria-describedby="title-template-hint"
            />
            <p class="hint" id="title-template-hint">
              <code>{"{title}"}</code> is the page's own title, e.g.{" "}
              <code>{"{title} · Our site"}</code>
            </p>
          </div>
          <div class="field">
            <label for="description">Default description</label>
            <FieldProblem
              problems={data.problems}
              path="default_description"
              id="description-error"
            />
            <textarea
              id="description"
              name="default_description"
              rows={3}
              maxLength={500}
              aria-invalid={invalid("default_description")}
            >
              {doc.default_description}
            </textarea>
          </div>
          <div class="field">
            <label>
              <input
                type="checkbox"
                name="robots_index"
                value="true"
                checked={doc.robots.index}
              />{" "}
              Search engines may index the site
            </label>
          </div>
          <div class="field">
            <label for="robots-extra">More robots.txt lines</label>
            <textarea
              id="robots-extra"
              name="robots_extra"
              rows={3}
              maxLength={4000}
            >
              {doc.robots.extra}
            </textarea>
          </div>
        </section>
        <section class="card" aria-labelledby="redirects-heading">
          <h2 id="redirects-heading">Redirects</h2>
          <p class="muted">
            Up to 256 exact addresses and 32 patterns (<code>{"{name}"}</code>
            {" "}
            matches one segment, <code>{"{name*}"}</code>{" "}
            the rest). 410 and 451 answer "gone" and take no target. Fill an
            empty row to add one; tick Remove to drop one.
          </p>
          <FieldProblem
            problems={data.problems}
            path="redirects"
            id="redirects-error"
          />
          {data.findings.length > 0 && (
            <ul class="findings" aria-label="Redirect review">
              {data.findings.map((f) => (
                <li key={`${f.index}-${f.kind}`}>
                  <strong>Row {f.index + 1}</strong> ({f.kind}): {f.message}
                </li>
              ))}
            </ul>
          )}
          <div class="table-wrap" {...scrollRegion("Redirects table")}>
            <table>
              <thead>
                <tr>
                  <th scope="col">From</th>
                  <th scope="col">Match</th>
                  <th scope="col">Status</th>
                  <th scope="col">To</th>
                  <th scope="col">Remove</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r, i) => {
                  const path = `redirects.${i}`;
                  const messages = problemsAt(data.problems, path);
                  return (
                    <tr key={i}>
                      <td>
                        <input
                          name="r.from"
                          value={r?.from ?? ""}
                          aria-label={`Row ${i + 1}: from`}
                          aria-invalid={messages.length > 0
                            ? "true"
                            : undefined}
                          placeholder="/old-address"
                        />
                        {messages.length > 0 && (
                          <p class="field-error">{messages.join("; ")}</p>
                        )}
                      </td>
                      <td>
                        <select
                          name="r.match"
                          aria-label={`Row ${i + 1}: match`}
                        >
                          <option
                            value="exact"
                            selected={r?.match !== "pattern"}
                          >
                            exact
                          </option>
                          <option
                            value="pattern"
                            selected={r?.match === "pattern"}
                          >
                            pattern
                          </option>
                        </select>
                      </td>
                      <td>
                        <select
                          name="r.status"
                          aria-label={`Row ${i + 1}: status`}
                        >
                          {STATUSES.map((s) => (
                            <option
                              value={String(s)}
                              selected={(r?.status ?? 301) === s}
                            >
                              {s}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td>
                        <input
                          name="r.to"
                          value={r?.to ?? ""}
                          aria-label={`Row ${i + 1}: to`}
                          placeholder="/new-address or https://…"
                        />
                      </td>
                      <td>
                        {r && (
                          <input
                            type="checkbox"
                            name="r.remove"
                            value={String(i)}
                            aria-label={`Row ${i + 1}: remove`}
                          />
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>
        <p class="buttons">
          <button type="submit">Save</button>
        </p>
      </form>
    </AdminShell>
  );
}
