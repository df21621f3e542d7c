// Handlers of the media library routes over core/media/ (spec 2 parts 2.4, 4.2, 4.3).
import { readReach } from "../../access/decide.ts";
import { moveMedia as moveFiles } from "../../media/edit.ts";
import {
  deleteOriginal,
  putOriginal,
  readOriginals,
  replaceMedia as replaceFile,
  updateMedia as updateFile,
} from "../../media/edit.ts";
import {
  createFolder,
  listFolders,
  removeFolder,
  updateFolder,
} from "../../media/folders.ts";
import {
  findWrite,
  listMedia as listFiles,
  type MediaContext,
  readMediaRow,
  toItem,
} from "../../media/items.ts";
import { mediaStorageOf } from "../../media/storage_of.ts";
import {
  ALT_TEXT_MAX,
  altTextsFrom,
  apiUploadLimit,
  type MediaRefusal,
  uploadMedia as uploadFile,
} from "../../media/upload.ts";
import {
  provedRemoval,
  readUsage,
  removeMedia as removeFile,
} from "../../media/usage.ts";
import { pluginCallOf, pluginDownloadOf } from "../../plugins/calls.ts";
import {
  importSourceItem,
  listSourceItems,
  listSources,
  type SourceContext,
} from "../../plugins/media_sources.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/media.ts";
import { ERROR_STATUS } from "../contract/mod.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import { requireAllowed } from "./require.ts";

function mediaContext(ctx: ManageContext): MediaContext {
  return {
    db: ctx.services.db,
    storage: mediaStorageOf(ctx.services),
    imageLibrary: ctx.services.config.mediaImageLibrary,
    clock: ctx.services.clock,
    siteId: ctx.site.id,
    publicUrl: ctx.services.config.publicUrl,
    keyDigest: ctx.keyDigest,
  };
}

const MESSAGES: Record<string, string> = {
  not_found: "No such media item on this site",
  executable_file: "Programs and scripts are not accepted",
  unsupported_media_type: "This kind of file is not accepted",
  media_too_large: "The file is larger than this site accepts",
  media_format_not_enabled:
    "The site's media settings do not allow this format",
  media_kind_not_enabled:
    "The site's media settings do not allow this kind of file",
  media_duplicate:
    "The library already holds these exact bytes: send on_duplicate=use_existing or copy",
  media_edit_source_not_found: "No media item to take the edit from",
  media_folder_not_found: "No such media folder on this site",
  media_folder_exists:
    "A folder of this name is already there (letter case is ignored)",
  media_folder_cycle: "A folder cannot move below itself",
  media_folder_too_deep: "Folders nest at most 5 levels",
  media_folder_limit: "A site holds at most 500 folders",
  media_folder_changed: "The folder changed: read it again and resend the pins",
  media_framing_not_image: "Only images have a focal point",
  media_external_bytes_unavailable:
    "A linked external file has no bytes here to replace or edit",
  media_changed:
    "The original changed: read the originals again and resend expected_object_id",
  media_in_use: "Entries still use this file: remove it from them first",
  media_usage_unreadable:
    "Cannot tell which entries use this file, so it was kept: try again shortly",
  unknown_locale: "The site has no such language",
};

function refuseMedia(refusal: MediaRefusal): never {
  const { ok: _ok, code, ...details } = refusal;
  const status = (ERROR_STATUS as Record<string, number>)[code];
  if (status === undefined) {
    throw new Error(`Cannot map refusal "${code}" to a status`);
  }
  const detail = typeof details.detail === "string"
    ? `: ${details.detail}`
    : "";
  refuse(status as 400, code, `${MESSAGES[code] ?? code}${detail}`, details);
}

function canReadWith(ctx: ManageContext) {
  return (modelId: string) => readReach(ctx.authority, modelId) !== "none";
}

function optionalInt(value: string | undefined) {
  return value === undefined ? undefined : Number(value);
}

function parseAltTexts(
  value: string | undefined,
): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const parsed = altTextsFrom(value);
  if (parsed === null) {
    refuse(
      400,
      "invalid_request",
      "Invalid body.alt_texts: expected a JSON object of language to text",
      {
        issues: [{
          path: "body.alt_texts",
          message:
            `expected a JSON object of language to text (at most ${ALT_TEXT_MAX} characters)`,
        }],
      },
    );
  }
  return parsed;
}

async function proveItem(ctx: ManageContext) {
  const answer = await findWrite(ctx.services.db, ctx.site.id, ctx.keyDigest);
  return answer ? { body: answer as never } : null;
}

/** `list-media`. */
export const listMedia = defineHandler(contract.listMedia, {
  async run(ctx, { query }) {
    requireAllowed(ctx, { action: "media.read" });
    const page = await listFiles(mediaContext(ctx), {
      folder: query.folder_id,
      q: query.q,
      kind: query.kind,
      limit: query.limit,
      cursor: query.cursor,
    });
    if (!page) {
      refuse(
        400,
        "invalid_request",
        "Invalid query.cursor: use next_cursor unchanged",
      );
    }
    return { body: page };
  },
});

/** `upload-media`: bytes stored first, then the row with its answer in one transaction. */
export const uploadMedia = defineHandler(contract.uploadMedia, {
  async run(ctx, { body, file }) {
    requireAllowed(ctx, { action: "media.upload" });
    const result = await uploadFile(mediaContext(ctx), file!, {
      altTexts: parseAltTexts(body.alt_texts),
      width: optionalInt(body.width),
      height: optionalInt(body.height),
      aspectRatio: body.aspectRatio,
      onDuplicate: body.on_duplicate,
      folderId: body.folder_id === undefined
        ? undefined
        : body.folder_id || null,
      editedFrom: body.edited_from,
      limitBytes: apiUploadLimit(
        ctx.services.config.mediaRequestBodyLimitBytes,
      ),
    });
    if (!result.ok) refuseMedia(result);
    if (!result.created) {
      return { body: { ...result.item, reused: true as const }, status: 200 };
    }
    return { body: result.item };
  },
  async prove(ctx) {
    const answer = await findWrite(
      ctx.services.db,
      ctx.site.id,
      ctx.keyDigest,
    ) as
      | { item: contract.MediaItemAnswer }
      | null;
    return answer ? { body: answer.item } : null;
  },
});

function sourceContext(ctx: ManageContext): SourceContext {
  const { db, kv, clock } = ctx.services;
  return {
    db,
    kv,
    clock,
    call: pluginCallOf(ctx.services),
    download: pluginDownloadOf(ctx.services),
    siteId: ctx.site.id,
    userId: ctx.authority.personId,
    authority: ctx.authority,
    uploadLimitBytes: apiUploadLimit(
      ctx.services.config.mediaRequestBodyLimitBytes,
    ),
  };
}

/** `list-media-sources` (MED-035). */
export const listMediaSources = defineHandler(contract.listMediaSources, {
  async run(ctx) {
    requireAllowed(ctx, { action: "media.upload" });
    return { body: { data: await listSources(sourceContext(ctx)) } };
  },
});

/** `list-media-source-items` (MED-036): one page asked of the plugin. */
export const listMediaSourceItems = defineHandler(
  contract.listMediaSourceItems,
  {
    async run(ctx, { params, query }) {
      requireAllowed(ctx, { action: "media.upload" });
      const page = await listSourceItems(
        sourceContext(ctx),
        params.installationId,
        params.source,
        { q: query.q, cursor: query.cursor },
      );
      if (!page.ok) return refuse(page.status, page.code, page.message);
      return { body: { data: page.items, next_cursor: page.next_cursor } };
    },
  },
);

/** `import-media-source-item` (MED-037 to MED-039). */
export const importMediaSourceItem = defineHandler(
  contract.importMediaSourceItem,
  {
    async run(ctx, { params, body }) {
      requireAllowed(ctx, { action: "media.upload" });
      const result = await importSourceItem(
        sourceContext(ctx),
        mediaContext(ctx),
        params.installationId,
        params.source,
        {
          item_id: body.item_id,
          mode: body.mode,
          folder_id: body.folder_id,
          on_duplicate: body.on_duplicate,
          alt_texts: body.alt_texts,
        },
      );
      if (!result.ok) {
        if ("status" in result) {
          return refuse(
            result.status as 404,
            result.code,
            result.message as string,
          );
        }
        refuseMedia(result);
      }
      if (!result.created) {
        return {
          body: { ...result.item, reused: true as const },
          status: 200,
        };
      }
      return { body: result.item };
    },
    async prove(ctx) {
      const answer = await findWrite(
        ctx.services.db,
        ctx.site.id,
        ctx.keyDigest,
      ) as { item: contract.MediaItemAnswer } | null;
      return answer ? { body: answer.item } : null;
    },
  },
);

/** `list-media-folders`. */
export const listMediaFolders = defineHandler(contract.listMediaFolders, {
  async run(ctx) {
    requireAllowed(ctx, { action: "media.read" });
    return { body: await listFolders(ctx.services.db, ctx.site.id) };
  },
});

/** `create-media-folder`. */
export const createMediaFolder = defineHandler(contract.createMediaFolder, {
  async run(ctx, { body }) {
    requireAllowed(ctx, { action: "media.update" });
    const result = await createFolder(mediaContext(ctx), body);
    if (!result.ok) refuseMedia(result);
    return { body: result.folder };
  },
  prove: proveItem,
});

/** `update-media-folder`. */
export const updateMediaFolder = defineHandler(contract.updateMediaFolder, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "media.update" });
    const result = await updateFolder(mediaContext(ctx), params.id, body);
    if (!result.ok) refuseMedia(result);
    return { body: result.folder };
  },
  prove: proveItem,
});

/** `remove-media-folder`. */
export const removeMediaFolder = defineHandler(contract.removeMediaFolder, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "media.update" });
    const result = await removeFolder(mediaContext(ctx), params.id, body);
    if (!result.ok) refuseMedia(result);
    const { ok: _ok, ...answer } = result;
    return { body: answer };
  },
  async prove(ctx) {
    const answer = await findWrite(
      ctx.services.db,
      ctx.site.id,
      ctx.keyDigest,
    ) as
      | { ok: true; id: string; removed_folders: number; unfiled_media: number }
      | null;
    if (!answer) return null;
    const { ok: _ok, ...body } = answer;
    return { body };
  },
});

/** `move-media`. */
export const moveMedia = defineHandler(contract.moveMedia, {
  async run(ctx, { body }) {
    requireAllowed(ctx, { action: "media.update" });
    const result = await moveFiles(
      mediaContext(ctx),
      body.media_ids,
      body.folder_id,
    );
    if (!result.ok) refuseMedia(result);
    return { body: { moved: result.moved, folder_id: result.folder_id } };
  },
  prove: proveItem,
});

/** `get-media`. */
export const getMedia = defineHandler(contract.getMedia, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "media.read" });
    const row = await readMediaRow(ctx.services.db, ctx.site.id, params.id);
    if (!row) refuseMedia({ ok: false, code: "not_found" });
    return { body: toItem(ctx.services.config.publicUrl, row) };
  },
});

/** `get-media-usage`. */
export const getMediaUsage = defineHandler(contract.getMediaUsage, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "media.read" });
    const row = await readMediaRow(ctx.services.db, ctx.site.id, params.id);
    if (!row) refuseMedia({ ok: false, code: "not_found" });
    return {
      body: await readUsage(
        ctx.services.db,
        ctx.site.id,
        params.id,
        canReadWith(ctx),
      ),
    };
  },
});

/** `update-media`. */
export const updateMedia = defineHandler(contract.updateMedia, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "media.update" });
    const result = await updateFile(mediaContext(ctx), params.id, body);
    if (!result.ok) refuseMedia(result);
    return { body: result.item };
  },
  prove: proveItem,
});

/** `replace-media`. */
export const replaceMedia = defineHandler(contract.replaceMedia, {
  async run(ctx, { params, body, file }) {
    requireAllowed(ctx, { action: "media.update" });
    const result = await replaceFile(mediaContext(ctx), params.id, file!, {
      altTexts: parseAltTexts(body.alt_texts),
      width: optionalInt(body.width),
      height: optionalInt(body.height),
      aspectRatio: body.aspectRatio,
      limitBytes: apiUploadLimit(
        ctx.services.config.mediaRequestBodyLimitBytes,
      ),
    });
    if (!result.ok) refuseMedia(result);
    return { body: result.item };
  },
  prove: proveItem,
});

/** `get-media-originals`. */
export const getMediaOriginals = defineHandler(contract.getMediaOriginals, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "media.read" });
    const result = await readOriginals(mediaContext(ctx), params.id);
    if (!result.ok) refuseMedia(result);
    return { body: { media_id: result.media_id, data: result.data } };
  },
});

async function proveOriginals(
  ctx: ManageContext,
  input: { params: { id: string } },
) {
  if (!await findWrite(ctx.services.db, ctx.site.id, ctx.keyDigest)) {
    return null;
  }
  const result = await readOriginals(mediaContext(ctx), input.params.id);
  return result.ok
    ? { body: { media_id: result.media_id, data: result.data } }
    : null;
}

/** `put-media-original`. */
export const putMediaOriginal = defineHandler(contract.putMediaOriginal, {
  async run(ctx, { params, body, file }) {
    requireAllowed(ctx, { action: "media.update" });
    const result = await putOriginal(
      mediaContext(ctx),
      params.id,
      params.lang,
      file!,
      {
        expectedObjectId: body.expected_object_id,
        limitBytes: apiUploadLimit(
          ctx.services.config.mediaRequestBodyLimitBytes,
        ),
      },
    );
    if (!result.ok) refuseMedia(result);
    return { body: { media_id: result.media_id, data: result.data } };
  },
  prove: proveOriginals,
});

/** `delete-media-original`. */
export const deleteMediaOriginal = defineHandler(contract.deleteMediaOriginal, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "media.update" });
    const result = await deleteOriginal(
      mediaContext(ctx),
      params.id,
      params.lang,
      body.expected_object_id,
    );
    if (!result.ok) refuseMedia(result);
    return { body: { media_id: result.media_id, data: result.data } };
  },
  prove: proveOriginals,
});

/** `remove-media`. */
export const removeMedia = defineHandler(contract.removeMedia, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "media.delete" });
    const result = await removeFile(
      mediaContext(ctx),
      params.id,
      canReadWith(ctx),
    );
    if (!result.ok) refuseMedia(result);
    return { body: { id: result.id, storage_cleanup: result.storage_cleanup } };
  },
  async prove(ctx) {
    const answer = await findWrite(ctx.services.db, ctx.site.id, ctx.keyDigest);
    return answer
      ? { body: await provedRemoval(ctx.services.db, answer) }
      : null;
  },
});
