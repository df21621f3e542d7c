// GET/POST /admin/media/sources: browse the plugin media sources the person may import from, and
// import an item (copy or reference) into the library, through the Management API's services.
import type { Context } from "hono";
import type { AdminContext } from "../../../core/admin/context.ts";
import { decide } from "../../../core/access/decide.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import { personMedia } from "../../../core/media/admin_access.ts";
import type { MediaItem } from "../../../core/media/items.ts";
import {
  apiUploadLimit,
  type MediaRefusal,
} from "../../../core/media/upload.ts";
import { pluginCallOf, pluginDownloadOf } from "../../../core/plugins/calls.ts";
import {
  importSourceItem,
  listSourceItems,
  listSources,
  type SourceContext,
  type SourceRefusal,
} from "../../../core/plugins/media_sources.ts";
import { cspAllowingImages } from "../../../core/web/csp.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { page, type PageProps } from "../../../core/web/manifest.ts";
import { openAdminPage } from "../_shell.tsx";
import { sayRefusal } from "./index.tsx";
import { sourceKey, type SourcesData, SourcesPage } from "./_sources_view.tsx";

export const middleware = requireSignedIn;

/** The same source context the Management API builds, for the signed-in person. */
function sourceContext(ctx: AdminContext): SourceContext {
  const { db, kv, clock } = ctx.services;
  return {
    db,
    kv,
    clock,
    call: pluginCallOf(ctx.services),
    download: pluginDownloadOf(ctx.services),
    siteId: ctx.site.id,
    userId: ctx.user.id,
    authority: ctx.authority,
    uploadLimitBytes: apiUploadLimit(
      ctx.services.config.mediaRequestBodyLimitBytes,
    ),
  };
}

/** Sentences for people, by the source's refusal code. */
function saySourceRefusal(refusal: SourceRefusal): string {
  switch (refusal.code) {
    case "media_source_unavailable":
      return "This source is not available: its plugin was removed, disabled or no longer offers it.";
    case "media_source_mode_unsupported":
      return "This source does not offer that kind of import.";
    case "media_source_file_unreachable":
      return "The plugin did not deliver this file: try again later, or pick another one.";
    case "plugin_timeout":
      return "The plugin did not answer in time: try again later.";
    case "plugin_unreachable":
      return "The plugin could not be reached: try again later, or ask an administrator to check it.";
    case "plugin_response_invalid":
      return "The plugin answered something Stave cannot use: ask an administrator to check it.";
    default:
      return `That did not work (${refusal.code}).`;
  }
}

async function open(c: Context<AppEnv>) {
  const opened = await openAdminPage(c, [
    { label: "Media", href: "/admin/media" },
    { label: "Plugin sources" },
  ]);
  // The Management API asks the same of a credential (list-media-sources).
  if (!decide(opened.ctx.authority, { action: "media.upload" }).ok) {
    refuse(
      403,
      "missing_permission",
      "Plugin media sources need the media:upload permission",
    );
  }
  return opened;
}

/** The page, its thumbnails' origins added to `img-src` (a plugin on a development origin). */
function sourcesPage(data: SourcesData, status = 200) {
  const origins = data.items.map((i) => new URL(i.thumbnail_url).origin);
  return page(data, {
    status,
    ...(origins.length > 0
      ? { headers: { "content-security-policy": cspAllowingImages(origins) } }
      : {}),
  });
}

async function browse(
  c: Context<AppEnv>,
  query: { source?: string; q?: string; cursor?: string },
  extra: Partial<SourcesData> = {},
): Promise<{ data: SourcesData; status: number }> {
  const { ctx, shell } = await open(c);
  const sctx = sourceContext(ctx);
  const sources = await listSources(sctx);
  const selected = sources.find((s) => sourceKey(s) === query.source) ??
    sources[0];
  const q = query.q?.trim().slice(0, 200) ?? "";
  const data: SourcesData = {
    shell,
    sources,
    selected: selected ? sourceKey(selected) : null,
    q,
    items: [],
    nextCursor: null,
    ...extra,
  };
  if (!selected) return { data, status: extra.error ? 422 : 200 };
  const listed = await listSourceItems(
    sctx,
    selected.installation_id,
    selected.source_id,
    {
      q: q || undefined,
      cursor: query.cursor?.slice(0, 500) || undefined,
    },
  );
  if (!listed.ok) {
    return {
      data: { ...data, error: data.error ?? saySourceRefusal(listed) },
      status: listed.status,
    };
  }
  return {
    data: { ...data, items: listed.items, nextCursor: listed.next_cursor },
    status: extra.error ? 422 : 200,
  };
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const url = new URL(c.req.url);
    const { data, status } = await browse(c, {
      source: url.searchParams.get("source") ?? undefined,
      q: url.searchParams.get("q") ?? undefined,
      cursor: url.searchParams.get("cursor") ?? undefined,
    });
    return sourcesPage(data, status);
  },

  async POST(c: Context<AppEnv>) {
    const { ctx } = await open(c);
    const form = await c.req.parseBody();
    const key = text(form.source);
    const [installationId = "", sourceId = ""] = key.split("/");
    const mode = text(form.mode);
    const itemId = text(form.item_id);
    if ((mode !== "copy" && mode !== "reference") || !itemId) {
      refuse(400, "invalid_request", "An import names an item and a mode");
    }
    const me = await personMedia(ctx.services, ctx.site.id, ctx.user.id);
    if (!me) refuse(403, "missing_permission", "No access to this site");
    const result = await importSourceItem(
      sourceContext(ctx),
      me.ctx,
      installationId,
      sourceId,
      { item_id: itemId.slice(0, 200), mode },
    );
    if (result.ok) {
      return c.redirect(`/admin/media?item=${result.item.id}`, 303);
    }
    const refused = "status" in result
      ? { error: saySourceRefusal(result as SourceRefusal) }
      : {
        error: result.code === "media_duplicate"
          ? "This item is already in the library: nothing was imported."
          : sayRefusal(result as MediaRefusal),
        existing: result.code === "media_duplicate"
          ? {
            id: (result.existing as MediaItem).id,
            fileName: (result.existing as MediaItem).file_name,
          }
          : undefined,
      };
    const { data } = await browse(c, { source: key }, refused);
    const status = "status" in result
      ? Number(result.status)
      : result.code === "media_duplicate"
      ? 409
      : 422;
    return sourcesPage(data, status);
  },
};

export default function MediaSources(props: PageProps<SourcesData>) {
  return <SourcesPage {...props} />;
}
