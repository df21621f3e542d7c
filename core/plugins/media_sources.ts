// Plugin media sources (spec 1 parts 2.1, 5.11; spec 2 part 2.4; MED-035 to MED-040): the
// sources installed plugins offer, a page of a source's items asked of the plugin with the
// closed invocation envelope (the plugin exchanges the code, so it knows who asks and what), and
// an import: `copy` downloads the file through the guarded fetch into the library's one upload
// service; `reference` stores no bytes, only the delivery URL and which item it is.
import { isId } from "../entries/store.ts";
import { sql } from "kysely";
import type { Authority } from "../access/authority.ts";
import { decide } from "../access/decide.ts";
import { sha256Hex } from "../auth/secrets.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import {
  type MediaContext,
  type MediaItem,
  type MediaRow,
  recordWrite,
  toItem,
} from "../media/items.ts";
import {
  cleanFileName,
  folderExists,
  siteLanguages,
  unknownLanguages,
  uploadMedia,
  type UploadResult,
} from "../media/upload.ts";
import { type MediaSourceAnswer, parseMediaSourceAnswer } from "./answers.ts";
import type { PluginCall, PluginDownload } from "./calls.ts";
import { queueMediaNotifications } from "./notifications.ts";
import {
  type Installation,
  installationOf,
  listInstallationRows,
  readInstallation,
} from "./installation_store.ts";
import {
  answerJsonOrNothing,
  delegatedCapabilities,
  judgeExchange,
  sendInvocation,
} from "./invocations.ts";
import { LIMITS } from "./protocol.ts";
import type { ManifestMediaSource } from "./manifest.ts";

/** One source as `GET /media/sources` lists it (MED-035). */
export interface ListedSource {
  installation_id: string;
  plugin_id: string;
  plugin_name: string;
  source_id: string;
  label: string;
  description: string | null;
  modes: ("copy" | "reference")[];
}

/** Who asks, with what. */
export interface SourceContext {
  db: Db;
  kv: Deno.Kv;
  clock: Clock;
  call: PluginCall;
  download: PluginDownload;
  siteId: string;
  userId: string;
  authority: Authority;
  /** Largest file a copy may be: {@link apiUploadLimit} of the plan limit. */
  uploadLimitBytes: number;
}

/** A refusal by name with the status the API answers. */
export interface SourceRefusal {
  ok: false;
  status: 404 | 422 | 502 | 504;
  code: string;
  message: string;
}

function refusal(
  status: SourceRefusal["status"],
  code: string,
  message: string,
): SourceRefusal {
  return { ok: false, status, code, message };
}

const UNAVAILABLE = refusal(
  404,
  "media_source_unavailable",
  "No such media source is available: the plugin is missing, disabled or not granted media:source",
);

/** True while the installation is active, granted `media:source`, and the caller may upload. */
function offers(installation: Installation, authority: Authority): boolean {
  return installation.state === "active" &&
    installation.capabilities.includes("media:source") &&
    (delegatedCapabilities(authority.scopes)?.includes("media:source") ??
      true) &&
    decide(authority, { action: "media.upload" }).ok;
}

/** Every source the caller may use now, in installation then declaration order. */
export async function listSources(ctx: SourceContext): Promise<ListedSource[]> {
  const installations = (await listInstallationRows(ctx.db, ctx.siteId)).map(
    installationOf,
  ).filter((i) => offers(i, ctx.authority));
  return installations.flatMap((i) =>
    i.manifest.media_sources.map((s) => ({
      installation_id: i.id,
      plugin_id: i.pluginId,
      plugin_name: i.name,
      source_id: s.id,
      label: s.label,
      description: s.description ?? null,
      modes: [...s.modes],
    }))
  );
}

async function sourceOf(
  ctx: SourceContext,
  installationId: string,
  sourceId: string,
): Promise<
  { installation: Installation; source: ManifestMediaSource } | SourceRefusal
> {
  const row = isId(installationId)
    ? await readInstallation(ctx.db, ctx.siteId, installationId)
    : undefined;
  if (!row) return UNAVAILABLE;
  const installation = installationOf(row);
  const source = installation.manifest.media_sources.find((s) =>
    s.id === sourceId
  );
  if (!source || !offers(installation, ctx.authority)) return UNAVAILABLE;
  return { installation, source };
}

/** What one call asks of a source: a page (`q`, `cursor`) or one item (`item_id`). */
interface SourceRequest {
  q: string | null;
  cursor: string | null;
  item_id: string | null;
}

/**
 * Asks the plugin for a page of the source: the closed envelope through the guarded fetch; the
 * plugin exchanges its code (learning the request and the person) before it answers, and the
 * answer is accepted only after that exchange, parsed closed, with every URL on its origin.
 */
async function askSource(
  ctx: SourceContext,
  installation: Installation,
  source: ManifestMediaSource,
  request: SourceRequest,
): Promise<{ ok: true; page: MediaSourceAnswer } | SourceRefusal> {
  const { invocationId, sentBytes, answered } = await sendInvocation(
    {
      db: ctx.db,
      kv: ctx.kv,
      clock: ctx.clock,
      call: ctx.call,
      siteId: ctx.siteId,
      caller: { userId: ctx.userId, via: "session", authority: ctx.authority },
    },
    installation,
    {
      operationId: `media-source:${source.id}`,
      scope: "site",
      url: source.url,
      groupId: null,
      modelId: null,
      instanceId: null,
      input: {},
      mediaSource: { id: source.id, ...request },
    },
  );
  const finish = (outcome: string) =>
    ctx.db.updateTable("plugin_invocations").set({
      status: outcome === "completed" ? "completed" : "failed",
      outcome,
      finished_at: ctx.clock.now(),
    }).where("id", "=", invocationId).execute();
  if (!answered.ok) {
    await finish(answered.code);
    return answered.code === "plugin_timeout"
      ? refusal(
        504,
        "plugin_timeout",
        "The media source did not answer in time",
      )
      : refusal(
        502,
        "plugin_unreachable",
        "The media source could not be reached",
      );
  }
  const json = answerJsonOrNothing(answered);
  const judged = await judgeExchange(
    ctx.db,
    invocationId,
    sentBytes,
    answered.body.byteLength,
  );
  const parsed = answered.status >= 200 && answered.status < 300
    ? parseMediaSourceAnswer(json, {
      manifestOrigin: new URL(installation.manifest.base_url).origin,
      source,
    })
    : null;
  if (
    !parsed || !parsed.ok || !judged.exchanged || !judged.withinBytes
  ) {
    await finish("plugin_response_invalid");
    return refusal(
      502,
      "plugin_response_invalid",
      !judged.exchanged
        ? "The media source answered without exchanging the invocation"
        : !judged.withinBytes
        ? `The request, exchange and answer together exceed ${LIMITS.invocation.max_bytes} bytes`
        : "The media source's answer is not a valid page",
    );
  }
  await finish("completed");
  return { ok: true, page: parsed.answer };
}

/** A source item as the API lists it (MED-036). */
export interface ListedItem {
  id: string;
  title: string;
  file_name: string;
  type: string | null;
  size: number | null;
  width: number | null;
  height: number | null;
  thumbnail_url: string;
  attribution: { plugin_id: string; source_id: string; alt: string | null };
  modes: ("copy" | "reference")[];
}

function fileNameOf(item: MediaSourceAnswer["items"][number]): string {
  const url = item.download_url ?? item.delivery_url ?? item.thumbnail_url;
  const last = new URL(url).pathname.split("/").pop() ?? "";
  return decodeURIComponent(last) || item.title;
}

/** `GET /media/sources/{installation}/{source}/items`: one page of at most 24. */
export async function listSourceItems(
  ctx: SourceContext,
  installationId: string,
  sourceId: string,
  options: { q?: string; cursor?: string },
): Promise<
  { ok: true; items: ListedItem[]; next_cursor: string | null } | SourceRefusal
> {
  const found = await sourceOf(ctx, installationId, sourceId);
  if ("ok" in found) return found;
  const asked = await askSource(ctx, found.installation, found.source, {
    q: options.q ?? null,
    cursor: options.cursor ?? null,
    item_id: null,
  });
  if (!asked.ok) return asked;
  return {
    ok: true,
    items: asked.page.items.map((item) => ({
      id: item.id,
      title: item.title,
      file_name: fileNameOf(item),
      type: item.mime_type ?? null,
      size: item.bytes ?? null,
      width: item.width ?? null,
      height: item.height ?? null,
      thumbnail_url: item.thumbnail_url,
      attribution: {
        plugin_id: found.installation.pluginId,
        source_id: sourceId,
        alt: item.alt ?? null,
      },
      modes: [
        ...(item.download_url ? ["copy" as const] : []),
        ...(item.delivery_url ? ["reference" as const] : []),
      ],
    })),
    next_cursor: asked.page.next_cursor,
  };
}

/** What an import takes (MED-037). */
export interface ImportRequest {
  item_id: string;
  mode: "copy" | "reference";
  folder_id?: string | null;
  on_duplicate?: "ask" | "use_existing" | "copy";
  alt_texts?: Record<string, string>;
}

/**
 * `POST …/import`: the mode is required and must be one the source declares
 * (`media_source_mode_unsupported`). `copy` downloads the item (20 s and the file limit) and
 * adds it as any upload is added, every check included; `reference` downloads nothing and
 * stores the delivery URL and the item's identity (the same item twice is `media_duplicate`).
 */
export async function importSourceItem(
  ctx: SourceContext,
  media: MediaContext,
  installationId: string,
  sourceId: string,
  request: ImportRequest,
): Promise<UploadResult | SourceRefusal> {
  const found = await sourceOf(ctx, installationId, sourceId);
  if ("ok" in found) return found;
  const { installation, source } = found;
  if (!source.modes.includes(request.mode)) {
    return refusal(
      422,
      "media_source_mode_unsupported",
      `The source offers ${source.modes.join(" and ")}, not ${request.mode}`,
    );
  }
  const asked = await askSource(ctx, installation, source, {
    q: null,
    cursor: null,
    item_id: request.item_id,
  });
  if (!asked.ok) return asked;
  const item = asked.page.items.find((i) => i.id === request.item_id);
  const url = request.mode === "copy" ? item?.download_url : item?.delivery_url;
  if (!item || !url) {
    return refusal(
      404,
      "media_source_unavailable",
      `The source has no item "${
        request.item_id.slice(0, 200)
      }" to ${request.mode}`,
    );
  }
  const attribution = {
    plugin_id: installation.pluginId,
    source_id: source.id,
    item_id: item.id,
    title: item.title,
  };
  if (request.mode === "copy") {
    const downloaded = await ctx.download({
      url,
      method: "GET",
      purpose: "media_download",
    }, { maxBytes: ctx.uploadLimitBytes });
    if (!downloaded.ok || downloaded.status < 200 || downloaded.status > 299) {
      if (downloaded.ok) await downloaded.body?.cancel();
      return refusal(
        502,
        "media_source_file_unreachable",
        "The source's file could not be downloaded",
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await new Response(downloaded.body).arrayBuffer());
    } catch {
      return refusal(
        502,
        "media_source_file_unreachable",
        "The source's file could not be read to its end within the limits",
      );
    }
    return await uploadMedia(media, { bytes, fileName: fileNameOf(item) }, {
      altTexts: request.alt_texts ??
        (item.alt ? { [await firstLanguage(media)]: item.alt } : undefined),
      folderId: request.folder_id,
      onDuplicate: request.on_duplicate,
      limitBytes: ctx.uploadLimitBytes,
      alsoRecord: async (tx, stored) => {
        await tx.updateTable("media_files").set({
          attribution: JSON.stringify(attribution),
        }).where("site_id", "=", media.siteId).where("id", "=", stored.id)
          .execute();
        stored.attribution = attribution;
      },
    });
  }
  return await referenceItem(media, {
    installation,
    sourceId: source.id,
    item,
    url,
    attribution,
    request,
  });
}

/** The site's first language: where a source's one alt text goes when none is given. */
async function firstLanguage(media: MediaContext): Promise<string> {
  return (await siteLanguages(media))[0] ?? "en";
}

function kindOf(type: string | undefined): MediaRow["kind"] {
  const top = (type ?? "").split("/")[0];
  return top === "image" || top === "audio" || top === "video"
    ? top
    : type === "application/pdf"
    ? "document"
    : "file";
}

async function referenceItem(
  media: MediaContext,
  options: {
    installation: Installation;
    sourceId: string;
    item: MediaSourceAnswer["items"][number];
    url: string;
    attribution: Record<string, unknown>;
    request: ImportRequest;
  },
): Promise<UploadResult> {
  const { installation, item, request } = options;
  const identity = {
    installation_id: installation.id,
    plugin_id: installation.pluginId,
    source_id: options.sourceId,
    item_id: item.id,
  };
  const unknown = await unknownLanguages(media, request.alt_texts);
  if (unknown.length > 0) {
    return { ok: false, code: "unknown_locale", languages: unknown };
  }
  if (!await folderExists(media, request.folder_id)) {
    return {
      ok: false,
      code: "media_folder_not_found",
      folder_id: request.folder_id,
    };
  }
  const same = await media.db.selectFrom("media_files").selectAll()
    .where("site_id", "=", media.siteId)
    .where(
      sql<
        boolean
      >`external_source->>'installation_id' = ${identity.installation_id}
      and external_source->>'source_id' = ${identity.source_id}
      and external_source->>'item_id' = ${identity.item_id}`,
    )
    .executeTakeFirst() as MediaRow | undefined;
  if (same) {
    const existing = toItem(media.publicUrl, same);
    // A reference is one row per item: a second one would be the same file twice.
    if ((request.on_duplicate ?? "ask") !== "use_existing") {
      return { ok: false, code: "media_duplicate", existing, copy_count: 1 };
    }
    return { ok: true, created: false, item: existing, reused: true };
  }
  const now = media.clock.now();
  const id = crypto.randomUUID();
  const format =
    (item.mime_type ?? "").split("/")[1]?.replace(/[^a-z0-9]/g, "") ||
    "bin";
  const row: MediaRow = {
    id,
    site_id: media.siteId,
    folder_id: request.folder_id ?? null,
    kind: kindOf(item.mime_type),
    object_id: crypto.randomUUID(),
    storage_key: "",
    // The library's rule for display names, as a copy import gets it through uploadMedia().
    file_name: cleanFileName(fileNameOf(item), format),
    mime_type: item.mime_type ?? "application/octet-stream",
    format,
    byte_length: item.bytes ?? 0,
    width: item.width ?? null,
    height: item.height ?? null,
    aspect_ratio: null,
    digest: await sha256Hex(JSON.stringify(identity)),
    alt_texts: request.alt_texts ??
      (item.alt ? { [await firstLanguage(media)]: item.alt } : {}),
    default_focal: null,
    loading: "lazy",
    fetch_priority: "auto",
    tags: [],
    credit: null,
    attribution: options.attribution,
    external: true,
    external_url: options.url,
    external_source: identity,
    edited_from: null,
    revision: 1,
    created_at: now,
    updated_at: now,
    // A reference's bytes live on the plugin's origin: nothing here to make a placeholder of.
    placeholder: null,
    dominant_color: null,
  };
  const stored: MediaItem = toItem(media.publicUrl, row);
  await media.db.transaction().execute(async (tx) => {
    await tx.insertInto("media_files").values({
      ...row,
      alt_texts: JSON.stringify(row.alt_texts),
      default_focal: null,
      tags: JSON.stringify(row.tags),
      attribution: JSON.stringify(row.attribution),
      external_source: JSON.stringify(identity),
    }).execute();
    await recordWrite(tx, media, { created: true, item: stored });
    await queueMediaNotifications(tx, media.siteId, [stored.id], {
      deleted: false,
      now,
    });
  });
  return { ok: true, created: true, item: stored };
}
