// GET/POST /admin/site/delivery: Settings → Site delivery. Releases and their history, the
// address steps (check a new address, switch to it, go back within seven days, remove the
// previous one) with each refusal shown by name (site:infra to read, site:deploy to act).
import type { Context } from "hono";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import type { ShellData } from "../../../core/admin/shell.ts";
import { refusalText } from "../../../core/templates/admin_text.ts";
import { templateContext } from "../../../core/templates/http.ts";
import {
  proveAddress,
  type ReleaseHistory,
  releaseHistory,
  removePreviousAddress,
  rollbackAddress,
  switchAddress,
} from "../../../core/templates/releases.ts";
import { missingSettings } from "../../../core/templates/settings.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { HttpError } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "../_shell.tsx";

export const middleware = requireSignedIn;

const HERE = "/admin/site/delivery";

interface DeliveryData {
  title: string;
  shell: ShellData;
  csrfToken: string;
  history: ReleaseHistory;
  missing: string[];
  error?: string;
}

async function pageData(
  c: Context<AppEnv>,
  extra: Partial<DeliveryData> = {},
): Promise<DeliveryData> {
  const ctx = await templateContext(c, ["site:infra"]);
  const { shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: "Site delivery" },
  ]);
  return {
    title: "Site delivery",
    shell,
    csrfToken: c.var.csrfToken,
    history: await releaseHistory(ctx),
    missing: missingSettings(ctx.settings, "release"),
    ...extra,
  };
}

// A form page answers what it can show: missing settings are named on the page (the API's 503
// is for scripts that retry).
const STATUS: Record<string, number> = {
  template_operation_unavailable: 409,
  invalid_host: 400,
  release_not_found: 404,
  deploy_service_failed: 502,
};

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await pageData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    let ctx;
    try {
      ctx = await templateContext(c, ["site:deploy"]);
    } catch (e) {
      if (e instanceof HttpError && e.code === "missing_permission") {
        return page(
          await pageData(c, {
            error: "missing_permission: delivery steps need site:deploy",
          }),
          { status: 403 },
        );
      }
      throw e;
    }
    const observed = form.observed ? Number(form.observed) : null;
    const done = form.action === "prove"
      ? await proveAddress(ctx, String(form.host ?? ""))
      : form.action === "switch"
      ? await switchAddress(ctx, Number(form.number ?? 0), observed)
      : form.action === "rollback"
      ? await rollbackAddress(ctx, observed)
      : await removePreviousAddress(ctx);
    if (!done.ok) {
      return page(await pageData(c, { error: refusalText(done) }), {
        status: STATUS[done.code] ?? 409,
      });
    }
    return c.redirect(HERE, 303);
  },
};

function when(iso: string | null): string {
  return iso ? iso.slice(0, 16).replace("T", " ") : "—";
}

export default function DeliveryPage({ data }: PageProps<DeliveryData>) {
  const { history } = data;
  const observed = history.active_number === null
    ? ""
    : String(history.active_number);
  const Hidden = ({ action }: { action: string }) => (
    <>
      <input type="hidden" name="_csrf" value={data.csrfToken} />
      <input type="hidden" name="action" value={action} />
      <input type="hidden" name="observed" value={observed} />
    </>
  );
  return (
    <AdminShell shell={data.shell} title="Site delivery">
      {data.error && <p role="alert" class="alert">{data.error}</p>}
      {data.missing.length > 0 && (
        <p class="warning">
          Releases are unavailable until these settings are set:{" "}
          {data.missing.join(", ")}.
        </p>
      )}
      <section class="card">
        <h2>Address</h2>
        <dl>
          <dt>Serves the site</dt>
          <dd>{history.address.active ?? "No address yet"}</dd>
          {history.address.previous && (
            <>
              <dt>Previous address</dt>
              <dd>
                {history.address.previous} (going back possible until{" "}
                {when(history.address.rollback_until)})
              </dd>
            </>
          )}
        </dl>
        <form method="post">
          <Hidden action="prove" />
          <p>
            <label for="address-host">New address (host name)</label>
            <input
              id="address-host"
              name="host"
              required
              maxLength={253}
              placeholder="www.example.com"
            />
          </p>
          <button type="submit">Check address</button>
        </form>
        {history.address.previous && (
          <div class="buttons">
            <form method="post" class="inline">
              <Hidden action="rollback" />
              <button type="submit" class="secondary">
                Go back to {history.address.previous}
              </button>
            </form>
            <form method="post" class="inline">
              <Hidden action="remove-previous" />
              <button type="submit" class="danger">
                Remove {history.address.previous}
              </button>
            </form>
          </div>
        )}
      </section>
      <section class="card">
        <h2>Releases</h2>
        {history.releases.length === 0
          ? <p class="muted">No release yet.</p>
          : (
            // A table wider than a phone scrolls on its own; keyboards reach it too.
            <div
              class="table-wrap"
              tabIndex={0}
              role="region"
              aria-label="Releases, scrolls sideways"
            >
              <table>
                <thead>
                  <tr>
                    <th scope="col">Number</th>
                    <th scope="col">State</th>
                    <th scope="col">Address</th>
                    <th scope="col">Template</th>
                    <th scope="col">Prepared</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {history.releases.map((r) => (
                    <tr key={r.number}>
                      <td>{r.number}</td>
                      <td>
                        <span
                          class={r.state === "active"
                            ? "badge result-ok"
                            : "badge"}
                        >
                          {r.state}
                        </span>
                      </td>
                      <td>{r.origin}</td>
                      <td>{r.template}</td>
                      <td>{when(r.prepared_at)}</td>
                      <td>
                        {r.state === "proven" && (
                          <form method="post" class="inline">
                            <Hidden action="switch" />
                            <input
                              type="hidden"
                              name="number"
                              value={r.number}
                            />
                            <button
                              type="submit"
                              aria-label={`Switch to release ${r.number}`}
                            >
                              Switch address
                            </button>
                          </form>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
      </section>
    </AdminShell>
  );
}
