// Image variants of private rich-text media: `thumb` and `preview`, asked for with
// `&variant=` on the files route. The backend never resizes: it serves the variant the service
// built, copied into PRIVATE_FILES_DIR beside the original.
//
// The service serves the same two variants of an image as presets of its media address,
// `/media/<site>/<object id>.<format>?preset=thumb|preview` (200 px square crop, 800 px wide).
// Copy each one to PRIVATE_FILES_DIR as `<object id>.<name>.<its own format>`;
// `variantCandidates()` is the one place that names those files.

/** The variant names a request may ask for. */
export const MEDIA_VARIANTS = ["thumb", "preview"] as const;

/** One variant name. */
export type MediaVariant = typeof MEDIA_VARIANTS[number];

/** True for a variant name this backend serves. */
export function isMediaVariant(value: string): value is MediaVariant {
  return (MEDIA_VARIANTS as readonly string[]).includes(value);
}

/** The formats a variant may have been built in, most likely first. */
const VARIANT_FORMATS = ["webp", "avif", "jpg", "jpeg", "png", "gif"];

/**
 * The file names the variant of the stored object `objectName` (`<object id>.<format>`) may
 * have in the private files folder, in the order they are tried.
 */
export function variantCandidates(
  objectName: string,
  variant: MediaVariant,
): string[] {
  const stem = objectName.slice(0, objectName.lastIndexOf("."));
  return VARIANT_FORMATS.map((format) => `${stem}.${variant}.${format}`);
}
