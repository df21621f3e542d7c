// Contract of the media library routes (spec 2 parts 2.4, 4.2, 4.3): files, originals, usage, folders, move.
import { z } from "zod";
import { languageCode } from "./languages.ts";
import { operation } from "./operation.ts";

/** Largest multipart body of an upload: the 32 MiB file plus room for the other parts. */
export const MEDIA_UPLOAD_BODY_LIMIT = 32 * 1024 * 1024 + 64 * 1024;

const KINDS = ["image", "document", "audio", "video", "file"] as const;
const focal = z.strictObject({
  x: z.number().min(0).max(1),
  y: z.number().min(0).max(1),
}).describe("Fractions of the image, 0 to 1 from the top left");

/** A library item (spec 2 part 2.4). */
export const mediaItem = z.strictObject({
  id: z.uuid(),
  kind: z.enum(KINDS),
  folder_id: z.uuid().nullable().describe("null: Unfiled"),
  file_name: z.string(),
  mime_type: z.string().describe("Read from the bytes, never from the name"),
  format: z.string().describe("png, jpg, pdf, mp4, txt, bin, …"),
  byte_length: z.int().min(0),
  width: z.int().nullable(),
  height: z.int().nullable(),
  aspect_ratio: z.string().nullable(),
  digest: z.string().describe("SHA-256 of the bytes (hex)"),
  object_id: z.uuid().describe("The stored bytes; a replace changes it"),
  url: z.string().nullable().describe(
    "Public delivery address; null for a private original",
  ),
  alt_texts: z.record(z.string(), z.string()),
  default_focal: focal.nullable(),
  loading: z.enum(["eager", "lazy"]),
  fetch_priority: z.enum(["high", "low", "auto"]),
  tags: z.array(z.string()),
  credit: z.string().nullable(),
  attribution: z.unknown().describe("null for files not added from a source"),
  external: z.boolean().describe("true for reference imports"),
  external_source: z.strictObject({
    installation_id: z.uuid(),
    plugin_id: z.string(),
    source_id: z.string(),
    item_id: z.string(),
  }).optional().describe(
    "A reference import only: the plugin, source and item it stands for",
  ),
  edited_from: z.uuid().nullable(),
  placeholder: z.string().nullable().describe(
    "An image's ThumbHash (base64), decoded by the thumbhash library into a blurred preview; null for other kinds",
  ),
  dominant_color: z.string().nullable().describe(
    "An image's dominant colour as #rrggbb; null for other kinds",
  ),
  revision: z.int().min(1),
  created_at: z.string(),
  updated_at: z.string(),
});

const idParams = z.strictObject({ id: z.uuid() });
const altTexts = z.record(languageCode, z.string().max(1000));

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
    default_focal: focal.nullable().optional(),
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

/** `GET /media/sources` (MED-035). */
export const listMediaSources = operation({
  name: "list-media-sources",
  method: "GET",
  path: "/media/sources",
  summary:
    "List the media sources of installed plugins this credential may import from",
  tag: "media",
  scope: "media:write",
  key: null,
  status: 200,
  answer: z.strictObject({
    data: z.array(z.strictObject({
      installation_id: z.uuid(),
      plugin_id: z.string(),
      plugin_name: z.string(),
      source_id: z.string(),
      label: z.string(),
      description: z.string().nullable(),
      modes: z.array(z.enum(["copy", "reference"])),
    })),
  }),
});

const sourceParams = z.strictObject({
  installationId: z.uuid(),
  source: z.string().min(1).max(64).describe("The source's id in its manifest"),
});

/** `GET /media/sources/{installationId}/{source}/items` (MED-036). */
export const listMediaSourceItems = operation({
  name: "list-media-source-items",
  method: "GET",
  path: "/media/sources/{installationId}/{source}/items",
  summary:
    "One page (at most 24) of a media source's items, asked of its plugin",
  tag: "media",
  scope: "media:write",
  key: null,
  status: 200,
  params: sourceParams,
  query: z.strictObject({
    q: z.string().min(1).max(200).optional(),
    cursor: z.string().min(1).max(500).optional().describe(
      "next_cursor of the page before, unchanged",
    ),
  }),
  answer: z.strictObject({
    data: z.array(z.strictObject({
      id: z.string(),
      title: z.string(),
      file_name: z.string(),
      type: z.string().nullable(),
      size: z.int().nullable(),
      width: z.int().nullable(),
      height: z.int().nullable(),
      thumbnail_url: z.string(),
      attribution: z.strictObject({
        plugin_id: z.string(),
        source_id: z.string(),
        alt: z.string().nullable(),
      }),
      modes: z.array(z.enum(["copy", "reference"])),
    })),
    next_cursor: z.string().nullable(),
  }),
  errors: [
    "media_source_unavailable",
    "plugin_unreachable",
    "plugin_timeout",
    "plugin_response_invalid",
  ],
});

/** `POST /media/sources/{installationId}/{source}/import` (MED-037 to MED-039). */
export const importMediaSourceItem = operation({
  name: "import-media-source-item",
  method: "POST",
  path: "/media/sources/{installationId}/{source}/import",
  summary:
    "Import a source's item: copy downloads and checks it like an upload; reference stores its delivery URL only",
  tag: "media",
  scope: "media:write",
  key: { retention: "short", settle: "prove" },
  status: 201,
  params: sourceParams,
  body: z.strictObject({
    item_id: z.string().min(1).max(200),
    mode: z.enum(["copy", "reference"]).describe(
      "Required: one of the source's modes, never inferred",
    ),
    folder_id: z.uuid().nullable().optional(),
    on_duplicate: z.enum(["ask", "use_existing", "copy"]).optional(),
    alt_texts: altTexts.optional(),
  }),
  answer: mediaItem.extend({
    reused: z.literal(true).optional().describe(
      "on_duplicate=use_existing found the same file or item (status 200)",
    ),
    replayed: z.literal(true).optional(),
  }),
  errors: [
    "media_source_unavailable",
    "media_source_mode_unsupported",
    "media_source_file_unreachable",
    "plugin_unreachable",
    "plugin_timeout",
    "plugin_response_invalid",
    "executable_file",
    "unsupported_media_type",
    "media_too_large",
    "media_format_not_enabled",
    "media_kind_not_enabled",
    "media_duplicate",
    "media_folder_not_found",
    "unknown_locale",
  ],
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

/** A media item as answered (the type of {@link mediaItem}). */
export type MediaItemAnswer = z.input<typeof mediaItem>;
