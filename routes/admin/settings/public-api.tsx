// GET/POST /admin/settings/public-api: browser origins and site API tokens of the public read API (site:infra).
import type { Context } from "hono";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import {
  createSiteToken,
  type PublicApiRefusal,
  readPublicApiSettings,
  removeSiteToken,
  saveBrowserOrigins,
  type SiteTokenRow,
} from "../../../core/delivery/public_api_settings.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import type { ShellData } from "../../../core/admin/shell.ts";
import { AdminShell, openAdminPage } from "../_shell.tsx";

import { formList } from "../../../core/admin/form_values.ts";
import {
  grantableSites,
  grantSharedContent,
  listSharedGrants,
  revokeSharedContent,
  type SharedGrantRefusal,
} from "../../../core/public/shared_grants.ts";
import { SHARED_SECTION_MODEL } from "../../../core/pages/shared.ts";
import {
  SharedContentCard,
  type SharedContentData,
} from "./_shared_content.tsx";
import {
  personContext,
  refusalStatus,
  RevokeCell,
  ShownOnce,
  siteModels,
} from "./_shared.tsx";
import { scrollRegion } from "../_table.tsx";

export const middleware = requireSignedIn;

/** What the page shows. */
interface PublicApiData {
  title: string;
  shell: ShellData;
  siteName: string;
  csrfToken: string;
  origins: string[];
  tokens: SiteTokenRow[];
  models: { id: string; name: string; isPublic: boolean }[];
  shared: SharedContentData;
  /** The token just issued: shown on this one answer only. */
  created?: { name: string; token: string };
  error?: string;
}

async function pageData(
  c: Context<AppEnv>,
  extra: Partial<PublicApiData> = {},
): Promise<PublicApiData> {
  const settings = await readPublicApiSettings(personContext(c));
  if (!settings.ok) {
    refuse(
      403,
      "missing_permission",
      "The public API settings need the site:infra permission",
    );
  }
  const models = await siteModels(c);
  const person = personContext(c);
  const grants = await listSharedGrants(person);
  const { shell } = await openAdminPage(c, [
    { label: "Settings", href: "/admin/settings" },
    { label: "Public API" },
  ]);
  return {
    title: "Public API",
    shell,
    siteName: c.var.site.name,
    csrfToken: c.var.csrfToken,
    origins: settings.origins,
    tokens: settings.tokens,
    models,
    shared: {
      csrfToken: c.var.csrfToken,
      siteSlug: c.var.site.slug,
      grants: grants.ok ? grants.grants : [],
      sites: await grantableSites(person.db, person.personId, person.siteId),
      models: models.filter((m) =>
        m.isPublic && m.slug !== SHARED_SECTION_MODEL
      ),
    },
    ...extra,
  };
}

function message(refusal: PublicApiRefusal): string {
  if (refusal.code === "input_invalid") return refusal.message;
  if (refusal.code === "not_found") {
    return "That token does not exist or is already revoked";
  }
  return "The public API settings need the site:infra permission";
}

function sharedMessage(refusal: SharedGrantRefusal): string {
  switch (refusal.code) {
    case "input_invalid":
      return refusal.message;
    case "already_shared":
      return "This content type is already shared with that site";
    case "not_found":
      return "That sharing does not exist or has already stopped";
    default:
      return "Sharing content needs the site:infra permission";
  }
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await pageData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody({ all: true });
    const ctx = personContext(c);
    if (form.action === "origins") {
      const saved = await saveBrowserOrigins(ctx, String(form.origins ?? ""));
      if (!saved.ok) {
        return page(await pageData(c, { error: message(saved) }), {
          status: refusalStatus(saved.code),
        });
      }
      return c.redirect("/admin/settings/public-api", 303);
    }
    if (form.action === "share" || form.action === "unshare") {
      const done = form.action === "share"
        ? await grantSharedContent(ctx, {
          granteeSiteId: String(form.site ?? ""),
          modelId: String(form.model ?? ""),
        })
        : await revokeSharedContent(ctx, String(form.id ?? ""));
      if (!done.ok) {
        return page(await pageData(c, { error: sharedMessage(done) }), {
          status: done.code === "already_shared"
            ? 409
            : refusalStatus(done.code),
        });
      }
      return c.redirect("/admin/settings/public-api", 303);
    }
    if (form.action === "revoke") {
      const revoked = await removeSiteToken(ctx, String(form.id ?? ""));
      if (!revoked.ok) {
        return page(await pageData(c, { error: message(revoked) }), {
          status: refusalStatus(revoked.code),
        });
      }
      return c.redirect("/admin/settings/public-api", 303);
    }
    const name = String(form.name ?? "");
    const issued = await createSiteToken(ctx, {
      name,
      modelIds: formList(form.model),
    });
    if (!issued.ok) {
      return page(await pageData(c, { error: message(issued) }), {
        status: refusalStatus(issued.code),
      });
    }
    return page(
      await pageData(c, {
        created: { name: name.trim(), token: issued.token },
      }),
      { status: 201 },
    );
  },
};

export default function PublicApiSettings({ data }: PageProps<PublicApiData>) {
  return (
    <AdminShell shell={data.shell} title="Public API">
      {data.error && <p role="alert" class="alert">{data.error}</p>}
      {data.created && (
        <ShownOnce
          title={`Token “${data.created.name}”`}
          id="created-token"
          value={data.created.token}
        />
      )}
      <section class="card">
        <h2>Browser origins</h2>
        <p class="muted">
          One complete origin per line (https://www.example.com), or * for every
          origin. Empty: no cross-origin browser reads. Credentialed requests
          are never allowed.
        </p>
        <form method="post">
          <input type="hidden" name="_csrf" value={data.csrfToken} />
          <input type="hidden" name="action" value="origins" />
          <p>
            <label for="origins">Allowed origins</label>
            <textarea id="origins" name="origins" rows={4}>
              {data.origins.join("\n")}
            </textarea>
          </p>
          <button type="submit">Save origins</button>
        </form>
      </section>
      <section class="card">
        <h2>Site API tokens</h2>
        <p class="muted">
          A token reads the private models it names, sent as Authorization:
          Bearer sv_site_….
        </p>
        {data.tokens.length === 0
          ? <p class="muted">None yet.</p>
          : (
            <div class="table-wrap" {...scrollRegion("Site API tokens table")}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Models</th>
                    <th scope="col">Created</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {data.tokens.map((token) => (
                    <tr key={token.id}>
                      <td>{token.name}</td>
                      <td>
                        {token.model_ids.map((id) =>
                          data.models.find((m) => m.id === id)?.name ?? id
                        ).join(", ")}
                      </td>
                      <td>{token.created_at.slice(0, 16).replace("T", " ")}</td>
                      <td>
                        <RevokeCell
                          csrfToken={data.csrfToken}
                          id={token.id}
                          revoked={token.revoked}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        <form method="post">
          <input type="hidden" name="_csrf" value={data.csrfToken} />
          <input type="hidden" name="action" value="issue" />
          <p>
            <label for="token-name">Name</label>
            <input id="token-name" name="name" required maxLength={100} />
          </p>
          <fieldset>
            <legend>Models it may read</legend>
            {data.models.map((model) => (
              <label key={model.id} class="check">
                <input type="checkbox" name="model" value={model.id} />{" "}
                {model.name}
                {model.isPublic ? "" : " (private)"}
              </label>
            ))}
          </fieldset>
          <button type="submit">Issue token</button>
        </form>
      </section>
      <SharedContentCard data={data.shared} />
    </AdminShell>
  );
}
