// This module is browser compatible.
// Constants of the model system that browser code (the rich-text editor) needs without zod.

/** Media kinds a media field or media block may name. */
export const MEDIA_KINDS = [
  "image",
  "document",
  "audio",
  "video",
  "file",
] as const;

/** Ids of models, fields, entries and media. */
export const UUID =
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
