// Contract of the media library routes (spec 2 parts 2.4, 4.2, 4.3): files, originals, usage, folders, move.
import { z } from "zod";
import { languageCode } from "./languages.ts";
import { operation } from "./operation.ts";
import { altTexts, KINDS, mediaItem } from "./media_item.ts";
import {
  importMediaSourceItem,
  listMediaSourceItems,
  listMediaSources,
} from "./media_sources.ts";

export { mediaItem, type MediaItemAnswer } from "./media_item.ts";
export {
  importMediaSourceItem,
  listMediaSourceItems,
  listMediaSources,
} from "./media_sources.ts";

/** Largest multipart body of an upload: the 32 MiB file plus room for the other parts. */
export const MEDIA_UPLOAD_BODY_LIMIT = 32 * 1024 * 1024 + 64 * 1024;

const idParams = z.strictObject({ id: z.uuid() });

/** Text parts of an upload: each a string in the multipart body, read as these types. */
const uploadParts = z.strictObject({
  alt_texts: z.string().optional().describe(
    'JSON object of language to text, e.g. {"en":"A red door"}',
  ),
  width: z.string().regex(/^[1-9][0-9]{0,5}$/).optional().describe(
    "Used only when the file's header has no dimensions",
  ),
  height: z.string().regex(/^[1-9][0-9]{0,5}$/).optional(),
  aspectRatio: z.string().regex(/^[1-9][0-9]{0,5}[:/][1-9][0-9]{0,5}$/)
    .optional(),
  on_duplicate: z.enum(["ask", "use_existing", "copy"]).optional(),
  folder_id: z.uuid().or(z.literal("")).optional().describe(
    "A folder, or empty for Unfiled",
  ),
  edited_from: z.uuid().optional(),
});

/** `GET /media`. */
export const listMedia = operation({
  name: "list-media",
  method: "GET",
  path: "/media",
  summary: "List the site's media library, newest first",
  tag: "media",
  scope: "content:read",
  key: null,
  status: 200,
  query: z.strictObject({
    folder_id: z.uuid().or(z.literal("unfiled")).optional(),
    q: z.string().min(1).max(200).optional(),
    kind: z.enum(KINDS).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    cursor: z.string().max(200).optional(),
  }),
  answer: z.strictObject({
    data: z.array(mediaItem),
    next_cursor: z.string().nullable(),
  }),
});

/** `POST /media`. */
export const uploadMedia = operation({
  name: "upload-media",
  method: "POST",
  path: "/media",
  summary:
    "Upload a file (multipart: file plus optional alt_texts, width, height, aspectRatio, on_duplicate, folder_id, edited_from)",
  tag: "media",
  scope: "media:write",
  key: { retention: "short", settle: "prove" },
  status: 201,
  alsoStatus: {
    status: 200,
    when:
      "on_duplicate=use_existing found the same bytes: the stored file, with reused: true",
  },
  multipart: { file: "file" },
  tooLargeCode: "media_too_large",
  bodyLimit: MEDIA_UPLOAD_BODY_LIMIT,
  body: uploadParts,
  answer: mediaItem.extend({
    reused: z.literal(true).optional().describe(
      "on_duplicate=use_existing found the same bytes (status 200)",
    ),
    replayed: z.literal(true).optional(),
  }),
  errors: [
    "executable_file",
    "unsupported_media_type",
    "media_too_large",
    "media_format_not_enabled",
    "media_kind_not_enabled",
    "media_duplicate",
    "media_edit_source_not_found",
    "media_folder_not_found",
    "unknown_locale",
  ],
});

/** `GET /media/folders`. */
const folder = z.strictObject({
  id: z.uuid(),
  parent_id: z.uuid().nullable(),
  name: z.string(),
  revision: z.int().min(1),
  depth: z.int().min(1).max(5),
  media_count: z.int().min(0),
  subtree_folder_count: z.int().min(0),
  subtree_media_count: z.int().min(0),
  created_at: z.string(),
  updated_at: z.string(),
});

export const listMediaFolders = operation({
  name: "list-media-folders",
  method: "GET",
  path: "/media/folders",
  summary:
    "The folder tree depth first, with Unfiled, the total and the limits",
  tag: "media",
  scope: "content:read",
  key: null,
  status: 200,
  answer: z.strictObject({
    data: z.array(folder),
    unfiled: z.int().min(0),
    total: z.int().min(0),
    limits: z.strictObject({
      max_depth: z.int(),
      max_folders: z.int(),
      name_min: z.int(),
      name_max: z.int(),
    }),
  }),
});

const folderName = z.string().trim().min(1).max(80);

/** `POST /media/folders`. */
export const createMediaFolder = operation({
  name: "create-media-folder",
  method: "POST",
  path: "/media/folders",
  summary: "Create a folder (top level or under parent_id)",
  tag: "media",
  scope: "media:write",
  key: { retention: "short", settle: "prove" },
  status: 201,
  body: z.strictObject({
    name: folderName,
    parent_id: z.uuid().nullable().default(null),
  }),
  answer: folder.extend({ replayed: z.literal(true).optional() }),
  errors: [
    "media_folder_exists",
    "media_folder_too_deep",
    "media_folder_limit",
    "media_folder_not_found",
  ],
});

const folderParams = z.strictObject({ id: z.uuid() });

/** `PUT /media/folders/{id}`. */
export const updateMediaFolder = operation({
  name: "update-media-folder",
  method: "PUT",
  path: "/media/folders/{id}",
  summary: "Rename or move a folder pinned to its revision",
  tag: "media",
  scope: "media:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: folderParams,
  body: z.strictObject({
    expected_revision: z.int().min(1),
    name: folderName.optional(),
    parent_id: z.uuid().nullable().optional(),
  }).refine((b) => b.name !== undefined || b.parent_id !== undefined, {
    message: "name or parent_id is required",
  }),
  answer: folder.extend({ replayed: z.literal(true).optional() }),
  errors: [
    "media_folder_exists",
    "media_folder_cycle",
    "media_folder_too_deep",
    "media_folder_not_found",
    "media_folder_changed",
  ],
});

/** `POST /media/folders/{id}/remove`. */
export const removeMediaFolder = operation({
  name: "remove-media-folder",
  method: "POST",
  path: "/media/folders/{id}/remove",
  summary:
    "Delete a folder and the folders below it; their files become Unfiled",
  tag: "media",
  scope: "media:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: folderParams,
  body: z.strictObject({
    expected_revision: z.int().min(1),
    expected_folders: z.int().min(0).describe("subtree_folder_count as read"),
    expected_media: z.int().min(0).describe("subtree_media_count as read"),
  }),
  answer: z.strictObject({
    id: z.uuid(),
    removed_folders: z.int().min(1),
    unfiled_media: z.int().min(0),
    replayed: z.literal(true).optional(),
  }),
  errors: ["media_folder_not_found", "media_folder_changed"],
});

/** `POST /media/move`. */
export const moveMedia = operation({
  name: "move-media",
  method: "POST",
  path: "/media/move",
  summary:
    "Move 1 to 200 files to one folder, or to Unfiled with folder_id null",
  tag: "media",
  scope: "media:write",
  key: { retention: "long", settle: "prove" },
  status: 200,
  body: z.strictObject({
    media_ids: z.array(z.uuid()).min(1).max(200),
    folder_id: z.uuid().nullable(),
  }),
  answer: z.strictObject({
    moved: z.int().min(1),
    folder_id: z.uuid().nullable(),
    replayed: z.literal(true).optional(),
  }),
  errors: ["media_folder_not_found", "not_found"],
});

/** `GET /media/{id}`. */
export const getMedia = operation({
  name: "get-media",
  method: "GET",
  path: "/media/{id}",
  summary: "Read one media item",
  tag: "media",
  scope: "content:read",
  key: null,
  status: 200,
  params: idParams,
  answer: mediaItem,
  errors: ["not_found"],
});

const usage = z.strictObject({
  used_by: z.array(z.strictObject({
    entry_id: z.uuid(),
    group_id: z.uuid(),
    model_id: z.string(),
    locale: z.string(),
    slug: z.string(),
  })).max(50),
  hidden: z.int().min(0),
  at_least: z.int().min(0),
  total: z.int().min(0).nullable(),
  more: z.boolean(),
  unreadable: z.boolean(),
});

/** `GET /media/{id}/usage`. */
export const getMediaUsage = operation({
  name: "get-media-usage",
  method: "GET",
  path: "/media/{id}/usage",
  summary: "Entries using a file (at most 50 the credential may read)",
  tag: "media",
  scope: "content:read",
  key: null,
  status: 200,
  params: idParams,
  answer: usage,
  errors: ["not_found"],
});

/** `PUT /media/{id}`. */
export const updateMedia = operation({
  name: "update-media",
  method: "PUT",
  path: "/media/{id}",
  summary:
    "Change alt_texts, default_focal, loading or fetch_priority; file, dimensions and address never change",
  tag: "media",
  scope: "media:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: idParams,
  body: z.strictObject({
    alt_texts: altTexts.optional().describe(
      "Omitted languages keep their text; an empty string clears one",
    ),
    default_focal: mediaItem.shape.default_focal.optional(),
    loading: z.enum(["eager", "lazy"]).optional(),
    fetch_priority: z.enum(["high", "low", "auto"]).optional(),
  }).refine(
    (b) => Object.values(b).some((v) => v !== undefined),
    {
      message:
        "at least one of alt_texts, default_focal, loading, fetch_priority is required",
    },
  ),
  answer: mediaItem.extend({ replayed: z.literal(true).optional() }),
  errors: [
    "not_found",
    "media_framing_not_image",
    "media_external_bytes_unavailable",
    "unknown_locale",
  ],
});

/** `POST /media/{id}/replace`. */
export const replaceMedia = operation({
  name: "replace-media",
  method: "POST",
  path: "/media/{id}/replace",
  summary:
    "Replace a file's bytes keeping its id, references, folder, tags, credit and framing",
  tag: "media",
  scope: "media:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: idParams,
  multipart: { file: "file" },
  tooLargeCode: "media_too_large",
  bodyLimit: MEDIA_UPLOAD_BODY_LIMIT,
  body: uploadParts.pick({
    alt_texts: true,
    width: true,
    height: true,
    aspectRatio: true,
  }),
  answer: mediaItem.extend({ replayed: z.literal(true).optional() }),
  errors: [
    "not_found",
    "executable_file",
    "unsupported_media_type",
    "media_too_large",
    "media_format_not_enabled",
    "media_kind_not_enabled",
    "media_external_bytes_unavailable",
    "unknown_locale",
  ],
});

const original = z.strictObject({
  lang: z.string(),
  override: z.boolean().describe("This language has its own file"),
  served_from: z.string().nullable().describe(
    "Language whose override is served; null: the default original",
  ),
  object_id: z.uuid(),
  url: z.string().nullable(),
  mime_type: z.string(),
  byte_length: z.int().min(0),
  width: z.int().nullable(),
  height: z.int().nullable(),
});
const originalsAnswer = z.strictObject({
  media_id: z.uuid(),
  data: z.array(original),
  replayed: z.literal(true).optional(),
});
const langParams = z.strictObject({ id: z.uuid(), lang: languageCode });

/** `GET /media/{id}/originals`. */
export const getMediaOriginals = operation({
  name: "get-media-originals",
  method: "GET",
  path: "/media/{id}/originals",
  summary:
    "Each language's original: its override, else the fallback's, else the default",
  tag: "media",
  scope: "content:read",
  key: null,
  status: 200,
  params: idParams,
  answer: originalsAnswer,
  errors: ["not_found"],
});

/** `PUT /media/{id}/originals/{lang}`. */
export const putMediaOriginal = operation({
  name: "put-media-original",
  method: "PUT",
  path: "/media/{id}/originals/{lang}",
  summary:
    "Set one language's original (multipart file and expected_object_id; empty string creates the first override)",
  tag: "media",
  scope: "media:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: langParams,
  multipart: { file: "file" },
  tooLargeCode: "media_too_large",
  bodyLimit: MEDIA_UPLOAD_BODY_LIMIT,
  body: z.strictObject({
    expected_object_id: z.uuid().or(z.literal("")),
  }),
  answer: originalsAnswer,
  errors: [
    "not_found",
    "media_changed",
    "executable_file",
    "unsupported_media_type",
    "media_too_large",
    "media_format_not_enabled",
    "media_kind_not_enabled",
    "media_external_bytes_unavailable",
    "unknown_locale",
  ],
});

/** `DELETE /media/{id}/originals/{lang}`. */
export const deleteMediaOriginal = operation({
  name: "delete-media-original",
  method: "DELETE",
  path: "/media/{id}/originals/{lang}",
  summary:
    "Remove one language's override; that language then follows its fallback",
  tag: "media",
  scope: "media:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: langParams,
  body: z.strictObject({ expected_object_id: z.uuid() }),
  answer: originalsAnswer,
  errors: ["not_found", "media_changed"],
});

/** `POST /media/{id}/remove`. */
export const removeMedia = operation({
  name: "remove-media",
  method: "POST",
  path: "/media/{id}/remove",
  summary:
    "Delete a file nothing references; storage_cleanup says whether its bytes are gone",
  tag: "media",
  scope: "media:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: idParams,
  answer: z.strictObject({
    id: z.uuid(),
    storage_cleanup: z.enum(["complete", "pending"]),
    replayed: z.literal(true).optional(),
  }),
  errors: ["not_found", "media_in_use", "media_usage_unreadable"],
});

/** Every media operation, in the order of the docs. */
export const MEDIA_OPERATIONS = [
  listMedia,
  uploadMedia,
  listMediaSources,
  listMediaSourceItems,
  importMediaSourceItem,
  listMediaFolders,
  createMediaFolder,
  updateMediaFolder,
  removeMediaFolder,
  moveMedia,
  getMedia,
  getMediaUsage,
  updateMedia,
  replaceMedia,
  getMediaOriginals,
  putMediaOriginal,
  deleteMediaOriginal,
  removeMedia,
] as const;
