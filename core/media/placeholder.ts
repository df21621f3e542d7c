// Image facts a front end paints before the image arrives: a ThumbHash placeholder and the dominant colour.
import { rgbaToThumbHash } from "thumbhash";
import { loadSharp, VARIANT_SOURCE_FORMATS } from "./variants.ts";

/** A library image's placeholder facts. */
export interface ImageFacts {
  /** ThumbHash of the image (base64, about 25 to 35 characters). */
  placeholder: string;
  /** The dominant colour, `#rrggbb`. */
  dominant_color: string;
}

const hex = (n: number) => n.toString(16).padStart(2, "0");

function base64(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}

/**
 * The facts of an image's bytes, or null for other files, formats sharp cannot read, or where
 * sharp cannot load (a missing placeholder never refuses an upload). The bytes have passed the
 * upload's pixel ceiling already; JPEGs shrink while they are decoded.
 */
export async function imageFacts(
  bytes: Uint8Array,
  format: string,
): Promise<ImageFacts | null> {
  if (!VARIANT_SOURCE_FORMATS.includes(format)) return null;
  const sharp = await loadSharp();
  if (!sharp) return null;
  try {
    // ThumbHash encodes at most 100 × 100 pixels.
    const { data, info } = await sharp(bytes, { pages: 1 }).rotate()
      .resize(100, 100, { fit: "inside" }).ensureAlpha().raw()
      .toBuffer({ resolveWithObject: true });
    const hash = rgbaToThumbHash(info.width, info.height, data);
    const { dominant } = await sharp(data, {
      raw: { width: info.width, height: info.height, channels: 4 },
    }).stats();
    return {
      placeholder: base64(hash),
      dominant_color: `#${hex(dominant.r)}${hex(dominant.g)}${hex(dominant.b)}`,
    };
  } catch {
    return null;
  }
}
