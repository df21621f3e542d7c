// The query of an image variant URL: parsed against closed, bounded lists, with the format negotiated from Accept.

/**
 * Widths and heights a variant may ask for: common layout and device widths, and the heights of
 * 16:9, 4:3 and 1:1 frames at those widths, up to 4K.
 */
export const VARIANT_SIZES: readonly number[] = [
  16,
  32,
  48,
  64,
  90,
  96,
  128,
  160,
  180,
  200,
  240,
  256,
  270,
  300,
  320,
  360,
  384,
  400,
  450,
  480,
  512,
  540,
  600,
  640,
  720,
  750,
  768,
  800,
  828,
  900,
  960,
  1024,
  1080,
  1152,
  1200,
  1280,
  1440,
  1536,
  1600,
  1920,
  2048,
  2160,
  2560,
  3840,
];

/** The largest side a variant may ask for. */
export const MAX_VARIANT_SIZE = 3840;

/** Qualities a variant may ask for: multiples of 5 from 30 to 100 (fewer distinct variants to store). */
export const VARIANT_QUALITIES: readonly number[] = Array.from(
  { length: 15 },
  (_, i) => 30 + i * 5,
);

/** The quality used when none is asked for. */
export const DEFAULT_QUALITY = 80;

export type VariantFit = "cover" | "contain" | "inside";
export type VariantFormat = "jpeg" | "png" | "webp" | "avif";

/** What a variant is made of, after presets and negotiation. */
export interface VariantSpec {
  width: number | null;
  height: number | null;
  fit: VariantFit;
  quality: number;
  format: VariantFormat;
  /** True when the format came from `Accept` (the answer varies by it). */
  negotiated: boolean;
}

/** Named presets: the generated backend's rich-text variants and a few layout sizes. */
export const VARIANT_PRESETS: Readonly<
  Record<
    string,
    { width: number | null; height: number | null; fit: VariantFit }
  >
> = {
  thumb: { width: 200, height: 200, fit: "cover" },
  preview: { width: 800, height: null, fit: "inside" },
  small: { width: 640, height: null, fit: "inside" },
  medium: { width: 1280, height: null, fit: "inside" },
  large: { width: 1920, height: null, fit: "inside" },
};

const PARAMETERS = ["width", "height", "fit", "quality", "format", "preset"];
const FITS: readonly VariantFit[] = ["cover", "contain", "inside"];
const FORMATS: Record<string, VariantFormat | "auto"> = {
  jpeg: "jpeg",
  jpg: "jpeg",
  png: "png",
  webp: "webp",
  avif: "avif",
  auto: "auto",
};

/** A refused variant query: the parameter it names and why. */
export interface VariantParamError {
  parameter: string;
  message: string;
}

function sizeOf(
  name: string,
  value: string,
): number | VariantParamError {
  const n = /^[1-9][0-9]{0,5}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n)) {
    return {
      parameter: name,
      message:
        `Cannot use ${name} "${value}": expected a whole number of pixels`,
    };
  }
  if (n > MAX_VARIANT_SIZE) {
    return {
      parameter: name,
      message:
        `Cannot use ${name} "${value}": the largest is ${MAX_VARIANT_SIZE}`,
    };
  }
  if (!VARIANT_SIZES.includes(n)) {
    return {
      parameter: name,
      message: `Cannot use ${name} "${value}": expected one of ${
        VARIANT_SIZES.join(", ")
      }`,
    };
  }
  return n;
}

/**
 * The variant a query asks for, null when it asks for none (the original), or the parameter it
 * gets wrong. `source` is the original's format (the fallback when negotiation finds nothing).
 */
export function parseVariantQuery(
  query: URLSearchParams,
  options: { accept: string | null; sourceFormat: string },
): VariantSpec | null | VariantParamError {
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (!PARAMETERS.includes(name)) {
      return {
        parameter: name,
        message: `Cannot use parameter "${name}": expected ${
          PARAMETERS.join(", ")
        }`,
      };
    }
    if (seen.has(name)) {
      return {
        parameter: name,
        message: `Cannot use parameter "${name}" twice`,
      };
    }
    seen.add(name);
  }
  if (seen.size === 0) return null;
  let width: number | null = null;
  let height: number | null = null;
  let fit: VariantFit | null = null;
  const preset = query.get("preset");
  if (preset !== null) {
    const named = VARIANT_PRESETS[preset];
    if (!named) {
      return {
        parameter: "preset",
        message: `Cannot use preset "${preset}": expected one of ${
          Object.keys(VARIANT_PRESETS).join(", ")
        }`,
      };
    }
    for (const other of ["width", "height", "fit"]) {
      if (seen.has(other)) {
        return {
          parameter: other,
          message:
            `Cannot use ${other} with preset "${preset}": a preset names its own size and fit`,
        };
      }
    }
    ({ width, height, fit } = named);
  }
  for (const name of ["width", "height"] as const) {
    const value = query.get(name);
    if (value === null) continue;
    const n = sizeOf(name, value);
    if (typeof n !== "number") return n;
    if (name === "width") width = n;
    else height = n;
  }
  const fitValue = query.get("fit");
  if (fitValue !== null) {
    if (!FITS.includes(fitValue as VariantFit)) {
      return {
        parameter: "fit",
        message: `Cannot use fit "${fitValue}": expected ${FITS.join(", ")}`,
      };
    }
    fit = fitValue as VariantFit;
  }
  let quality = DEFAULT_QUALITY;
  const qualityValue = query.get("quality");
  if (qualityValue !== null) {
    const q = /^[0-9]{1,3}$/.test(qualityValue) ? Number(qualityValue) : NaN;
    if (!VARIANT_QUALITIES.includes(q)) {
      return {
        parameter: "quality",
        message:
          `Cannot use quality "${qualityValue}": expected a multiple of 5 from 30 to 100`,
      };
    }
    quality = q;
  }
  const formatValue = query.get("format");
  let format: VariantFormat | "auto" = "auto";
  if (formatValue !== null) {
    const f = FORMATS[formatValue];
    if (!f) {
      return {
        parameter: "format",
        message: `Cannot use format "${formatValue}": expected ${
          Object.keys(FORMATS).join(", ")
        }`,
      };
    }
    format = f;
  }
  const negotiated = format === "auto";
  const chosen = negotiated
    ? negotiateFormat(options.accept, options.sourceFormat)
    : format as VariantFormat;
  return {
    width,
    height,
    // With both sides the frame is filled (cropped around the focal point) unless asked otherwise.
    fit: fit ?? (width !== null && height !== null ? "cover" : "inside"),
    // PNG ignores a quality (it is lossless); one stored variant serves every quality asked.
    quality: chosen === "png" ? 100 : quality,
    format: chosen,
    negotiated,
  };
}

/**
 * The format sent when the URL names none: WebP to browsers that accept it (all current ones),
 * else PNG for sources that may be transparent and JPEG for the rest. AVIF is made only when
 * asked by name: it encodes many times slower than WebP for a few percent fewer bytes.
 */
export function negotiateFormat(
  accept: string | null,
  sourceFormat: string,
): VariantFormat {
  if (accepts(accept, "image/webp")) return "webp";
  return ["png", "gif", "webp", "avif"].includes(sourceFormat) ? "png" : "jpeg";
}

function accepts(accept: string | null, type: string): boolean {
  if (!accept) return false;
  return accept.split(",").some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (name.trim() !== type) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return !q || Number(q.slice(2)) > 0;
  });
}

/** MIME type of each variant format. */
export const VARIANT_MIME: Record<VariantFormat, string> = {
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  avif: "image/avif",
};

/** File extension of each variant format (as the library stores originals). */
export const VARIANT_EXTENSION: Record<VariantFormat, string> = {
  jpeg: "jpg",
  png: "png",
  webp: "webp",
  avif: "avif",
};
