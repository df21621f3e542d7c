// GET/POST /admin/connect: the connect page of interactive login, where a signed-in person picks the site and sees the scopes (spec 2 part 5.2).
import type { Context } from "hono";
import { loadAuthority } from "../../core/access/authority.ts";
import { checkGrantHeld } from "../../core/access/grants.ts";
import { type Scope, SCOPE_RULES } from "../../core/access/scopes.ts";
import { SIGN_IN_PATH } from "../../core/auth/session_middleware.ts";
import {
  type AuthorizeParams,
  checkAuthorize,
  errorRedirect,
  grantCode,
} from "../../core/oauth/authorize.ts";
import type { AppEnv } from "../../core/web/env.ts";
import { refuse } from "../../core/web/errors.ts";
import { page, type PageProps } from "../../core/web/manifest.ts";

/** What the connect page shows. */
interface ConnectData {
  title: string;
  csrfToken: string;
  email: string;
  clientName: string;
  /** Where the answer goes, e.g. 127.0.0.1:53121. */
  returnsTo: string;
  params: AuthorizeParams;
  sites: { id: string; name: string; domain: string; current: boolean }[];
  scopes: { name: string; allows: string }[];
  error?: string;
}

function originOf(c: Context<AppEnv>): string {
  return new URL(c.var.services.config.publicUrl).origin;
}

/** The active sites the person is a member of, the request's own first. */
async function sitesOf(c: Context<AppEnv>): Promise<ConnectData["sites"]> {
  const rows = await c.var.services.db.selectFrom("site_members as m")
    .innerJoin("sites as s", "s.id", "m.site_id")
    .select(["s.id", "s.name", "s.domain"])
    .where("m.user_id", "=", c.var.user!.id)
    .orderBy("s.name").execute();
  return rows.map((r) => ({ ...r, current: r.id === c.var.site.id }))
    .sort((a, b) => Number(b.current) - Number(a.current));
}

/** The asked scopes the person holds now on the site; only these are granted. */
async function heldScopes(
  c: Context<AppEnv>,
  siteId: string,
  asked: string[],
): Promise<string[] | null> {
  const loaded = await loadAuthority(c.var.services.db, {
    siteId,
    actor: { kind: "person", userId: c.var.user!.id },
  });
  if (!loaded.ok) return null;
  return asked.filter((scope) =>
    checkGrantHeld(loaded.authority, [scope as Scope], null).ok
  );
}

async function pageData(
  c: Context<AppEnv>,
  checked: Extract<
    Awaited<ReturnType<typeof checkAuthorize>>,
    { ok: true }
  >,
  error?: string,
): Promise<ConnectData> {
  return {
    title: `Connect ${checked.client.name}`,
    csrfToken: c.var.csrfToken,
    email: c.var.user!.email,
    clientName: checked.client.name,
    returnsTo: new URL(checked.params.redirect_uri).host,
    params: checked.params,
    sites: await sitesOf(c),
    scopes: checked.params.scopes.map((name) => ({
      name,
      allows: SCOPE_RULES[name as Scope].allows,
    })),
    error,
  };
}

function badRequest(message: string): never {
  refuse(400, "invalid_request", `This sign-in cannot go on: ${message}`);
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    c.set("responseKind", "html");
    // A parameter given twice stays a list, which the check refuses.
    const query = Object.fromEntries(
      Object.entries(c.req.queries()).map((
        [name, values],
      ) => [name, values.length === 1 ? values[0] : values]),
    );
    const checked = await checkAuthorize(c.var.services, originOf(c), query);
    if (!checked.ok) {
      if (checked.redirect) return c.redirect(checked.redirect, 303);
      badRequest(checked.message);
    }
    if (!c.var.user) {
      const here = new URL(c.req.url);
      return c.redirect(
        `${SIGN_IN_PATH}?next=${
          encodeURIComponent(`${here.pathname}${here.search}`)
        }`,
        303,
      );
    }
    return page(await pageData(c, checked));
  },

  async POST(c: Context<AppEnv>) {
    c.set("responseKind", "html");
    if (!c.var.user) refuse(401, "unauthenticated", "Sign in first");
    const form = await c.req.parseBody();
    const raw: Record<string, string> = {
      response_type: "code",
      code_challenge_method: "S256",
    };
    for (
      const name of ["client_id", "redirect_uri", "code_challenge", "state"]
    ) {
      raw[name] = String(form[name] ?? "");
    }
    raw.scope = String(form.scope ?? "");
    const origin = originOf(c);
    const checked = await checkAuthorize(c.var.services, origin, raw);
    if (!checked.ok) {
      if (checked.redirect) return c.redirect(checked.redirect, 303);
      badRequest(checked.message);
    }
    const { params } = checked;
    if (form.action !== "allow") {
      return c.redirect(
        errorRedirect(
          origin,
          params.redirect_uri,
          "access_denied",
          params.state,
        ),
        303,
      );
    }
    const siteId = String(form.site_id ?? "");
    const site = (await sitesOf(c)).find((s) => s.id === siteId);
    const held = site ? await heldScopes(c, site.id, params.scopes) : null;
    if (!site || held === null) {
      return page(
        await pageData(c, checked, "Choose a site you can sign in to"),
        { status: 403 },
      );
    }
    if (held.length === 0) {
      return page(
        await pageData(
          c,
          checked,
          `You hold none of the asked scopes on ${site.name}`,
        ),
        { status: 403 },
      );
    }
    const location = await grantCode(c.var.services, {
      origin,
      params,
      user: { id: c.var.user.id, siteId: site.id },
      scopes: held,
    });
    return c.redirect(location, 303);
  },
};

export default function ConnectPage({ data }: PageProps<ConnectData>) {
  const p = data.params;
  return (
    <main class="narrow">
      <h1>Connect “{data.clientName}”</h1>
      <p>
        Signed in as {data.email}. “{data.clientName}”{" "}
        will act as you through the Management API, within the scopes below and
        your own permissions. Its answer returns to{" "}
        <code>{data.returnsTo}</code> on this computer.
      </p>
      {data.error && <p class="alert" role="alert">{data.error}</p>}
      <form method="post" action="/admin/connect" class="stack">
        <input type="hidden" name="_csrf" value={data.csrfToken} />
        <input type="hidden" name="client_id" value={p.client_id} />
        <input type="hidden" name="redirect_uri" value={p.redirect_uri} />
        <input type="hidden" name="code_challenge" value={p.code_challenge} />
        <input type="hidden" name="state" value={p.state} />
        <input type="hidden" name="scope" value={p.scopes.join(" ")} />
        <fieldset>
          <legend>Site</legend>
          {data.sites.map((site, i) => (
            <label key={site.id} class="check">
              <input
                type="radio"
                name="site_id"
                value={site.id}
                checked={i === 0}
                required
              />{" "}
              {site.name} <span class="muted">({site.domain})</span>
            </label>
          ))}
        </fieldset>
        <section class="card" aria-labelledby="scopes-heading">
          <h2 id="scopes-heading">Scopes asked for</h2>
          <ul>
            {data.scopes.map((scope) => (
              <li key={scope.name}>
                <code>{scope.name}</code>: {scope.allows}
              </li>
            ))}
          </ul>
          <p class="muted">
            Only the scopes you hold on the chosen site are granted. You can end
            this sign-in any time under Settings → API.
          </p>
        </section>
        <button type="submit" name="action" value="allow">Allow</button>
        <button type="submit" name="action" value="deny" class="secondary">
          Cancel
        </button>
      </form>
    </main>
  );
}
