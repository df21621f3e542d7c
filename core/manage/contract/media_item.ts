// The media library item as the Management API answers it, and the alt texts a write takes:
// shared by the library's routes and the plugin media sources' import route.
import { z } from "zod";
import { languageCode } from "./languages.ts";

export const KINDS = ["image", "document", "audio", "video", "file"] as const;
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

/** Alt texts by language, as a write takes them. */
export const altTexts = z.record(languageCode, z.string().max(1000));

/** A media item as answered (the type of {@link mediaItem}). */
export type MediaItemAnswer = z.input<typeof mediaItem>;
