// Contract of the plugin media sources seen from the library: listing sources and their items,
// and importing one as a copy or a reference.
import { z } from "zod";
import { altTexts, mediaItem } from "./media_item.ts";
import { operation } from "./operation.ts";

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
  alsoStatus: {
    status: 200,
    when:
      "on_duplicate=use_existing found the same file or item: the stored file, with reused: true",
  },
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
