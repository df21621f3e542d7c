// Image variants: resized, cropped and re-encoded copies of a stored original, made once and kept beside it.
import type { Db } from "../db/database.ts";
import { MAX_IMAGE_PIXELS } from "./pixel_ceiling.ts";
import type { Focal } from "./items.ts";
import {
  type ImageLibrary,
  type ImageLibraryChoice,
  loadImageLibrary,
  TooManyPixels,
} from "./image_library.ts";
import type { MediaStorage } from "./storage.ts";
import {
  VARIANT_EXTENSION,
  VARIANT_MIME,
  type VariantSpec,
} from "./variant_params.ts";

const OBJECT_FILE = /^([0-9a-f-]{36})\.([a-z0-9-]{1,16})$/;

/** Formats sharp's prebuilt libvips reads; other images have no variants (the WebAssembly codecs read fewer: see wasm_library.ts). */
export const VARIANT_SOURCE_FORMATS: readonly string[] = [
  "png",
  "jpg",
  "gif",
  "webp",
  "avif",
  "tif",
];

/** A stored image a variant is made from: a library item's file or one of its per-language originals. */
export interface VariantSource {
  siteId: string;
  objectId: string;
  storageKey: string;
  format: string;
  kind: string;
  fileName: string;
  focal: Focal | null;
}

/**
 * The stored object behind `<object id>.<format>` on the site with what a variant needs (its
 * item's focal point), or null: only objects a row names have variants, so a removed item's
 * variants stop answering at once, whatever storage still holds.
 */
export async function findVariantSource(
  db: Db,
  siteId: string,
  file: string,
): Promise<VariantSource | null> {
  const match = OBJECT_FILE.exec(file);
  if (!match || !/^[0-9a-f-]{36}$/.test(siteId)) return null;
  const [, objectId, format] = match;
  const main = await db.selectFrom("media_files")
    .select(["storage_key", "kind", "file_name", "default_focal"])
    .where("site_id", "=", siteId).where("object_id", "=", objectId)
    .where("format", "=", format).where("external", "=", false)
    .executeTakeFirst();
  const row = main ?? await db.selectFrom("media_originals as o")
    .innerJoin("media_files as f", "f.id", "o.media_id")
    .select(["o.storage_key", "f.kind", "f.file_name", "f.default_focal"])
    .where("o.site_id", "=", siteId).where("o.object_id", "=", objectId)
    .where("o.format", "=", format).executeTakeFirst();
  if (!row) return null;
  const focal = typeof row.default_focal === "string"
    ? JSON.parse(row.default_focal)
    : row.default_focal;
  return {
    siteId,
    objectId,
    storageKey: row.storage_key,
    format,
    kind: row.kind,
    fileName: row.file_name,
    focal: (focal ?? null) as Focal | null,
  };
}

/** True when the variant's pixels depend on the item's focal point (a crop to both sides). */
export function usesFocal(spec: VariantSpec): boolean {
  return spec.fit === "cover" && spec.width !== null && spec.height !== null;
}

/**
 * The variant's name: every input that changes its bytes, the focal point included when it
 * crops, so a new focal point makes a new variant and never overwrites one a cache holds.
 */
export function variantName(spec: VariantSpec, focal: Focal | null): string {
  const parts = [
    `w${spec.width ?? 0}`,
    `h${spec.height ?? 0}`,
    spec.fit,
    `q${spec.quality}`,
  ];
  if (usesFocal(spec)) {
    const f = focal ?? { x: 0.5, y: 0.5 };
    parts.push(`f${Math.round(f.x * 1000)}_${Math.round(f.y * 1000)}`);
  }
  return `${parts.join("-")}.${VARIANT_EXTENSION[spec.format]}`;
}

/** Where a variant is kept: beside its original, under the original's object id. */
export function variantKey(
  source: VariantSource,
  spec: VariantSpec,
): string {
  return `sites/${source.siteId}/variants/${source.objectId}/${
    variantName(spec, source.focal)
  }`;
}

/** The object id a variant key belongs to, or null for any other key. */
export function variantObjectId(key: string): string | null {
  const m = /^sites\/[0-9a-f-]{36}\/variants\/([0-9a-f-]{36})\//.exec(key);
  return m ? m[1] : null;
}

/** Why a variant cannot be made of a stored object. */
export type VariantFailure = "not_an_image" | "too_many_pixels" | "damaged";

/** Options of {@link makeVariant}. */
export interface MakeVariantOptions {
  /** Pixel ceiling checked on the header before any pixel is decoded (default {@link MAX_IMAGE_PIXELS}). */
  maxPixels?: number;
  /** Which library makes images (`MEDIA_IMAGE_LIBRARY`, default `auto`). */
  library?: ImageLibraryChoice;
  /** The image library itself (tests); null stands for a host where none can load. */
  loadImageLibrary?: () => Promise<ImageLibrary | null>;
}

/** Variants made at once by this process; the others wait (a 100-megapixel decode takes ~400 MB). */
export const VARIANT_CONCURRENCY = 2;
let running = 0;
const waiting: (() => void)[] = [];
const inFlight = new Map<string, Promise<VariantResult>>();

async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= VARIANT_CONCURRENCY) {
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** A made (or already stored) variant, or why it cannot be made. */
export type VariantResult =
  | { ok: true; key: string; size: number; made: boolean }
  | { ok: false; reason: VariantFailure | "unavailable" };

/**
 * The variant of `source` that `spec` names, made and stored when storage does not have it yet.
 * Concurrent requests for one variant in this process share one encode; across instances two
 * may encode at once and the second write replaces the first with the same bytes.
 */
export function ensureVariant(
  storage: MediaStorage,
  source: VariantSource,
  spec: VariantSpec,
  options: MakeVariantOptions = {},
): Promise<VariantResult> {
  const key = variantKey(source, spec);
  const pending = inFlight.get(key);
  if (pending) return pending;
  const run = (async (): Promise<VariantResult> => {
    const found = await storage.stat(key);
    if (found) return { ok: true, key, size: found.size, made: false };
    return await withSlot(async () => {
      const made = await makeVariant(storage, source, spec, options);
      if (!made.ok) return made;
      await storage.put(key, made.bytes, VARIANT_MIME[spec.format]);
      return { ok: true, key, size: made.bytes.length, made: true };
    });
  })().finally(() => inFlight.delete(key));
  inFlight.set(key, run);
  return run;
}

async function readAll(
  stream: ReadableStream<Uint8Array>,
): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The crop box of a cover variant: the asked ratio, never larger than the original, around the focal point. */
export function coverBox(
  original: { width: number; height: number },
  asked: { width: number; height: number },
  focal: Focal | null,
): {
  resize: { width: number; height: number };
  extract: { left: number; top: number; width: number; height: number };
} {
  // Never enlarge: a frame larger than the original shrinks to fit it, keeping its ratio.
  const k = Math.min(
    1,
    original.width / asked.width,
    original.height / asked.height,
  );
  const width = Math.max(1, Math.round(asked.width * k));
  const height = Math.max(1, Math.round(asked.height * k));
  const scale = Math.max(width / original.width, height / original.height);
  const rw = Math.max(width, Math.round(original.width * scale));
  const rh = Math.max(height, Math.round(original.height * scale));
  const f = focal ?? { x: 0.5, y: 0.5 };
  const clamp = (v: number, max: number) => Math.min(Math.max(0, v), max);
  return {
    resize: { width: rw, height: rh },
    extract: {
      left: clamp(Math.round(f.x * rw - width / 2), rw - width),
      top: clamp(Math.round(f.y * rh - height / 2), rh - height),
      width,
      height,
    },
  };
}

/**
 * Encodes one variant with the image library (sharp, or WebAssembly codecs where sharp cannot load). The
 * header is read first and an image over the pixel ceiling is refused before a pixel is decoded
 * (a decompression bomb costs a header read); sharp's own `limitInputPixels` is the second
 * guard. EXIF orientation is applied; an animation gives its first frame.
 */
export async function makeVariant(
  storage: MediaStorage,
  source: VariantSource,
  spec: VariantSpec,
  options: MakeVariantOptions = {},
): Promise<
  { ok: true; bytes: Uint8Array } | {
    ok: false;
    reason: VariantFailure | "unavailable";
  }
> {
  if (
    source.kind !== "image" || !VARIANT_SOURCE_FORMATS.includes(source.format)
  ) {
    return { ok: false, reason: "not_an_image" };
  }
  const library = await (options.loadImageLibrary ??
    (() => loadImageLibrary(options.library)))();
  // A format this library cannot decode (GIF and TIFF on the WebAssembly codecs) is sent as
  // the original, as where no library loads.
  if (!library || !library.formats.includes(source.format)) {
    return { ok: false, reason: "unavailable" };
  }
  const maxPixels = options.maxPixels ?? MAX_IMAGE_PIXELS;
  const stream = await storage.read(source.storageKey);
  if (!stream) return { ok: false, reason: "damaged" };
  const input = await readAll(stream);
  const meta = await library.header(input);
  if (!meta) return { ok: false, reason: "damaged" };
  if (meta.width * meta.height > maxPixels) {
    return { ok: false, reason: "too_many_pixels" };
  }
  if (library.maxPixels && meta.width * meta.height > library.maxPixels) {
    return { ok: false, reason: "unavailable" };
  }
  const rotated = meta.orientation >= 5;
  const original = rotated
    ? { width: meta.height, height: meta.width }
    : { width: meta.width, height: meta.height };
  const cover = usesFocal(spec)
    ? coverBox(
      original,
      { width: spec.width!, height: spec.height! },
      source.focal,
    )
    : null;
  const fit = !cover && (spec.width !== null || spec.height !== null)
    ? { width: spec.width, height: spec.height, fit: spec.fit }
    : null;
  try {
    const bytes = await library.render(input, {
      format: spec.format,
      quality: spec.quality,
      maxPixels,
      cover,
      fit,
    });
    return { ok: true, bytes };
  } catch (error) {
    if (error instanceof TooManyPixels) {
      return { ok: false, reason: "too_many_pixels" };
    }
    return { ok: false, reason: "damaged" };
  }
}
