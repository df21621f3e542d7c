// GET/POST /admin/settings/api: management credentials, created by a person holding site:settings.
import type { Context } from "hono";
import { SCOPES } from "../../../core/access/scopes.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import {
  createCredential,
  type CredentialRefusal,
  listCredentials,
  revokeCredential,
} from "../../../core/credentials/credentials.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import type { ShellData } from "../../../core/admin/shell.ts";
import { AdminShell, openAdminPage } from "../_shell.tsx";

import { formList } from "../../../core/admin/form_values.ts";
import {
  personContext,
  RevokeCell,
  ShownOnce,
  siteModels,
} from "./_shared.tsx";
import { scrollRegion } from "../_table.tsx";

export const middleware = requireSignedIn;

/** One credential as the page lists it. */
interface CredentialRow {
  id: string;
  name: string;
  scopes: string[];
  models: string[] | null;
  createdAt: string;
  revoked: boolean;
}

/** What the page shows. */
interface ApiSettingsData {
  title: string;
  shell: ShellData;
  siteName: string;
  csrfToken: string;
  /** Where an AI agent connects (spec 2 part 4.5). */
  mcpUrl: string;
  credentials: CredentialRow[];
  models: { id: string; name: string }[];
  /** The secret of the credential just created: shown on this one answer only. */
  created?: { name: string; secret: string };
  error?: string;
}

async function pageData(
  c: Context<AppEnv>,
  extra: Partial<ApiSettingsData> = {},
): Promise<ApiSettingsData> {
  const listed = await listCredentials(personContext(c));
  if (!listed.ok) {
    refuse(
      403,
      listed.code,
      "Managing credentials needs the site:settings permission",
    );
  }
  const models = await siteModels(c);
  const { shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: "Management credentials" },
  ]);
  return {
    title: "Management credentials",
    shell,
    siteName: c.var.site.name,
    csrfToken: c.var.csrfToken,
    mcpUrl: `${c.var.services.config.publicUrl}/api/manage/mcp`,
    credentials: listed.credentials.map((r) => ({
      id: r.id,
      name: r.name,
      scopes: r.scopes,
      models: r.models,
      createdAt: r.createdAt.toISOString(),
      revoked: r.revokedAt !== null,
    })),
    models,
    ...extra,
  };
}

function explain(
  refusal: CredentialRefusal,
): { status: 400 | 403 | 404 | 422 | 503; message: string } {
  switch (refusal.code) {
    case "missing_permission":
      return {
        status: 403,
        message: "Managing credentials needs the site:settings permission",
      };
    case "grant_not_held":
      return {
        status: 422,
        message: `You can grant only what you hold now; not held: ${
          "not_held" in refusal
            ? refusal.not_held.map((n) =>
              n.model ? `${n.scope} on ${n.model}` : n.scope
            ).join(", ")
            : ""
        }`,
      };
    case "invalid_request":
      return {
        status: 400,
        message: "problems" in refusal
          ? refusal.problems.map((p) => p.message).join("; ")
          : "Invalid request",
      };
    case "not_found":
      return {
        status: 404,
        message: "That credential does not exist or is already revoked",
      };
    default:
      return {
        status: 503,
        message: "The change could not be recorded; nothing was changed",
      };
  }
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await pageData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    if (form.action === "revoke") {
      const revoked = await revokeCredential(
        personContext(c),
        String(form.id ?? ""),
      );
      if (!revoked.ok) {
        const { status, message } = explain(revoked);
        return page(await pageData(c, { error: message }), { status });
      }
      return c.redirect("/admin/settings/api", 303);
    }
    const models = formList(form.model);
    const created = await createCredential(personContext(c), {
      name: String(form.name ?? ""),
      scopes: formList(form.scope),
      models: models.length > 0 ? models : null,
    });
    if (!created.ok) {
      const { status, message } = explain(created);
      return page(await pageData(c, { error: message }), { status });
    }
    return page(
      await pageData(c, {
        created: { name: created.credential.name, secret: created.secret },
      }),
      {
        status: 201,
      },
    );
  },
};

export default function ApiSettings({ data }: PageProps<ApiSettingsData>) {
  return (
    <AdminShell shell={data.shell} title="Management credentials">
      {data.error && <p role="alert" class="alert">{data.error}</p>}
      {data.created && (
        <ShownOnce
          title={`Secret of “${data.created.name}”`}
          id="created-secret"
          value={data.created.secret}
        />
      )}
      <section class="card">
        <h2>Credentials</h2>
        {data.credentials.length === 0
          ? <p class="muted">None yet.</p>
          : (
            <div class="table-wrap" {...scrollRegion("Credentials table")}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Models</th>
                    <th scope="col">Created</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {data.credentials.map((cred) => (
                    <tr key={cred.id}>
                      <td>{cred.name}</td>
                      <td>{cred.scopes.join(", ")}</td>
                      <td>
                        {cred.models === null ? "All" : cred.models.length}
                      </td>
                      <td>{cred.createdAt.slice(0, 16).replace("T", " ")}</td>
                      <td>
                        <RevokeCell
                          csrfToken={data.csrfToken}
                          id={cred.id}
                          revoked={cred.revoked}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
      </section>
      <section class="card" aria-labelledby="agents-heading">
        <h2 id="agents-heading">Command line and AI agents</h2>
        <p>
          <a href="/admin/settings/api-client" download="svc-manage.mjs">
            Download svc-manage.mjs
          </a>{" "}
          (Node.js 18+ or Deno; run it with{" "}
          <code>--help</code>). AI agents connect to <code>{data.mcpUrl}</code>
          {" "}
          with a sign-in or a credential.
        </p>
      </section>
      <section class="card">
        <h2>New credential</h2>
        <form method="post">
          <input type="hidden" name="_csrf" value={data.csrfToken} />
          <input type="hidden" name="action" value="create" />
          <p>
            <label for="credential-name">Name</label>
            <input id="credential-name" name="name" required maxLength={200} />
          </p>
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label key={scope} class="check">
                <input type="checkbox" name="scope" value={scope} /> {scope}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>Models (none chosen: every model you reach)</legend>
            {data.models.map((model) => (
              <label key={model.id} class="check">
                <input type="checkbox" name="model" value={model.id} />{" "}
                {model.name}
              </label>
            ))}
          </fieldset>
          <button type="submit">Create credential</button>
        </form>
      </section>
    </AdminShell>
  );
}
