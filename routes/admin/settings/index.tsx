// GET /admin/settings: the site's settings pages.
import type { Context } from "hono";
import type { ShellData } from "../../../core/admin/shell.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import {
  type SettingsCard,
  settingsRowCards,
} from "../../../core/plugins/cards.ts";
import { AdminShell, openAdminPage } from "../_shell.tsx";
import { SettingsRowCards } from "./plugins/_open.tsx";

export const middleware = requireSignedIn;

interface SettingsData {
  title: string;
  shell: ShellData;
  /** Where the site's renderer serves its pages, when one does. */
  siteUrl: string | null;
  /** The plugins' `settings_row` cards the person may open. */
  pluginCards: SettingsCard[];
  csrfToken: string;
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const { shell } = await openAdminPage(c, [{ label: "Settings" }]);
    const siteUrl = c.var.services.config.siteRenderers[c.var.site.domain] ??
      null;
    const pluginCards = await settingsRowCards(c.var.services.db, {
      siteId: c.var.site.id,
      userId: c.var.user!.id,
    });
    return page(
      {
        title: "Settings",
        shell,
        siteUrl,
        pluginCards,
        csrfToken: c.var.csrfToken,
      } satisfies SettingsData,
    );
  },
};

const PAGES = [
  {
    href: "/admin/settings/languages",
    title: "Languages",
    about:
      "The site's languages, and what readers get when a translation is missing.",
  },
  {
    href: "/admin/settings/editorial",
    title: "Editorial",
    about:
      "How long old versions are kept, reviews before publishing, allowed embeds.",
  },
  {
    href: "/admin/settings/navigation",
    title: "Navigation",
    about: "Menus, where the header and footer show them, and the footer note.",
  },
  {
    href: "/admin/settings/regions",
    title: "Regions",
    about:
      "What the template's regions hold: recent posts, categories, tags, menus, shared sections.",
  },
  {
    href: "/admin/settings/seo",
    title: "SEO and redirects",
    about: "Page titles, the default description, robots, and redirects.",
  },
  {
    href: "/admin/settings/media-files",
    title: "Media files",
    about:
      "Which kinds and formats of file the library takes, and the largest upload.",
  },
  {
    href: "/admin/settings/comments",
    title: "Comments",
    about: "Whether visitors may comment, on which types, and for how long.",
  },
  {
    href: "/admin/settings/search",
    title: "Site search",
    about:
      "Which types visitors can search, by which fields, and how words match.",
  },
  {
    href: "/admin/settings/api",
    title: "Management credentials",
    about: "Secrets that let scripts and AI agents manage this site.",
  },
  {
    href: "/admin/settings/plugins",
    title: "Plugins",
    about:
      "Install remote plugins, choose what they may do, and read their audit trail.",
  },
  {
    href: "/admin/plugins/operations",
    title: "Site operations",
    about: "Run the operations installed plugins offer for the whole site.",
  },
  {
    href: "/admin/settings/public-api",
    title: "Public API",
    about: "Browser origins and site tokens of the public read API.",
  },
  {
    href: "/admin/settings/source-delivery",
    title: "Source & delivery",
    about:
      "Read tokens the generated backend accepts once it is regenerated and deployed.",
  },
  {
    href: "/admin/site/templates",
    title: "Templates",
    about:
      "Upload, preview and accept site templates; releases and addresses under Site delivery.",
  },
  {
    href: "/admin/settings/backend",
    title: "Backend access",
    about:
      "Who may call the generated backend's operations of each type, and saved queries it serves on routes.",
  },
];

export default function Settings({ data }: PageProps<SettingsData>) {
  return (
    <AdminShell shell={data.shell} title="Settings">
      <section class="card" aria-labelledby="served-heading">
        <h2 id="served-heading">Where the site is served</h2>
        {data.siteUrl
          ? (
            <p>
              Visitors see this site at{" "}
              <a href={data.siteUrl} target="_blank" rel="noopener">
                {data.siteUrl}
              </a>, drawn by the site renderer from what is published.
            </p>
          )
          : (
            <p class="muted">
              No site renderer is set up for this site: its content is served
              only through the public API to your own front end. Name one with
              the <code>SITE_RENDERER_URLS</code> setting.
            </p>
          )}
      </section>
      {data.pluginCards.length > 0 && (
        <section aria-labelledby="plugin-pages-heading">
          <h2 id="plugin-pages-heading">From plugins</h2>
          <SettingsRowCards
            cards={data.pluginCards}
            csrfToken={data.csrfToken}
            headingLevel={3}
          />
        </section>
      )}
      <div class="grid">
        {PAGES.map((p) => (
          <section class="card" key={p.href}>
            <h2>
              <a href={p.href}>{p.title}</a>
            </h2>
            <p class="muted">{p.about}</p>
          </section>
        ))}
      </div>
    </AdminShell>
  );
}
