// A media reference as public answers carry it (core/public/media_expand.ts `PublicMedia`), as a
// public document component: every answer the tests see is checked against it, and the
// JavaScript client's `Media` type is generated from it.
import type { Json } from "../openapi/components.ts";
import { ref } from "./openapi_public_routes.ts";

const nullable = (type: string, extra: Json = {}): Json => ({
  type: [type, "null"],
  ...extra,
});

/** The library item's public fields, in the served language. */
export const MEDIA: Json = {
  type: "object",
  description:
    "A media library item as a media field, a gallery or rich text shows it, in the served language",
  properties: {
    id: { type: "string", format: "uuid" },
    kind: {
      type: "string",
      description: "image, video, audio, document or other",
    },
    url: {
      type: "string",
      description:
        "The original's delivery address (the language's own original when it has one); images take variant parameters",
    },
    mime_type: { type: "string" },
    file_name: { type: "string" },
    byte_length: { type: "integer", minimum: 0 },
    width: nullable("integer"),
    height: nullable("integer"),
    aspect_ratio: nullable("string"),
    alt: nullable("string", {
      description:
        "Alt text in the served language, else along its fallback chain; null when none",
    }),
    focal: {
      anyOf: [{
        type: "object",
        properties: { x: { type: "number" }, y: { type: "number" } },
        required: ["x", "y"],
      }, { type: "null" }],
    },
    loading: { enum: ["eager", "lazy"] },
    fetch_priority: { enum: ["high", "low", "auto"] },
    placeholder: nullable("string", {
      description:
        "An image's ThumbHash (base64), to paint before the image arrives; null for other kinds",
    }),
    dominant_color: nullable("string", {
      description:
        "An image's dominant colour, `#rrggbb`; null for other kinds",
    }),
  },
  required: [
    "id",
    "kind",
    "url",
    "mime_type",
    "file_name",
    "byte_length",
    "width",
    "height",
    "aspect_ratio",
    "alt",
    "focal",
    "loading",
    "fetch_priority",
    "placeholder",
    "dominant_color",
  ],
};

/** An item's `media` by field key: one item or none for a media field, a list for the others. */
export const ITEM_MEDIA: Json = {
  type: "object",
  description:
    "Media values by field key: a media field's item (null when empty or removed), a gallery's or a rich-text field's items in order",
  additionalProperties: {
    anyOf: [ref("Media"), { type: "array", items: ref("Media") }, {
      type: "null",
    }],
  },
};
