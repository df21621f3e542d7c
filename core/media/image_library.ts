// The one interface variants and placeholders use to decode and encode images: sharp, or WebAssembly codecs where sharp cannot load.
import type { VariantFit, VariantFormat } from "./variant_params.ts";

/** Which library makes images (`MEDIA_IMAGE_LIBRARY`). */
export type ImageLibraryChoice = "auto" | "sharp" | "wasm" | "none";

/** The settings `MEDIA_IMAGE_LIBRARY` accepts. */
export const IMAGE_LIBRARY_CHOICES: readonly ImageLibraryChoice[] = [
  "auto",
  "sharp",
  "wasm",
  "none",
];

/** An image to read: bytes in memory, or a local file a native library reads itself. */
export type ImageInput = Uint8Array | { path: string };

/** What an image's header says, read without decoding a pixel. */
export interface ImageHeader {
  width: number;
  height: number;
  /** EXIF orientation, 1 to 8 (1 when the image has none). */
  orientation: number;
}

/** The crop box of a cover variant (see `coverBox` in variants.ts). */
export interface CoverBox {
  resize: { width: number; height: number };
  extract: { left: number; top: number; width: number; height: number };
}

/** One variant to encode; the header was checked against the pixel ceiling already. */
export interface RenderRequest {
  format: VariantFormat;
  quality: number;
  /** Pixel ceiling, told to decoders that take one. */
  maxPixels: number;
  /** A crop to both sides around the focal point, or null. */
  cover: CoverBox | null;
  /** A resize that keeps the whole image (never enlarging), or null for none. */
  fit: { width: number | null; height: number | null; fit: VariantFit } | null;
}

/** A small upright copy of an image, 4 channels a pixel (for ThumbHash and the dominant colour). */
export interface SmallImage {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** Thrown by a library when an image has more pixels than the ceiling it was told. */
export class TooManyPixels extends Error {
  override name = "TooManyPixels";
}

/** What both image libraries do, with the same results up to encoder noise. */
export interface ImageLibrary {
  readonly name: "sharp" | "wasm";
  /** Source formats it decodes (format names as the upload detector gives them). */
  readonly formats: readonly string[];
  /**
   * Most pixels it decodes, when lower than the upload ceiling: a larger image is sent as the
   * original (307) rather than refused, since another instance with sharp can make it.
   */
  readonly maxPixels?: number;
  /** The header, or null when the bytes are not an image the library reads. */
  header(input: Uint8Array): Promise<ImageHeader | null>;
  /**
   * Encodes a variant: first frame of an animation, EXIF orientation applied, metadata dropped,
   * JPEG flattened on white. Throws {@link TooManyPixels} or, for damaged bytes, any error.
   */
  render(input: Uint8Array, request: RenderRequest): Promise<Uint8Array>;
  /** The image upright and fitted inside `size` × `size` (ThumbHash takes at most 100). */
  small(input: ImageInput, size: number): Promise<SmallImage>;
}

const loaded = new Map<string, Promise<ImageLibrary | null>>();
const chosenListeners: ((library: ImageLibrary | null) => void)[] = [];

/**
 * The image library for `choice`, loaded once per process on first use (sharp is about 15 MiB
 * of a process that may never make an image): `auto` is sharp, or the WebAssembly codecs where
 * sharp's native add-on cannot load (Deno Deploy); `sharp` and `wasm` force one (null when it
 * cannot load); `none` makes no images (variant URLs redirect to the original).
 */
export function loadImageLibrary(
  choice: ImageLibraryChoice = "auto",
): Promise<ImageLibrary | null> {
  let found = loaded.get(choice);
  if (!found) {
    found = pick(choice);
    loaded.set(choice, found);
    found.then((library) => {
      for (const listener of chosenListeners) listener(library);
    }, () => {});
  }
  return found;
}

/** Calls `listener` with each library {@link loadImageLibrary} settles on (the service logs it). */
export function onImageLibraryChosen(
  listener: (library: ImageLibrary | null) => void,
): void {
  chosenListeners.push(listener);
}

/**
 * Settles once every library asked for so far has loaded or failed: exiting while sharp's native
 * library is still loading can hang the process (seen when listening failed right after start).
 */
export async function imageLibrariesSettled(): Promise<void> {
  await Promise.allSettled(loaded.values());
}

async function pick(choice: ImageLibraryChoice): Promise<ImageLibrary | null> {
  if (choice === "none") return null;
  if (choice !== "wasm") {
    const { sharpLibrary } = await import("./sharp_library.ts");
    const sharp = await sharpLibrary();
    if (sharp || choice === "sharp") return sharp;
  }
  const { wasmLibrary } = await import("./wasm_library.ts");
  return await wasmLibrary();
}

/**
 * The dominant colour of RGBA pixels as sharp's `stats().dominant` finds it: the fullest cell
 * of a 16 × 16 × 16 histogram (alpha ignored), reported as the cell's centre.
 */
export function dominantColour(
  rgba: Uint8Array,
): { r: number; g: number; b: number } {
  const counts = new Uint32Array(4096);
  for (let i = 0; i + 3 < rgba.length; i += 4) {
    counts[
      ((rgba[i] >> 4) << 8) | ((rgba[i + 1] >> 4) << 4) |
      (rgba[i + 2] >> 4)
    ] += 1;
  }
  let best = 0;
  let r = 0, g = 0, b = 0;
  // libvips' maxpos scans the histogram image row (green) by row, column (red) by column.
  for (let gi = 0; gi < 16; gi++) {
    for (let ri = 0; ri < 16; ri++) {
      for (let bi = 0; bi < 16; bi++) {
        const n = counts[(ri << 8) | (gi << 4) | bi];
        if (n > best) {
          best = n;
          r = ri;
          g = gi;
          b = bi;
        }
      }
    }
  }
  return { r: r * 16 + 8, g: g * 16 + 8, b: b * 16 + 8 };
}
