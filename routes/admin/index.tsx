// GET /admin: the signed-in home of the site named by the Host header.
import type { Context } from "hono";
import { requireSignedIn } from "../../core/auth/session_middleware.ts";
import type { AppEnv } from "../../core/web/env.ts";
import { page, type PageProps } from "../../core/web/manifest.ts";
import LanguagePreview from "../../islands/LanguagePreview.tsx";

export const middleware = requireSignedIn;

/** What the home page shows. */
interface HomeData {
  site: {
    name: string;
    domain: string;
    languages: string[];
    defaultLanguage: string;
  };
  user: { displayName: string; email: string };
  csrfToken: string;
}

export const handler = {
  GET(c: Context<AppEnv>) {
    const { site, user } = c.var;
    const data: HomeData = {
      site: {
        name: site.name,
        domain: site.domain,
        languages: site.languages,
        defaultLanguage: site.defaultLanguage,
      },
      user: { displayName: user!.displayName, email: user!.email },
      csrfToken: c.var.csrfToken,
    };
    return page(data);
  },
};

export default function AdminHome({ data }: PageProps<HomeData>) {
  const { site, user } = data;
  return (
    <>
      <header class="topbar">
        <p class="brand">Stave</p>
        <form method="post" action="/admin/sign-out" class="inline">
          <input type="hidden" name="_csrf" value={data.csrfToken} />
          <span class="muted">
            Signed in as <strong>{user.displayName}</strong>
          </span>{" "}
          <button type="submit" class="secondary">Sign out</button>
        </form>
      </header>
      <main>
        <h1>{site.name}</h1>
        <section class="card">
          <h2>Site</h2>
          <dl>
            <dt>Domain</dt>
            <dd>{site.domain}</dd>
            <dt>Languages</dt>
            <dd>
              <ul class="plain">
                {site.languages.map((code) => (
                  <li key={code} lang={code}>
                    {code}
                    {code === site.defaultLanguage && (
                      <span class="muted">(default)</span>
                    )}
                  </li>
                ))}
              </ul>
            </dd>
          </dl>
        </section>
        <section class="card">
          <h2>You</h2>
          <dl>
            <dt>Name</dt>
            <dd>{user.displayName}</dd>
            <dt>Email</dt>
            <dd>{user.email}</dd>
          </dl>
        </section>
        <section class="card">
          <h2>Settings</h2>
          <p>
            <a href="/admin/settings/api">Management credentials</a>
          </p>
          <p>
            <a href="/admin/settings/public-api">
              Public API: browser origins and site tokens
            </a>
          </p>
          <p>
            <a href="/admin/pages">Pages and previews</a>
          </p>
          <p>
            <a href="/admin/forms">Form submissions</a>
          </p>
        </section>
        <LanguagePreview
          languages={site.languages}
          defaultLanguage={site.defaultLanguage}
        />
      </main>
    </>
  );
}
