// GET/POST /admin/media: the media library — folders, search, upload, alt texts, focal point, replace, usage, remove.
import type { Context } from "hono";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import { MAX_IMAGE_PIXELS } from "../../../core/media/pixel_ceiling.ts";
import { personMedia } from "../../../core/media/admin_access.ts";
import {
  moveMedia,
  replaceMedia,
  updateMedia,
} from "../../../core/media/edit.ts";
import { createFolder, listFolders } from "../../../core/media/folders.ts";
import {
  listMedia,
  type MediaItem,
  readMediaRow,
  toItem,
} from "../../../core/media/items.ts";
import {
  type MediaRefusal,
  type StreamedFile,
  uploadMedia,
} from "../../../core/media/upload.ts";
import { readUsage, removeMedia } from "../../../core/media/usage.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { HttpError, refuse } from "../../../core/web/errors.ts";
import { formParts, FormUnreadable } from "../../../core/web/streamed_form.ts";
import {
  page,
  type PageProps,
  type PageResult,
  type RouteConfig,
} from "../../../core/web/manifest.ts";
import { type LibraryData, LibraryPage } from "./_view.tsx";
import { openAdminPage } from "../_shell.tsx";

export const middleware = requireSignedIn;

/**
 * Uploads stream: the body is counted while it passes, never gathered, and bounded by the
 * plan's upload limit plus room for the other fields (MED-013); each file is bounded by the
 * limit itself while it is stored.
 */
export const config: RouteConfig = {
  bodyLimit: (settings) =>
    settings.mediaRequestBodyLimitBytes + ADMIN_FORM_OVERHEAD_BYTES,
  streamsBody: true,
  tooLargeCode: "media_too_large",
};
const ADMIN_FORM_OVERHEAD_BYTES = 64 * 1024;

/** Largest file the admin accepts: the site's media setting caps it further (spec 2 part 8). */

async function person(c: Context<AppEnv>) {
  const found = await personMedia(
    c.var.services,
    c.var.site.id,
    c.var.user!.id,
  );
  if (!found) refuse(403, "missing_permission", "No access to this site");
  return found;
}

/** Sentences for people, by refusal code. */
export function sayRefusal(refusal: MediaRefusal): string {
  switch (refusal.code) {
    case "executable_file":
      return "Programs and scripts cannot be uploaded.";
    case "unsupported_media_type":
      return refusal.reason === "markup"
        ? "SVG, HTML and XML files cannot be uploaded: they can carry script."
        : refusal.reason === "empty"
        ? "The file is empty."
        : refusal.reason === "damaged"
        ? "The image is damaged or cut short: export it again and retry."
        : refusal.reason === "too_many_pixels"
        ? `The image has more than ${
          MAX_IMAGE_PIXELS / 1_000_000
        } megapixels: scale it down and retry.`
        : refusal.reason === "kind_changed"
        ? `A file can only be replaced by one of the same kind: ${refusal.detail}.`
        : "This kind of file is not accepted.";
    case "media_too_large":
      return `The file is too large: this site accepts up to ${
        Math.floor(Number(refusal.limit_bytes) / 1_000_000)
      } MB.`;
    case "media_kind_not_enabled":
      return `This site does not accept ${refusal.kind} files (Settings → Media files).`;
    case "media_format_not_enabled":
      return `This site does not accept .${refusal.format} files (Settings → Media files).`;
    case "media_usage_unreadable":
      return "The file was kept: the entries that use it could not be read just now. Try again shortly.";
    case "media_in_use": {
      const usage = refusal.usage as { at_least: number; hidden: number };
      return `This file cannot be removed: ${usage.at_least} ${
        usage.at_least === 1 ? "entry uses" : "entries use"
      } it${
        usage.hidden > 0 ? ` (${usage.hidden} you cannot open)` : ""
      }. Remove it from them first, or replace the file instead.`;
    }
    case "media_framing_not_image":
      return "Only images have a focal point.";
    case "media_folder_exists":
      return "A folder of this name is already there (letter case is ignored).";
    case "media_folder_too_deep":
      return "Folders nest at most 5 levels.";
    case "media_folder_limit":
      return "A site holds at most 500 folders.";
    case "media_folder_not_found":
      return "That folder no longer exists.";
    case "unknown_locale":
      return "That language is not one of the site's languages.";
    case "missing_permission":
      return "Your role does not allow this: ask an administrator.";
    case "media_changed":
      return "The file changed meanwhile: reload the page and try again.";
    case "not_found":
      return "That file no longer exists.";
    default:
      return `That did not work (${refusal.code}).`;
  }
}

async function pageData(
  c: Context<AppEnv>,
  extra: Partial<LibraryData> = {},
  /** The file a refused form was about, so its panel (and usage) shows with the refusal. */
  formItem?: string,
): Promise<LibraryData> {
  const me = await person(c);
  const url = new URL(c.req.url);
  const folderParam = url.searchParams.get("folder") ?? undefined;
  const q = url.searchParams.get("q")?.trim() || undefined;
  const itemId = formItem || url.searchParams.get("item");
  const folders = await listFolders(me.ctx.db, me.ctx.siteId);
  const folder = folderParam === "unfiled"
    ? "unfiled"
    : folders.data.find((f) => f.id === folderParam)?.id;
  const page = await listMedia(me.ctx, {
    folder,
    q: q?.slice(0, 200),
    limit: 60,
    cursor: url.searchParams.get("cursor") ?? undefined,
  });
  let selected: LibraryData["selected"] = null;
  if (itemId && /^[0-9a-f-]{36}$/.test(itemId)) {
    const row = await readMediaRow(me.ctx.db, me.ctx.siteId, itemId);
    if (row) {
      selected = {
        item: toItem(me.ctx.publicUrl, row),
        usage: await readUsage(me.ctx.db, me.ctx.siteId, row.id, me.canRead),
      };
    }
  }
  const { shell } = await openAdminPage(c, [
    { label: "Media", href: "/admin/media" },
    ...(selected ? [{ label: selected.item.file_name }] : []),
  ]);
  return {
    shell,
    title: "Media library",
    csrfToken: c.var.csrfToken,
    languages: c.var.site.languages,
    folders: folders.data,
    unfiled: folders.unfiled,
    folder: folder ?? null,
    q: q ?? "",
    items: page?.data ?? [],
    nextCursor: page?.next_cursor ?? null,
    selected,
    may: me.may,
    ...extra,
  };
}

function back(c: Context<AppEnv>, itemId?: string) {
  const url = new URL(c.req.url);
  const params = new URLSearchParams();
  const folder = url.searchParams.get("folder");
  if (folder) params.set("folder", folder);
  if (itemId) params.set("item", itemId);
  const query = params.toString();
  return c.redirect(`/admin/media${query ? `?${query}` : ""}`, 303);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** What the handler answers: a response, or the page with data. */
type Answer = Response | PageResult;

/** A form's fields as the handler reads them (text; the files are read as they stream in). */
type FormFields = Record<string, unknown>;

/** The answer to a refused command: JSON for the page's script, else the page with the sentence. */
async function failed(
  c: Context<AppEnv>,
  refusal: MediaRefusal,
  status: number,
  itemId: string,
) {
  if (wantsJson(c)) {
    const { ok: _ok, ...details } = refusal;
    return c.json(
      { error: { ...details, message: sayRefusal(refusal) } },
      status as 422,
    );
  }
  return page(await pageData(c, { error: sayRefusal(refusal) }, itemId), {
    status,
  });
}

function wantsJson(c: Context<AppEnv>) {
  return (c.req.header("accept") ?? "").includes("application/json");
}

/** The status of a refused file: 413 for one over the limit, as the API answers it. */
function statusOf(refusal: MediaRefusal): number {
  return refusal.code === "media_duplicate"
    ? 409
    : refusal.code === "media_too_large"
    ? 413
    : 422;
}

const EMPTY_FILE: MediaRefusal = {
  ok: false,
  code: "unsupported_media_type",
  reason: "empty",
};

/**
 * Adds one file of an upload form as it streams in (MED-013: the admin streams up to the plan
 * limit): a Response ends the form (a refusal, or the script's one-file answer), an item lets
 * the next file follow.
 */
async function uploadOne(
  c: Context<AppEnv>,
  me: Awaited<ReturnType<typeof person>>,
  form: FormFields,
  file: StreamedFile,
): Promise<Answer | MediaItem> {
  if (!me.may.upload) {
    await file.stream.cancel();
    return await failed(c, { ok: false, code: "missing_permission" }, 403, "");
  }
  const onDuplicate =
    ["ask", "use_existing", "copy"].includes(text(form.on_duplicate))
      ? text(form.on_duplicate) as "ask"
      : "ask";
  const result = await uploadMedia(me.ctx, file, {
    onDuplicate,
    folderId: text(form.folder_id) || null,
    limitBytes: c.var.services.config.mediaRequestBodyLimitBytes,
  });
  if (!result.ok) {
    if (result.code === "media_duplicate" && !wantsJson(c)) {
      return page(
        await pageData(c, {
          duplicate: {
            fileName: file.fileName,
            existing: result.existing as MediaItem,
            copies: Number(result.copy_count),
          },
        }),
        { status: 409 },
      );
    }
    return await failed(c, result, statusOf(result), "");
  }
  if (wantsJson(c)) {
    return c.json(
      { item: result.item, reused: !result.created },
      result.created ? 201 : 200,
    );
  }
  return result.item;
}

/** Replaces an item's file as it streams in. */
async function replaceOne(
  c: Context<AppEnv>,
  me: Awaited<ReturnType<typeof person>>,
  form: FormFields,
  file: StreamedFile | null,
): Promise<Answer> {
  const itemId = text(form.id);
  if (!/^[0-9a-f-]{36}$/.test(itemId)) {
    await file?.stream.cancel();
    refuse(404, "not_found", "No such file");
  }
  if (!me.may.update) {
    await file?.stream.cancel();
    return await failed(
      c,
      { ok: false, code: "missing_permission" },
      403,
      itemId,
    );
  }
  if (!file) return await failed(c, EMPTY_FILE, 400, itemId);
  const replaced = await replaceMedia(me.ctx, itemId, file, {
    limitBytes: c.var.services.config.mediaRequestBodyLimitBytes,
  });
  if (!replaced.ok) {
    return await failed(c, replaced, statusOf(replaced), itemId);
  }
  return back(c, itemId);
}

/**
 * A multipart post, read part by part: the fields before a file (the forms put `_csrf`,
 * `action` and the choices first) decide what the file is for, and the file goes to storage
 * while it arrives. Fields after the last file are read for the commands without a file.
 */
async function streamedPost(
  c: Context<AppEnv>,
  me: Awaited<ReturnType<typeof person>>,
): Promise<Answer> {
  const form: FormFields = {};
  let uploaded = 0;
  let last: MediaItem | null = null;
  try {
    for await (
      const part of formParts(
        c.req.raw.body!,
        c.req.header("content-type") ?? "",
      )
    ) {
      if (part.kind === "field") {
        form[part.name] = part.value;
        continue;
      }
      // A file input left empty still sends a part, with no name and no bytes.
      if (part.fileName === "" || part.name !== "file") {
        await part.stream.cancel();
        continue;
      }
      const file = { stream: part.stream, fileName: part.fileName };
      const action = text(form.action);
      if (action === "replace") return await replaceOne(c, me, form, file);
      if (action !== "upload") {
        await part.stream.cancel();
        continue;
      }
      const answer = await uploadOne(c, me, form, file);
      if (!("id" in answer)) return answer;
      uploaded += 1;
      last = answer;
    }
  } catch (error) {
    if (error instanceof FormUnreadable) {
      refuse(400, "invalid_request", "The form could not be read");
    }
    // The body went over the route's limit while a file was being stored (nothing was kept).
    if (error instanceof HttpError && error.code === "media_too_large") {
      return await failed(
        c,
        {
          ok: false,
          code: "media_too_large",
          limit_bytes: c.var.services.config.mediaRequestBodyLimitBytes,
        },
        413,
        "",
      );
    }
    throw error;
  }
  const action = text(form.action);
  if (action === "upload") {
    if (!me.may.upload) {
      return await failed(
        c,
        { ok: false, code: "missing_permission" },
        403,
        "",
      );
    }
    if (uploaded === 0) return await failed(c, EMPTY_FILE, 400, "");
    return back(c, last?.id);
  }
  if (action === "replace") return await replaceOne(c, me, form, null);
  return await command(c, me, form);
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    return page(await pageData(c));
  },

  async POST(c: Context<AppEnv>) {
    const me = await person(c);
    const type = (c.req.header("content-type") ?? "").toLowerCase();
    if (type.startsWith("multipart/form-data") && c.req.raw.body) {
      return await streamedPost(c, me);
    }
    const form = await c.req.parseBody({ all: true });
    const action = text(form.action);
    if (action === "upload") {
      // A form without a multipart body carries no file.
      return await failed(c, EMPTY_FILE, 400, "");
    }
    if (action === "replace") return await replaceOne(c, me, form, null);
    return await command(c, me, form);
  },
};

/** The commands without a file: folders, alt texts, framing, moving and removing. */
async function command(
  c: Context<AppEnv>,
  me: Awaited<ReturnType<typeof person>>,
  form: FormFields,
): Promise<Answer> {
  const action = text(form.action);
  const itemId = text(form.id);
  const fail = (refusal: MediaRefusal, status = 422) =>
    failed(c, refusal, status, itemId);
  if (action === "folder") {
    if (!me.may.update) {
      return await fail({ ok: false, code: "missing_permission" }, 403);
    }
    const name = text(form.name).trim();
    if (name.length < 1 || name.length > 80) {
      return page(
        await pageData(c, { error: "A folder name has 1 to 80 characters." }),
        { status: 400 },
      );
    }
    const created = await createFolder(me.ctx, {
      name,
      parent_id: text(form.parent_id) || null,
    });
    if (!created.ok) return await fail(created, 409);
    return c.redirect(`/admin/media?folder=${created.folder.id}`, 303);
  }
  if (!/^[0-9a-f-]{36}$/.test(itemId)) {
    refuse(404, "not_found", "No such file");
  }
  if (action === "alt" || action === "framing") {
    if (!me.may.update) {
      return await fail({ ok: false, code: "missing_permission" }, 403);
    }
    const changes: Parameters<typeof updateMedia>[2] = {};
    if (action === "alt") {
      changes.alt_texts = Object.fromEntries(
        c.var.site.languages.map((
          lang,
        ) => [lang, text(form[`alt_${lang}`]).slice(0, 1000)]),
      );
    } else {
      const x = text(form.focal_x);
      const y = text(form.focal_y);
      if (x !== "" || y !== "") {
        const fx = Number(x);
        const fy = Number(y);
        if (
          !(fx >= 0 && fx <= 1 && fy >= 0 && fy <= 1) || x === "" || y === ""
        ) {
          return page(
            await pageData(c, {
              error: "The focal point needs both values, each from 0 to 1.",
            }),
            {
              status: 400,
            },
          );
        }
        changes.default_focal = { x: fx, y: fy };
      } else if (text(form.kind) === "image") {
        changes.default_focal = null;
      }
      const loading = text(form.loading);
      if (loading === "eager" || loading === "lazy") {
        changes.loading = loading;
      }
      const priority = text(form.fetch_priority);
      if (priority === "high" || priority === "low" || priority === "auto") {
        changes.fetch_priority = priority;
      }
    }
    const updated = await updateMedia(me.ctx, itemId, changes);
    if (!updated.ok) {
      return await fail(
        updated,
        updated.code === "media_framing_not_image" ? 400 : 422,
      );
    }
    return back(c, itemId);
  }
  if (action === "move") {
    if (!me.may.update) {
      return await fail({ ok: false, code: "missing_permission" }, 403);
    }
    const moved = await moveMedia(
      me.ctx,
      [itemId],
      text(form.folder_id) || null,
    );
    if (!moved.ok) return await fail(moved, 404);
    return back(c, itemId);
  }
  if (action === "remove") {
    if (!me.may.delete) {
      return await fail({ ok: false, code: "missing_permission" }, 403);
    }
    const removed = await removeMedia(me.ctx, itemId, me.canRead);
    if (!removed.ok) {
      return await fail(
        removed,
        removed.code === "media_in_use"
          ? 409
          : removed.code === "media_usage_unreadable"
          ? 503
          : 404,
      );
    }
    return back(c);
  }
  refuse(400, "invalid_request", "Unknown action");
}

export default function MediaLibrary(props: PageProps<LibraryData>) {
  return <LibraryPage {...props} />;
}
