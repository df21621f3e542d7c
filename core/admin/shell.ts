// What the admin shell shows around every page: the person's sites, the readable models by folder, the sections they may open.
import { decide, readReach } from "../access/decide.ts";
import { listModels } from "../models/model_reads.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { AdminContext } from "./context.ts";

/** One model in the sidebar. */
export interface ShellModel {
  id: string;
  slug: string;
  name: string;
}

/** A folder of models in the sidebar; `null` label for unfiled models, listed last. */
export interface ShellFolder {
  label: string | null;
  models: ShellModel[];
}

/** A site the person can switch to. */
export interface ShellSite {
  name: string;
  domain: string;
  /** The site's admin address: this request's scheme and port on the site's domain. */
  href: string;
  current: boolean;
}

/** A crumb of the breadcrumb trail; the last one is the page itself and has no link. */
export interface Crumb {
  label: string;
  href?: string;
}

/** The shell's data; plain JSON so pages can pass it through `page()`. */
export interface ShellData {
  siteName: string;
  user: { displayName: string; email: string };
  csrfToken: string;
  folders: ShellFolder[];
  sites: ShellSite[];
  /** Sections of the sidebar the person may open. */
  may: {
    settings: boolean;
    models: boolean;
    people: boolean;
    media: boolean;
    forms: boolean;
  };
  /** Path of the page, to mark the current sidebar link. */
  path: string;
  crumbs: Crumb[];
}

/** Groups readable models by folder, ignoring case as listModels sorted them. */
export function foldersOf(
  ctx: AdminContext,
  models: readonly StoredModel[],
): ShellFolder[] {
  const folders: ShellFolder[] = [];
  for (const model of models) {
    if (readReach(ctx.authority, model.id) === "none") continue;
    const key = model.folder?.trim().toLowerCase() ?? null;
    let folder = folders.find((f) => (f.label?.toLowerCase() ?? null) === key);
    if (!folder) {
      folder = { label: model.folder?.trim() ?? null, models: [] };
      folders.push(folder);
    }
    folder.models.push({ id: model.id, slug: model.slug, name: model.name });
  }
  return folders;
}

/** Loads the shell of a page at `path` with its breadcrumb trail. */
export async function loadShell(
  ctx: AdminContext,
  options: { csrfToken: string; url: URL; crumbs: Crumb[] },
): Promise<ShellData> {
  const { db, clock } = ctx.services;
  const models = await listModels({ db, clock, siteId: ctx.site.id });
  const sites = await db.selectFrom("site_members")
    .innerJoin("sites", "sites.id", "site_members.site_id")
    .select(["sites.id", "sites.name", "sites.domain"])
    .where("site_members.user_id", "=", ctx.user.id)
    .orderBy("sites.name").execute();
  const holds = (
    p: "site:settings" | "model:apply" | "role:manage" | "site:infra",
  ) => decide(ctx.authority, { action: p }).ok;
  return {
    siteName: ctx.site.name,
    user: { displayName: ctx.user.displayName, email: ctx.user.email },
    csrfToken: options.csrfToken,
    folders: foldersOf(ctx, models),
    sites: sites.map((s) => {
      const href = new URL("/admin", options.url);
      href.hostname = s.domain;
      return {
        name: s.name,
        domain: s.domain,
        href: href.toString(),
        current: s.id === ctx.site.id,
      };
    }),
    may: {
      settings: holds("site:settings"),
      models: holds("model:apply"),
      people: holds("role:manage"),
      media: true,
      forms: holds("site:infra"),
    },
    path: options.url.pathname,
    crumbs: options.crumbs,
  };
}
