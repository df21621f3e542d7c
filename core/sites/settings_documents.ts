// The closed schemas and defaults of the site-level settings documents (spec 2 part 4.2 /settings/*).
import { z } from "zod";
import { REGIONS } from "../chrome/region_blocks.ts";

const LANGUAGE = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const HTTPS_OR_PATH = z.string().max(2048).refine(
  (to) =>
    to.startsWith("/") ? !to.startsWith("//") : /^https:\/\/[^\s/]+/.test(to),
  "expected a path on this site or an https address",
);

/** How reads choose a language: only the asked one, or along per-language fallback chains. */
const languageFallback = z.strictObject({
  policy: z.enum(["strict", "fallback"]),
  /** Language -> ordered languages to try after it; the default language ends every chain. */
  chains: z.record(LANGUAGE, z.array(LANGUAGE).max(16)),
});

/** Most rich-text embed origins an administrator may allow (spec 2 part 2.3 item 8, MOD-056). */
export const MAX_EMBED_ORIGINS = 20;

/** An exact https origin: scheme and host (and port), lowercase, no path, slash or user. */
const embedOrigin = z.string().max(300).refine((text) => {
  try {
    const url = new URL(text);
    return url.protocol === "https:" && url.origin === text;
  } catch {
    return false;
  }
}, "expected an exact https origin such as https://www.youtube.com");

const editorial = z.strictObject({
  /** Days old versions are kept; null keeps them all. */
  version_retention_days: z.number().int().min(1).max(3650).nullable(),
  /** A publication needs a review step first. */
  review_required: z.boolean(),
  /** Origins rich-text embeds may come from; absent or empty allows none. */
  allowed_embed_origins: z.array(embedOrigin).max(MAX_EMBED_ORIGINS).refine(
    (origins) => new Set(origins).size === origins.length,
    "each origin once",
  ).optional(),
});

const MEDIA_KINDS = ["image", "document", "audio", "video", "file"] as const;
const mediaFiles = z.strictObject({
  enabled_kinds: z.array(z.enum(MEDIA_KINDS)).min(1),
  /** Upload ceiling for the admin; the API's own ceiling is 32 MiB (spec 2 part 8). */
  max_upload_bytes: z.number().int().min(1).max(5_000_000_000),
  /**
   * Formats (as the library names them from the bytes: `png`, `jpg`, `pdf`, `mp4`, …) an upload
   * may have; absent allows every format of an enabled kind (docs/media.md).
   */
  enabled_formats: z.array(z.string().regex(/^[a-z0-9-]{1,16}$/)).min(1).max(
    64,
  ).optional(),
});

const rankedField = z.strictObject({
  field: z.string().min(1).max(64),
  weight: z.number().int().min(1).max(10),
});
/** How words of a search match in one type (spec 3 part 4.7). */
export const MATCHING_MODES = [
  "whole_words",
  "english_word_forms",
  "parts_of_words",
] as const;

const search = z.strictObject({
  enabled: z.boolean(),
  /** Content types searched besides pages: up to 16, each with up to 16 ranked fields (spec 3 part 8). */
  types: z.array(
    z.strictObject({
      model: z.string().min(1),
      fields: z.array(rankedField).max(16),
      /** How words match in this type (spec 3 part 4.7); absent means whole words. */
      matching: z.enum(MATCHING_MODES).optional(),
    }),
  ).max(16),
});

const menuKey = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/);
const chrome = z.strictObject({
  placements: z.strictObject({
    header: menuKey.nullable(),
    footer: menuKey.nullable(),
  }),
  footer_note: z.record(LANGUAGE, z.string().max(500)),
  /** Content of the active template's declared regions; absent holds nothing. */
  regions: REGIONS.optional(),
});

const redirect = z.strictObject({
  from: z.string().regex(/^\/[^\s?#]*$/, "expected a path starting with /"),
  match: z.enum(["exact", "pattern"]),
  status: z.union([
    z.literal(301),
    z.literal(302),
    z.literal(307),
    z.literal(308),
    z.literal(410),
    z.literal(451),
  ]),
  to: HTTPS_OR_PATH.nullable(),
}).refine((r) => (r.status === 410 || r.status === 451) === (r.to === null), {
  message: "410 and 451 take to: null; every other status needs to",
  path: ["to"],
});
const seo = z.strictObject({
  title_template: z.string().max(200),
  default_description: z.string().max(500),
  robots: z.strictObject({ index: z.boolean(), extra: z.string().max(4000) }),
  redirects: z.array(redirect).max(256 + 32),
}).refine((s) => s.redirects.filter((r) => r.match === "exact").length <= 256, {
  message: "at most 256 address redirects",
  path: ["redirects"],
}).refine(
  (s) => s.redirects.filter((r) => r.match === "pattern").length <= 32,
  {
    message: "at most 32 pattern redirects",
    path: ["redirects"],
  },
);

/** Most content types a site may open to comments (Stave's limit, docs/forms.md). */
export const MAX_COMMENT_MODELS = 16;

/** Where visitors may comment (FORM-015): published items of the listed public types. */
const comments = z.strictObject({
  enabled: z.boolean(),
  /** Content types (slug or id) whose published items take comments. */
  models: z.array(z.string().min(1).max(64)).max(MAX_COMMENT_MODELS).refine(
    (models) => new Set(models).size === models.length,
    "each type once",
  ),
  /** Days after publication an item stops taking new comments; null never closes. */
  close_after_days: z.number().int().min(1).max(3650).nullable(),
});

/** Every settings document by its key in the URL. */
export const SETTINGS_SCHEMAS = {
  "editorial": editorial,
  "language-fallback": languageFallback,
  "media-files": mediaFiles,
  "search": search,
  "chrome": chrome,
  "seo": seo,
  "comments": comments,
} as const;

/** The key of one settings document. */
export type SettingsKey = keyof typeof SETTINGS_SCHEMAS;
/** The document stored under a key. */
export type SettingsDocument<K extends SettingsKey> = z.infer<
  typeof SETTINGS_SCHEMAS[K]
>;

/** What a site has before anyone changed a document. */
export const SETTINGS_DEFAULTS: { [K in SettingsKey]: SettingsDocument<K> } = {
  "editorial": {
    version_retention_days: null,
    review_required: false,
    allowed_embed_origins: [],
  },
  "language-fallback": { policy: "fallback", chains: {} },
  "media-files": {
    enabled_kinds: [...MEDIA_KINDS],
    max_upload_bytes: 100_000_000,
  },
  "search": { enabled: true, types: [] },
  "chrome": { placements: { header: null, footer: null }, footer_note: {} },
  "seo": {
    title_template: "{title}",
    default_description: "",
    robots: { index: true, extra: "" },
    redirects: [],
  },
  "comments": { enabled: false, models: [], close_after_days: null },
};

/** True when `key` names a settings document. */
export function isSettingsKey(key: string): key is SettingsKey {
  return Object.hasOwn(SETTINGS_SCHEMAS, key);
}
