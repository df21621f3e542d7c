// The image library where sharp's native add-on cannot load (Deno Deploy): the Squoosh codecs compiled to WebAssembly (@jsquash).
import { imageSize } from "image-size";
import {
  type ImageHeader,
  type ImageInput,
  type ImageLibrary,
  type RenderRequest,
  type SmallImage,
} from "./image_library.ts";
import { crop, fitBox, flatten, orient, pad, type Pixels } from "./pixels.ts";

/** Source formats these codecs decode (no GIF or TIFF decoder: those keep the 307 to the original). */
export const WASM_SOURCE_FORMATS: readonly string[] = [
  "png",
  "jpg",
  "webp",
  "avif",
];

/**
 * Most pixels the WebAssembly codecs decode: 25 megapixels is 100 MB of RGBA, and a variant
 * holds the decoded image and a resized copy at once inside one isolate (Deno Deploy gives an
 * isolate 512 MB). Larger images are sent as the original.
 */
export const WASM_MAX_PIXELS = 25_000_000;

/** An animated WebP: a VP8X chunk with the animation flag (the codec decodes stills only). */
function animatedWebp(bytes: Uint8Array): boolean {
  return bytes.length > 20 && bytes[12] === 0x56 && bytes[13] === 0x50 &&
    bytes[14] === 0x38 && bytes[15] === 0x58 && (bytes[20] & 0x02) !== 0;
}

function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes.buffer as ArrayBuffer
    : bytes.slice().buffer as ArrayBuffer;
}

/** Decodes the whole image to RGBA, upright; each codec is loaded on first use. */
async function decode(
  bytes: Uint8Array,
  header: ImageHeader & { format: string },
): Promise<Pixels> {
  const buffer = arrayBufferOf(bytes);
  let image: ImageData | null;
  switch (header.format) {
    case "jpg":
      image = await (await import("@jsquash/jpeg")).decode(buffer);
      break;
    case "png":
      image = await (await import("@jsquash/png")).decode(buffer);
      break;
    case "webp":
      image = await (await import("@jsquash/webp")).decode(buffer);
      break;
    case "avif":
      image = await (await import("@jsquash/avif")).decode(buffer);
      break;
    default:
      throw new Error(`Cannot decode format "${header.format}" in WebAssembly`);
  }
  if (!image) throw new Error("The image could not be decoded");
  return orient(
    { width: image.width, height: image.height, data: image.data },
    header.orientation,
  );
}

async function resized(
  image: Pixels,
  width: number,
  height: number,
): Promise<Pixels> {
  if (width === image.width && height === image.height) return image;
  const resize = (await import("@jsquash/resize")).default;
  // The resizer reads its input's whole buffer: hand it pixels that own theirs.
  const { data } = image;
  const own =
    data.byteOffset === 0 && data.byteLength === data.buffer.byteLength
      ? data
      : data.slice();
  const out = await resize(
    new ImageData(own, image.width, image.height),
    { width, height, method: "lanczos3", fitMethod: "stretch" },
  );
  return { width: out.width, height: out.height, data: out.data };
}

function headerOf(
  bytes: Uint8Array,
): (ImageHeader & { format: string }) | null {
  try {
    const size = imageSize(bytes);
    if (!size.width || !size.height) return null;
    return {
      width: size.width,
      height: size.height,
      orientation: size.orientation ?? 1,
      format: size.type ?? "",
    };
  } catch {
    return null;
  }
}

/** A header this library can decode, or an error naming why not. */
function decodable(bytes: Uint8Array): ImageHeader & { format: string } {
  const header = headerOf(bytes);
  if (!header) throw new Error("The image header could not be read");
  if (!WASM_SOURCE_FORMATS.includes(header.format) || animatedWebp(bytes)) {
    throw new Error(`Cannot decode format "${header.format}" in WebAssembly`);
  }
  if (header.width * header.height > WASM_MAX_PIXELS) {
    throw new Error(
      `Cannot decode ${header.width} × ${header.height} pixels in WebAssembly: over ${WASM_MAX_PIXELS}`,
    );
  }
  return header;
}

async function encode(image: Pixels, request: RenderRequest) {
  const data = new ImageData(image.data, image.width, image.height);
  switch (request.format) {
    case "jpeg":
      return await (await import("@jsquash/jpeg")).encode(data, {
        quality: request.quality,
      });
    case "png":
      return await (await import("@jsquash/png")).encode(data);
    case "webp":
      return await (await import("@jsquash/webp")).encode(data, {
        quality: request.quality,
        method: 4,
      });
    case "avif":
      // As with sharp, AVIF's quality runs lower for the same look; speed 8 keeps encodes short.
      return await (await import("@jsquash/avif")).encode(data, {
        quality: Math.round(request.quality * 0.75),
        speed: 8,
      });
  }
}

/**
 * The WebAssembly codecs behind the {@link ImageLibrary} interface. They run in this thread (no
 * worker, no native code), so they load wherever WebAssembly does; each codec's module is
 * loaded on first use.
 */
export function wasmLibrary(): Promise<ImageLibrary | null> {
  return Promise.resolve({
    name: "wasm",
    formats: WASM_SOURCE_FORMATS,
    maxPixels: WASM_MAX_PIXELS,
    header(input: Uint8Array): Promise<ImageHeader | null> {
      const header = headerOf(input);
      return Promise.resolve(
        header && {
          width: header.width,
          height: header.height,
          orientation: header.orientation,
        },
      );
    },
    async render(input: Uint8Array, request: RenderRequest) {
      let image = await decode(input, decodable(input));
      const opaque = request.format === "jpeg";
      if (request.cover) {
        const { resize, extract } = request.cover;
        image = crop(
          await resized(image, resize.width, resize.height),
          extract,
        );
      } else if (request.fit) {
        const box = fitBox(image, request.fit);
        image = await resized(image, box.width, box.height);
        if (request.fit.fit === "contain") {
          image = pad(image, {
            width: request.fit.width ?? box.width,
            height: request.fit.height ?? box.height,
            background: opaque ? [255, 255, 255, 255] : [0, 0, 0, 0],
          });
        }
      }
      if (opaque) image = flatten(image);
      return new Uint8Array(await encode(image, request));
    },
    async small(input: ImageInput, size: number): Promise<SmallImage> {
      // WebAssembly reads no host file: the bytes go into memory (at most the upload limit).
      const bytes = input instanceof Uint8Array
        ? input
        : await Deno.readFile(input.path);
      const image = await decode(bytes, decodable(bytes));
      // Fitted inside size × size, enlarged when smaller, as sharp's placeholder input is.
      const scale = Math.min(size / image.width, size / image.height);
      const small = await resized(
        image,
        Math.max(1, Math.round(image.width * scale)),
        Math.max(1, Math.round(image.height * scale)),
      );
      return {
        width: small.width,
        height: small.height,
        rgba: new Uint8Array(
          small.data.buffer,
          small.data.byteOffset,
          small.data.byteLength,
        ),
      };
    },
  });
}
