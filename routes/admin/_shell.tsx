// The admin shell every signed-in page renders inside: top bar, sidebar (a menu on a phone), breadcrumbs.
import type { ComponentChildren } from "preact";
import type { Context } from "hono";
import { type AdminContext, adminContext } from "../../core/admin/context.ts";
import {
  type Crumb,
  loadShell,
  type ShellData,
} from "../../core/admin/shell.ts";
import type { AppEnv } from "../../core/web/env.ts";

/** Props of {@link AdminShell}. */
export interface AdminShellProps {
  shell: ShellData;
  title: string;
  /** Buttons or links beside the page title. */
  actions?: ComponentChildren;
  children: ComponentChildren;
}

function current(
  path: string,
  href: string,
  exact = false,
): "page" | undefined {
  if (exact) return path === href ? "page" : undefined;
  return path === href || path.startsWith(`${href}/`) ? "page" : undefined;
}

/** Wraps a page in the admin shell; the sidebar collapses behind a no-JS checkbox menu on narrow screens. */
export function AdminShell(props: AdminShellProps) {
  const { shell } = props;
  const others = shell.sites.filter((s) => !s.current);
  return (
    <>
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="topbar">
        {/* Inside the banner landmark, so the phone menu's control belongs to a region too. */}
        <input
          type="checkbox"
          id="nav-toggle"
          class="nav-toggle visually-hidden"
          aria-controls="sidebar"
          aria-label="Menu"
        />
        <label for="nav-toggle" class="nav-toggle-label button secondary">
          Menu
        </label>
        <p class="brand">
          <a href="/admin">Stave</a> <span class="muted">{shell.siteName}</span>
        </p>
        <div class="who">
          {others.length > 0 && (
            <details class="site-switcher-menu">
              <summary>Switch site</summary>
              <ul class="plain">
                {others.map((s) => (
                  <li key={s.domain}>
                    <a href={s.href}>{s.name}</a>{" "}
                    <span class="muted">{s.domain}</span>
                  </li>
                ))}
              </ul>
            </details>
          )}
          <form method="post" action="/admin/sign-out" class="inline">
            <input type="hidden" name="_csrf" value={shell.csrfToken} />
            <button type="submit" class="secondary">Sign out</button>
          </form>
        </div>
      </header>
      <div class="layout">
        <nav class="sidebar" id="sidebar" aria-label="Admin">
          <ul>
            <li>
              <a
                href="/admin"
                aria-current={current(shell.path, "/admin", true)}
              >
                Dashboard
              </a>
            </li>
          </ul>
          {shell.folders.map((folder) => (
            <section key={folder.label ?? ""}>
              <h2>{folder.label ?? "Content"}</h2>
              <ul>
                {folder.models.map((m) => (
                  <li key={m.id}>
                    <a
                      href={`/admin/content/${m.slug}`}
                      aria-current={current(
                        shell.path,
                        `/admin/content/${m.slug}`,
                      )}
                    >
                      {m.name}
                    </a>
                  </li>
                ))}
              </ul>
            </section>
          ))}
          <h2>Site</h2>
          <ul>
            {shell.may.media && (
              <li>
                <a
                  href="/admin/media"
                  aria-current={current(shell.path, "/admin/media")}
                >
                  Media
                </a>
              </li>
            )}
            <li>
              <a
                href="/admin/pages"
                aria-current={current(shell.path, "/admin/pages")}
              >
                Page documents
              </a>
            </li>
            {shell.may.models && (
              <li>
                <a
                  href="/admin/models"
                  aria-current={current(shell.path, "/admin/models")}
                >
                  Models
                </a>
              </li>
            )}
            {shell.may.people && (
              <li>
                <a
                  href="/admin/people"
                  aria-current={current(shell.path, "/admin/people")}
                >
                  People
                </a>
              </li>
            )}
            {shell.may.forms && (
              <li>
                <a
                  href="/admin/forms"
                  aria-current={current(shell.path, "/admin/forms")}
                >
                  Form submissions
                </a>
              </li>
            )}
            {shell.may.settings && (
              <li>
                <a
                  href="/admin/settings"
                  aria-current={current(shell.path, "/admin/settings")}
                >
                  Settings
                </a>
              </li>
            )}
          </ul>
          <p class="person">
            Signed in as <strong>{shell.user.displayName}</strong>
            <br />
            {shell.user.email}
          </p>
        </nav>
        <main id="main">
          <nav class="breadcrumbs" aria-label="Breadcrumb">
            <ol>
              {shell.crumbs.map((crumb, i) => (
                <li key={i}>
                  {crumb.href && i < shell.crumbs.length - 1
                    ? <a href={crumb.href}>{crumb.label}</a>
                    : <span aria-current="page">{crumb.label}</span>}
                </li>
              ))}
            </ol>
          </nav>
          <div class="page-head">
            <h1>{props.title}</h1>
            {props.actions && <div class="buttons">{props.actions}</div>}
          </div>
          {props.children}
        </main>
      </div>
    </>
  );
}

/** The person's context and the shell of the page being answered. */
export async function openAdminPage(
  c: Context<AppEnv>,
  crumbs: Crumb[],
): Promise<{ ctx: AdminContext; shell: ShellData }> {
  const ctx = await adminContext(c);
  const shell = await loadShell(ctx, {
    csrfToken: c.var.csrfToken,
    url: new URL(c.req.url),
    crumbs: [{ label: c.var.site.name, href: "/admin" }, ...crumbs],
  });
  return { ctx, shell };
}

/** A date and time as the admin shows it: `2026-11-23 10:00` in UTC. */
export function when(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "";
}
