// Image facts a front end paints before the image arrives: a ThumbHash placeholder and the dominant colour.
import { rgbaToThumbHash } from "thumbhash";
import {
  dominantColour,
  type ImageInput,
  type ImageLibraryChoice,
  loadImageLibrary,
} from "./image_library.ts";
import type { MediaStorage } from "./storage.ts";
import { VARIANT_SOURCE_FORMATS } from "./variants.ts";
import type { WrittenFile } from "./write_checked.ts";

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
 * The facts of an image, or null for other files, formats no image library reads, or where none
 * can load (a missing placeholder never refuses an upload). The image has passed the upload's
 * pixel ceiling already; JPEGs shrink while they are decoded.
 */
export async function imageFacts(
  input: ImageInput,
  format: string,
  library: ImageLibraryChoice = "auto",
): Promise<ImageFacts | null> {
  if (!VARIANT_SOURCE_FORMATS.includes(format)) return null;
  const images = await loadImageLibrary(library);
  if (!images || !images.formats.includes(format)) return null;
  try {
    // ThumbHash encodes at most 100 × 100 pixels.
    const small = await images.small(input, 100);
    const hash = rgbaToThumbHash(small.width, small.height, small.rgba);
    const { r, g, b } = dominantColour(small.rgba);
    return {
      placeholder: base64(hash),
      dominant_color: `#${hex(r)}${hex(g)}${hex(b)}`,
    };
  } catch {
    return null;
  }
}

/**
 * The facts of an image just written to storage, read without gathering it in memory where the
 * library allows: sharp reads a local file by its path, and an object in a bucket is copied to
 * a temporary file first. Where no temporary file can be made (or for the WebAssembly codecs,
 * which decode from memory) the object is read back into memory once, bounded by the upload
 * limit.
 * `buffered` is the file when the caller holds it already.
 */
export async function storedImageFacts(
  ctx: { storage: MediaStorage; imageLibrary?: ImageLibraryChoice },
  written: WrittenFile,
  buffered: Uint8Array | null,
): Promise<ImageFacts | null> {
  const { format } = written.detected;
  if (!VARIANT_SOURCE_FORMATS.includes(format)) return null;
  const library = ctx.imageLibrary ?? "auto";
  if (buffered) return await imageFacts(buffered, format, library);
  const images = await loadImageLibrary(library);
  if (!images || !images.formats.includes(format)) return null;
  const local = ctx.storage.localPath?.(written.key);
  if (local) return await imageFacts({ path: local }, format, library);
  const stream = await ctx.storage.read(written.key);
  if (!stream) return null;
  if (images.name === "sharp") {
    let temp: string | null = null;
    try {
      temp = await Deno.makeTempFile({ prefix: "stave-facts-" });
    } catch {
      // No writable temporary directory on this host: read it into memory below.
    }
    if (temp) {
      try {
        const file = await Deno.open(temp, { write: true, truncate: true });
        await stream.pipeTo(file.writable);
        return await imageFacts({ path: temp }, format, library);
      } finally {
        await Deno.remove(temp).catch(() => {});
      }
    }
  }
  const bytes = new Uint8Array(written.byteLength);
  let at = 0;
  for await (const chunk of stream) {
    bytes.set(chunk.subarray(0, bytes.length - at), at);
    at += chunk.length;
    if (at >= bytes.length) break;
  }
  return await imageFacts(bytes, format, library);
}
