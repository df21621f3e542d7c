// The image library on hosts with native add-ons: sharp (libvips), the same pipeline Directus and Strapi use.
import {
  type ImageHeader,
  type ImageInput,
  type ImageLibrary,
  type RenderRequest,
  type SmallImage,
  TooManyPixels,
} from "./image_library.ts";
import { VARIANT_SOURCE_FORMATS } from "./variants.ts";

/** The sharp module's default export. */
export type Sharp = typeof import("sharp");

let sharpModule: Promise<Sharp | null> | undefined;

/** sharp, or null where its native library cannot load (Deno Deploy). */
export function loadSharp(): Promise<Sharp | null> {
  sharpModule ??= import("sharp").then((m) => {
    const sharp = (m.default ?? m) as Sharp;
    // libvips' operation cache keeps decoded images alive between requests; each variant is made
    // once and stored, so the cache only costs memory.
    sharp.cache(false);
    return sharp;
  }).catch(() => null);
  return sharpModule;
}

/** sharp behind the {@link ImageLibrary} interface, or null where it cannot load. */
export async function sharpLibrary(): Promise<ImageLibrary | null> {
  const sharp = await loadSharp();
  if (!sharp) return null;
  return {
    name: "sharp",
    formats: VARIANT_SOURCE_FORMATS,
    async header(input: Uint8Array): Promise<ImageHeader | null> {
      try {
        // The header only: no pixel is decoded here, so no ceiling is needed to read it.
        const meta = await sharp(input, { limitInputPixels: false, pages: 1 })
          .metadata();
        if (!meta.width || !meta.height) return null;
        return {
          width: meta.width,
          height: meta.height,
          orientation: meta.orientation ?? 1,
        };
      } catch {
        return null;
      }
    },
    async render(input: Uint8Array, request: RenderRequest) {
      let image = sharp(input, {
        limitInputPixels: request.maxPixels,
        pages: 1,
        failOn: "error",
      }).rotate();
      if (request.cover) {
        const { resize, extract } = request.cover;
        image = image.resize(resize.width, resize.height, { fit: "fill" })
          .extract(extract);
      } else if (request.fit) {
        const opaque = request.format === "jpeg";
        image = image.resize(
          request.fit.width ?? undefined,
          request.fit.height ?? undefined,
          {
            fit: request.fit.fit === "cover" ? "inside" : request.fit.fit,
            withoutEnlargement: true,
            background: opaque
              ? { r: 255, g: 255, b: 255, alpha: 1 }
              : { r: 0, g: 0, b: 0, alpha: 0 },
          },
        );
      }
      switch (request.format) {
        case "jpeg":
          image = image.flatten({ background: "#ffffff" }).jpeg({
            quality: request.quality,
          });
          break;
        case "png":
          image = image.png({ compressionLevel: 9, adaptiveFiltering: true });
          break;
        case "webp":
          image = image.webp({ quality: request.quality, effort: 4 });
          break;
        case "avif":
          // AVIF's quality scale runs lower than JPEG's for the same look; effort 2 keeps encodes short.
          image = image.avif({
            quality: Math.round(request.quality * 0.75),
            effort: 2,
          });
          break;
      }
      try {
        return new Uint8Array(await image.toBuffer());
      } catch (error) {
        if (/pixel limit/i.test(String(error))) {
          throw new TooManyPixels(String(error));
        }
        throw error;
      }
    },
    async small(input: ImageInput, size: number): Promise<SmallImage> {
      // A path lets libvips read the file itself, a little at a time (JPEGs shrink while decoded).
      const source = input instanceof Uint8Array ? input : input.path;
      const { data, info } = await sharp(source, { pages: 1 }).rotate()
        .resize(size, size, { fit: "inside" }).ensureAlpha().raw()
        .toBuffer({ resolveWithObject: true });
      return {
        width: info.width,
        height: info.height,
        rgba: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      };
    },
  };
}
