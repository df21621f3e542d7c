// The image library where sharp's native add-on cannot load (Deno Deploy): wasm-vips, libvips itself compiled to WebAssembly.
import {
  type ImageHeader,
  type ImageInput,
  type ImageLibrary,
  type RenderRequest,
  type SmallImage,
} from "./image_library.ts";

import type VipsFactory from "wasm-vips";

type Vips = Awaited<ReturnType<typeof VipsFactory>>;
type VipsImage = InstanceType<Vips["Image"]>;

let vipsModule: Promise<Vips | null> | undefined;

/**
 * wasm-vips, started once per process (about 0.4 s, 13 MB of WebAssembly; the HEIF module comes
 * along for AVIF), or null when it cannot start either.
 */
function loadVips(): Promise<Vips | null> {
  vipsModule ??= import("wasm-vips").then(async (m) => {
    const start = (m.default ?? m) as unknown as typeof VipsFactory;
    const vips = await start({ dynamicLibraries: ["vips-heif.wasm"] });
    // As with sharp: each variant is made once and stored, so libvips' cache only costs memory.
    vips.Cache.max(0);
    return vips;
  }).catch(() => null);
  return vipsModule;
}

/** Frees the WebAssembly objects an operation made (embind handles are not garbage-collected). */
class Handles {
  #all: VipsImage[] = [];
  keep(image: VipsImage): VipsImage {
    this.#all.push(image);
    return image;
  }
  free(): void {
    for (const image of this.#all) image.delete();
    this.#all.length = 0;
  }
}

/** The image in sRGB with 8 bits a band, as sharp hands every encoder. */
function toSrgb(image: VipsImage, handles: Handles): VipsImage {
  if (image.interpretation === "srgb" && image.format === "uchar") return image;
  return handles.keep(image.colourspace("srgb"));
}

/** wasm-vips behind the {@link ImageLibrary} interface, or null when it cannot start. */
export async function wasmLibrary(): Promise<ImageLibrary | null> {
  const vips = await loadVips();
  if (!vips) return null;
  // deno-lint-ignore require-await
  const header = async (input: Uint8Array): Promise<ImageHeader | null> => {
    const handles = new Handles();
    try {
      // Loading is lazy in libvips: this reads the header, no pixel.
      const image = handles.keep(vips.Image.newFromBuffer(input));
      const orientation = image.getTypeof("orientation") !== 0
        ? image.getInt("orientation")
        : 1;
      return { width: image.width, height: image.height, orientation };
    } catch {
      return null;
    } finally {
      handles.free();
    }
  };
  return {
    name: "wasm-vips",
    header,
    // deno-lint-ignore require-await
    async render(input: Uint8Array, request: RenderRequest) {
      const handles = new Handles();
      try {
        // The first frame only (libvips loads one page unless asked for more), then upright.
        const loaded = handles.keep(
          vips.Image.newFromBuffer(input, "", { fail_on: "error" }),
        );
        let image = toSrgb(handles.keep(loaded.autorot()), handles);
        const opaque = request.format === "jpeg";
        if (request.cover) {
          const { resize, extract } = request.cover;
          image = handles.keep(
            image.resize(resize.width / image.width, {
              vscale: resize.height / image.height,
            }),
          );
          image = handles.keep(
            image.extractArea(
              extract.left,
              extract.top,
              extract.width,
              extract.height,
            ),
          );
        } else if (request.fit) {
          image = fitted(image, request.fit, opaque, handles);
        }
        if (opaque && image.hasAlpha()) {
          image = handles.keep(image.flatten({ background: [255, 255, 255] }));
        }
        // Metadata (EXIF, XMP, ICC) is dropped as sharp drops it: the pixels are sRGB already.
        const keep = { keep: "none" };
        switch (request.format) {
          case "jpeg":
            return image.writeToBuffer(".jpg", { ...keep, Q: request.quality });
          case "png":
            return image.writeToBuffer(".png", { ...keep, compression: 9 });
          case "webp":
            return image.writeToBuffer(".webp", {
              ...keep,
              Q: request.quality,
              effort: 4,
            });
          case "avif":
            return image.writeToBuffer(".avif", {
              ...keep,
              Q: Math.round(request.quality * 0.75),
              effort: 2,
            });
        }
      } finally {
        handles.free();
      }
    },
    async small(input: ImageInput, size: number): Promise<SmallImage> {
      // WebAssembly reads no host file: the bytes go into its heap (at most the upload limit).
      const bytes = input instanceof Uint8Array
        ? input
        : await Deno.readFile(input.path);
      const handles = new Handles();
      try {
        // thumbnail shrinks JPEGs while decoding, applies EXIF orientation and takes the first
        // frame of an animation.
        let image = handles.keep(
          vips.Image.thumbnailBuffer(bytes, size, { height: size }),
        );
        image = toSrgb(image, handles);
        if (!image.hasAlpha()) image = handles.keep(image.bandjoin(255));
        const rgba = new Uint8Array(image.writeToMemory() as Uint8Array);
        return { width: image.width, height: image.height, rgba };
      } finally {
        handles.free();
      }
    },
  };
}

/**
 * The whole image inside the asked box, never enlarged, as sharp's `inside` and `contain` with
 * `withoutEnlargement` give it: `contain` then pads to the box (a side not asked is the
 * image's), transparent or white for JPEG.
 */
function fitted(
  image: VipsImage,
  fit: NonNullable<RenderRequest["fit"]>,
  opaque: boolean,
  handles: Handles,
): VipsImage {
  const scale = Math.min(
    1,
    fit.width === null ? Infinity : fit.width / image.width,
    fit.height === null ? Infinity : fit.height / image.height,
  );
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  let out = image;
  if (width !== image.width || height !== image.height) {
    out = handles.keep(
      image.resize(width / image.width, { vscale: height / image.height }),
    );
  }
  if (fit.fit !== "contain") return out;
  const boxWidth = fit.width ?? width;
  const boxHeight = fit.height ?? height;
  if (boxWidth === width && boxHeight === height) return out;
  if (!opaque && !out.hasAlpha()) out = handles.keep(out.bandjoin(255));
  return handles.keep(
    out.embed(
      Math.floor((boxWidth - width) / 2),
      Math.floor((boxHeight - height) / 2),
      boxWidth,
      boxHeight,
      {
        extend: "background",
        background: opaque
          ? (out.hasAlpha() ? [255, 255, 255, 255] : [255, 255, 255])
          : [0, 0, 0, 0],
      },
    ),
  );
}
