// GET/POST /admin/pages: the site's pages with the structure of each language's document, and a
// preview button that mints a 30-minute `sv_prev_` token (AUTH-013, PUB-037).
import type { Context } from "hono";
import { requireSignedIn } from "../../core/auth/session_middleware.ts";
import {
  listAdminPages,
  openPagePreview,
  type PageRow,
} from "../../core/pages/admin_pages.ts";
import type { ShellData } from "../../core/admin/shell.ts";
import { renderedPath } from "../../core/sites/site_address.ts";
import type { AppEnv } from "../../core/web/env.ts";
import { page, type PageProps } from "../../core/web/manifest.ts";
import { AdminShell, openAdminPage } from "./_shell.tsx";

export const middleware = requireSignedIn;

interface PagesData {
  shell: ShellData;
  pages: PageRow[];
  /** The preview links just opened: shown on this answer only. */
  previews?: { locale: string; href: string; siteHref: string | null }[];
  previewTitle?: string;
  error?: string;
}

function context(c: Context<AppEnv>) {
  const { db, clock } = c.var.services;
  return { db, clock, siteId: c.var.site.id, personId: c.var.user!.id };
}

async function pagesData(c: Context<AppEnv>): Promise<PagesData> {
  const { shell } = await openAdminPage(c, [{ label: "Page documents" }]);
  return { shell, pages: await listAdminPages(context(c)) };
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await pagesData(c));
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    const id = String(form.id ?? "");
    const data = await pagesData(c);
    const pages = data.pages;
    const opened = await openPagePreview(context(c), id);
    if (!opened.ok) {
      data.error = "That page does not exist or you may not read it";
      return page(data, { status: 404 });
    }
    const target = pages.find((p) => p.id === id)!;
    data.previewTitle = target.languages[0]?.title ?? "Page";
    // The preview reads the current draft through the public API of this host.
    // And, when a renderer serves the site, as the rendered page.
    const origin = c.var.services.config.siteRenderers[c.var.site.domain];
    data.previews = target.languages.map((l) => {
      const path = renderedPath(
        { model: opened.model, slug: l.slug, locale: l.locale },
        c.var.site.defaultLanguage,
      );
      return {
        locale: l.locale,
        href: `/v1/${opened.model}/${encodeURIComponent(l.slug)}?locale=${
          encodeURIComponent(l.locale)
        }&preview=${opened.token}`,
        siteHref: origin && path
          ? `${origin}${path}?preview=${opened.token}`
          : null,
      };
    });
    return page(data, { status: 201 });
  },
};

export default function Pages({ data }: PageProps<PagesData>) {
  return (
    <AdminShell shell={data.shell} title="Page documents">
      {data.error && <p role="alert" class="alert">{data.error}</p>}
      {data.previews && (
        <section class="card" aria-labelledby="preview-heading">
          <h2 id="preview-heading">Preview of “{data.previewTitle}”</h2>
          <p>
            These links show the current drafts for 30 minutes. Share them only
            with people who may see unpublished content.
          </p>
          <ul>
            {data.previews.map((p) => (
              <li key={p.locale}>
                <a href={p.href} target="_blank" rel="noopener noreferrer">
                  Open the {p.locale} preview
                </a>
                {p.siteHref && (
                  <>
                    {" · "}
                    <a
                      href={p.siteHref}
                      target="_blank"
                      rel="noopener noreferrer"
                    >
                      Open the rendered {p.locale} page
                    </a>
                  </>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {data.pages.length === 0 && <p class="card">No pages yet.</p>}
      {data.pages.map((p) => (
        <article class="card page-structure" key={p.id}>
          <h2>{p.languages[0]?.title ?? p.languages[0]?.slug}</h2>
          <p class="muted">{p.model.name}</p>
          {p.languages.map((l) => (
            <div key={l.locale}>
              <h3>
                {l.locale}: /{l.slug}{" "}
                <span class="muted">
                  {l.published ? "published" : "draft only"}
                </span>
              </h3>
              <p>
                <a
                  href={`/admin/content/${p.model.slug}/${p.id}/sections?lang=${l.locale}`}
                >
                  Edit the {l.locale} sections
                </a>
              </p>
              {l.sections === null
                ? <p class="error">This document cannot be read: {l.error}</p>
                : (
                  <ol>
                    {l.sections.map((s) => (
                      <li key={s.id}>
                        <code>{s.type}</code>
                        {s.heading ? ` — ${s.heading}` : ""}
                      </li>
                    ))}
                  </ol>
                )}
            </div>
          ))}
          <form method="post">
            <input type="hidden" name="_csrf" value={data.shell.csrfToken} />
            <input type="hidden" name="id" value={p.id} />
            <button type="submit">Preview drafts</button>
          </form>
        </article>
      ))}
    </AdminShell>
  );
}
