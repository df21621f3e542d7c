// Reads every setting once from the environment and validates it, naming the bad setting.
import {
  IMAGE_LIBRARY_CHOICES,
  type ImageLibraryChoice,
} from "./media/image_library.ts";
import { z } from "zod";
import { randomToken } from "./auth/secrets.ts";
import { LIMITS } from "./plugins/protocol.ts";
import { parseSiteRenderers } from "./sites/site_address.ts";

/** PostgreSQL connections the service holds open at most, unless `DATABASE_POOL_MAX` says. */
export const DEFAULT_POOL_MAX = 10;
/** Pipelined connections for the public reads' statements at most (`DATABASE_PIPELINE_CONNECTIONS`). */
export const MAX_PIPELINE_CONNECTIONS = 32;

/**
 * Pipelined connections beside a pool of `poolMax` unless set: a few carry the public reads'
 * statements, many at a time each, so most of the pool stays free for the rest.
 */
export function defaultPipelineConnections(poolMax: number): number {
  return Math.min(4, Math.ceil(poolMax / 3));
}
/** Read replicas one process reads from at most (`DATABASE_READ_URL`). */
export const MAX_READ_REPLICAS = 8;
/** How far behind the primary a replica may be and still answer public reads, unless set. */
export const DEFAULT_READ_MAX_LAG_MS = 2_000;
/** The admin's upload limit unless the plan says otherwise (spec 2 part 8: 100 MB). */
export const DEFAULT_MEDIA_REQUEST_BODY_LIMIT_BYTES = 100_000_000;
/** The largest plan limit the spec allows (5 GB). */
export const MAX_MEDIA_REQUEST_BODY_LIMIT_BYTES = 5_000_000_000;

const bool = z.enum(["true", "false", "1", "0"]).transform((v) =>
  v === "true" || v === "1"
);

const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).refine(
    isListenAddress,
    "expected an IP address or a host name of this machine",
  ).default("127.0.0.1"),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).refine(
    isOrigin,
    "expected only scheme, host and port, without path, query, fragment or user",
  ).optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(
    DEFAULT_POOL_MAX,
  ),
  DATABASE_PIPELINE_CONNECTIONS: z.coerce.number().int().min(0).max(
    MAX_PIPELINE_CONNECTIONS,
  ).optional(),
  DATABASE_READ_URL: z.string().max(10_000).transform((value, ctx) => {
    const urls = value.split(",").map((u) => u.trim()).filter((u) => u !== "");
    for (const url of urls) {
      if (!/^postgres(ql)?:\/\//.test(url) || !URL.canParse(url)) {
        ctx.addIssue({
          code: "custom",
          message:
            'expected comma-separated PostgreSQL URLs such as "postgres://reader@replica-1:5432/stave"',
        });
        return z.NEVER;
      }
    }
    if (urls.length > MAX_READ_REPLICAS) {
      ctx.addIssue({
        code: "custom",
        message:
          `expected at most ${MAX_READ_REPLICAS} URLs, found ${urls.length}`,
      });
      return z.NEVER;
    }
    return urls;
  }).optional(),
  DATABASE_READ_MAX_LAG_MS: z.coerce.number().int().min(0).max(600_000)
    .default(DEFAULT_READ_MAX_LAG_MS),
  KV_PATH: z.string().min(1).optional(),
  // Set by Deno Deploy in every deployment; its presence selects the Deploy entry (docs/deploy.md).
  DENO_DEPLOYMENT_ID: z.string().max(200).optional(),
  DEMO_SITE: bool.optional(),
  DEMO_DOMAIN: z.string().regex(
    /^[a-z0-9.-]+$/,
    "expected a lowercase host name without port",
  ).default(
    "localhost",
  ),
  LOG_REQUESTS: bool.default(true),
  PUBLIC_ANSWER_CACHE_MB: z.coerce.number().int().min(0).max(4096).default(32),
  MEMORY_TRIM_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
  // Unset: `development` for the embedded demo (no DATABASE_URL, DEMO_SITE on), else production.
  ENVIRONMENT: z.enum(["development", "production"]).optional(),
  SCHEDULER_COMPANION: bool.default(true),
  SCHEDULER_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  RENDERER_COMPANION: bool.default(true),
  SITE_RENDERER_URLS: z.string().max(4000).transform((value, ctx) => {
    const parsed = parseSiteRenderers(value);
    if (!parsed) {
      ctx.addIssue({
        code: "custom",
        message:
          'expected comma-separated pairs such as "example.com=https://www.example.com" (a site\'s domain, "=", the origin its pages are served at)',
      });
      return z.NEVER;
    }
    return parsed;
  }).optional(),
  RENDERER_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  RENDERER_FORWARDING_KEY: z.string().min(
    32,
    "expected a secret of 32 or more characters",
  ).max(256).optional(),
  PLUGIN_DEV_ORIGINS: z.string().max(4000).transform((value, ctx) => {
    const origins = value.split(",").map((o) => o.trim()).filter((o) =>
      o !== ""
    );
    for (const origin of origins) {
      if (!isExactOrigin(origin)) {
        ctx.addIssue({
          code: "custom",
          message:
            'expected comma-separated exact origins such as "http://127.0.0.1:8787" (scheme, host and port only; no wildcard, path or trailing slash)',
        });
        return z.NEVER;
      }
    }
    return origins;
  }).optional(),
  PLUGIN_CATALOGUES: z.string().max(10_000).transform((value, ctx) => {
    const urls = value.split(",").map((u) => u.trim()).filter((u) => u !== "");
    const max = LIMITS.catalogues.max_catalogues;
    if (urls.length > max) {
      ctx.addIssue({
        code: "custom",
        message: `expected at most ${max} catalogue URLs, found ${urls.length}`,
      });
      return z.NEVER;
    }
    for (const url of urls) {
      if (!isCatalogueUrl(url)) {
        ctx.addIssue({
          code: "custom",
          message:
            'expected comma-separated absolute URLs such as "https://plugins.example.com/catalogue.json" (no user, password or fragment)',
        });
        return z.NEVER;
      }
    }
    if (new Set(urls).size !== urls.length) {
      ctx.addIssue({ code: "custom", message: "expected each URL once" });
      return z.NEVER;
    }
    return urls;
  }).optional(),
  // The plan's upload limit (spec 2 part 8: at most 5 GB); the admin's default is 100 MB.
  MEDIA_REQUEST_BODY_LIMIT_BYTES: z.coerce.number().int().min(1).max(
    MAX_MEDIA_REQUEST_BODY_LIMIT_BYTES,
  ).default(DEFAULT_MEDIA_REQUEST_BODY_LIMIT_BYTES),
  MEDIA_IMAGE_LIBRARY: z.enum(IMAGE_LIBRARY_CHOICES).default("auto"),
  MEDIA_S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  MEDIA_S3_BUCKET: z.string().regex(
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
    "expected an S3 bucket name (3 to 63 lowercase letters, digits, dots, dashes)",
  ).optional(),
  MEDIA_S3_REGION: z.string().regex(/^[a-z0-9-]{1,40}$/).optional(),
  MEDIA_S3_ACCESS_KEY_ID: z.string().min(1).max(256).optional(),
  MEDIA_S3_SECRET_ACCESS_KEY: z.string().min(1).max(256).optional(),
  MEDIA_S3_PREFIX: z.string().regex(
    /^([a-z0-9][a-z0-9._-]*\/)*$/,
    "expected lowercase path segments each ending in /",
  ).optional(),
});

/**
 * An IPv4 literal with octets up to 255, an IPv6 literal, or a host name. All-numeric dotted
 * names are IPv4 literals, so `999.1.1.1` is refused here rather than by a lookup at listen.
 */
function isListenAddress(host: string): boolean {
  if (host.includes(":")) return /^[0-9a-fA-F:.]+(%[\w.-]+)?$/.test(host);
  const labels = host.split(".");
  if (labels.every((label) => /^\d+$/.test(label))) {
    return labels.length === 4 &&
      labels.every((label) => label.length <= 3 && Number(label) <= 255);
  }
  return /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/
    .test(host);
}

/** Links are built as `PUBLIC_URL + path`, so anything past the origin would corrupt every one. */
function isOrigin(url: string): boolean {
  const parsed = new URL(url);
  return parsed.pathname === "/" && !parsed.search && !parsed.hash &&
    !parsed.username && !parsed.password && !/[?#]/.test(url);
}

function isExactOrigin(value: string): boolean {
  if (value.includes("*")) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") &&
      url.origin === value;
  } catch {
    return false;
  }
}

function isCatalogueUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") &&
      !url.username && !url.password && !value.includes("#");
  } catch {
    return false;
  }
}

/** S3-compatible media storage; absent means files under `DATA_DIR/media`. */
export interface MediaS3Config {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  prefix: string;
}

/** The validated settings of one process. */
export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  /** Unset means embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  /** Connections the service holds open to PostgreSQL at most (`DATABASE_URL` only). */
  databasePoolMax: number;
  /**
   * Connections that carry the public reads' statements pipelined, beside the pool
   * (`DATABASE_PIPELINE_CONNECTIONS`); 0 runs them on the pool.
   */
  databasePipelineConnections: number;
  /**
   * PostgreSQL read replicas for public reads (`DATABASE_READ_URL`); empty reads the primary only.
   */
  databaseReadUrls: string[];
  /** A replica further behind than this is skipped until it catches up (`DATABASE_READ_MAX_LAG_MS`). */
  databaseReadMaxLagMs: number;
  /**
   * Deno KV file or `http(s)://` URL of a KV server; defaults to `dataDir/kv.sqlite3`. Null on
   * Deno Deploy without `KV_PATH`: the deployment's own KV (`Deno.openKv()` without a path).
   */
  kvPath: string | null;
  /**
   * The Deno Deploy deployment this process runs in (`DENO_DEPLOYMENT_ID`), or null elsewhere.
   * Set, nothing is written to the local disk and island bundles come from `deno task build`.
   */
  deployment: string | null;
  demoSite: boolean;
  demoDomain: string;
  logRequests: boolean;
  /** Session cookies carry `Secure` when the public URL is https. */
  secureCookies: boolean;
  /** Memory for public answers kept per database state (core/public/kept_answers.ts); 0 keeps none. */
  publicAnswerCacheBytes: number;
  /** How often freed memory is handed back to the system (core/memory_trim.ts); 0 never. */
  memoryTrimSeconds: number;
  /** `development` allows `pluginDevOrigins`; anything else is production. */
  environment: "development" | "production";
  /**
   * Exact origins the service may call over plain HTTP (spec 1 part 5.10); honoured only
   * when `environment` is `development`, always empty otherwise.
   */
  pluginDevOrigins: string[];
  /**
   * Plugin catalogues read by `GET /api/plugins/catalogue` (at most 4, spec 1 part 8): https
   * URLs, or http on an origin of `pluginDevOrigins` in development.
   */
  pluginCatalogues: string[];
  /**
   * The scheduling plugin started beside the embedded demo (`deno task start`): its port, or
   * null when it does not run (production, a real database, no demo site, or turned off).
   */
  schedulerCompanion: { port: number } | null;
  /**
   * The site renderer (services/renderer) started beside the embedded demo: its port, or null
   * under the same conditions as the scheduling plugin.
   */
  rendererCompanion: { port: number } | null;
  /**
   * Where each site's pages are served, by domain (`SITE_RENDERER_URLS`, and the renderer
   * beside the demo): the admin's "View on site" and rendered previews open these.
   */
  siteRenderers: Record<string, string>;
  /**
   * The secret a site renderer sends with a visitor's form post to name the visitor's address
   * (`RENDERER_FORWARDING_KEY`; made up at start for the renderer beside the demo), or null:
   * then every post counts against the address it came from.
   */
  rendererForwardingKey: string | null;
  /** Media bytes go to this bucket when set, else to files under `dataDir/media`. */
  mediaS3: MediaS3Config | null;
  /**
   * The plan's upload limit (`MEDIA_REQUEST_BODY_LIMIT_BYTES`): the largest file the admin
   * takes, and a ceiling under the API's 32 MiB on every other door (docs/media.md).
   */
  mediaRequestBodyLimitBytes: number;
  /**
   * Which library makes image variants and placeholders (`MEDIA_IMAGE_LIBRARY`): `auto` (sharp,
   * else the WebAssembly codecs where sharp cannot load), `sharp`, `wasm` or `none` (docs/media.md).
   */
  mediaImageLibrary: ImageLibraryChoice;
  /**
   * The raw TEMPLATE_*, MANAGED_RENDER_* and MANAGED_IMAGE_* settings: a value that does not qualify counts as
   * unset for the operation that needs it (core/templates/settings.ts), never a start-up error.
   */
  templateSettings: Readonly<Record<string, string | undefined>>;
}

/** Raised when a setting is invalid; its message names the setting but never echoes the value. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads and validates settings from an environment record (defaults to `Deno.env`). */
export function loadConfig(
  env: Record<string, string | undefined> = Deno.env.toObject(),
): Config {
  const known = Object.fromEntries(
    Object.keys(configSchema.shape).map((
      key,
    ) => [key, env[key] === "" ? undefined : env[key]]),
  );
  const parsed = configSchema.safeParse(known);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      `setting ${String(issue.path[0])}: ${issue.message}`
    );
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
  const v = parsed.data;
  const mediaS3 = mediaS3Of(v);
  const deployment = v.DENO_DEPLOYMENT_ID ?? null;
  if (deployment) assertDeployable(v, mediaS3);
  // Deploy has no disk for the demo's password note or an embedded store: off unless asked.
  const demoSite = v.DEMO_SITE ?? !deployment;
  // Unset, the public URL follows the port, so `PORT=9000` alone gives working links.
  const publicUrl = v.PUBLIC_URL ?? `http://localhost:${v.PORT}`;
  const environment = v.ENVIRONMENT ??
    (demoSite && !v.DATABASE_URL ? "development" : "production");
  const pluginDevOrigins = environment === "development"
    ? v.PLUGIN_DEV_ORIGINS ?? []
    : [];
  const pluginCatalogues = v.PLUGIN_CATALOGUES ?? [];
  for (const url of pluginCatalogues) {
    // Plain http would be refused at every read: say so at start instead.
    if (
      url.startsWith("http:") &&
      !pluginDevOrigins.includes(new URL(url).origin)
    ) {
      throw new ConfigError(
        "Invalid configuration: setting PLUGIN_CATALOGUES: expected https URLs (http only on an origin listed in PLUGIN_DEV_ORIGINS with ENVIRONMENT=development)",
      );
    }
  }
  const rendererCompanion =
    environment === "development" && demoSite && v.RENDERER_COMPANION &&
      !deployment
      ? { port: v.RENDERER_PORT ?? (v.PORT === 0 ? 0 : v.PORT + 2) }
      : null;
  const siteRenderers = { ...v.SITE_RENDERER_URLS };
  if (rendererCompanion && rendererCompanion.port !== 0) {
    siteRenderers[v.DEMO_DOMAIN] ??=
      `http://localhost:${rendererCompanion.port}`;
  }
  return {
    port: v.PORT,
    host: v.HOST,
    publicUrl: publicUrl.replace(/\/$/, ""),
    dataDir: v.DATA_DIR,
    databaseUrl: v.DATABASE_URL,
    databasePoolMax: v.DATABASE_POOL_MAX,
    databasePipelineConnections: v.DATABASE_PIPELINE_CONNECTIONS ??
      defaultPipelineConnections(v.DATABASE_POOL_MAX),
    databaseReadUrls: v.DATABASE_READ_URL ?? [],
    databaseReadMaxLagMs: v.DATABASE_READ_MAX_LAG_MS,
    kvPath: v.KV_PATH ?? (deployment ? null : `${v.DATA_DIR}/kv.sqlite3`),
    deployment,
    demoSite,
    demoDomain: v.DEMO_DOMAIN,
    logRequests: v.LOG_REQUESTS,
    secureCookies: publicUrl.startsWith("https:"),
    publicAnswerCacheBytes: v.PUBLIC_ANSWER_CACHE_MB * 1024 * 1024,
    memoryTrimSeconds: v.MEMORY_TRIM_SECONDS,
    environment,
    pluginDevOrigins,
    pluginCatalogues,
    schedulerCompanion:
      environment === "development" && demoSite && v.SCHEDULER_COMPANION &&
        !deployment
        ? { port: v.SCHEDULER_PORT ?? (v.PORT === 0 ? 0 : v.PORT + 1) }
        : null,
    rendererCompanion,
    siteRenderers,
    rendererForwardingKey: v.RENDERER_FORWARDING_KEY ??
      (rendererCompanion ? randomToken() : null),
    mediaS3,
    mediaRequestBodyLimitBytes: v.MEDIA_REQUEST_BODY_LIMIT_BYTES,
    mediaImageLibrary: v.MEDIA_IMAGE_LIBRARY,
    templateSettings: Object.fromEntries(
      Object.entries(env).filter(([key, value]) =>
        /^(TEMPLATE|MANAGED_RENDER|MANAGED_IMAGE)_/.test(key) && value
      ),
    ),
  };
}

/**
 * Deno Deploy has no writable disk: the embedded store, files under DATA_DIR and the demo's
 * password note would fail or vanish with the isolate, so their absence is refused at start.
 */
function assertDeployable(
  v: z.output<typeof configSchema>,
  mediaS3: MediaS3Config | null,
): void {
  const problems: string[] = [];
  if (!v.DATABASE_URL) {
    problems.push(
      "setting DATABASE_URL: required on Deno Deploy (no disk for the embedded database)",
    );
  }
  if (!mediaS3) {
    problems.push(
      "setting MEDIA_S3_ENDPOINT: required on Deno Deploy (media cannot be kept on its disk); set the MEDIA_S3_* settings",
    );
  }
  if (v.DEMO_SITE) {
    problems.push(
      "setting DEMO_SITE: must be false on Deno Deploy (the demo writes its password note to DATA_DIR)",
    );
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
  }
}

/** The S3 settings as one value: all of endpoint, bucket and keys, or none of the MEDIA_S3_* settings. */
function mediaS3Of(v: z.output<typeof configSchema>): MediaS3Config | null {
  const named = {
    MEDIA_S3_ENDPOINT: v.MEDIA_S3_ENDPOINT,
    MEDIA_S3_BUCKET: v.MEDIA_S3_BUCKET,
    MEDIA_S3_ACCESS_KEY_ID: v.MEDIA_S3_ACCESS_KEY_ID,
    MEDIA_S3_SECRET_ACCESS_KEY: v.MEDIA_S3_SECRET_ACCESS_KEY,
  };
  const missing = Object.entries(named).filter(([, value]) => !value).map((
    [key],
  ) => key);
  const anySet = missing.length < 4 || v.MEDIA_S3_REGION !== undefined ||
    v.MEDIA_S3_PREFIX !== undefined;
  if (!anySet) return null;
  if (missing.length > 0) {
    throw new ConfigError(
      `Invalid configuration: ${
        missing.map((key) =>
          `setting ${key}: required when any MEDIA_S3_* setting is given`
        ).join("; ")
      }`,
    );
  }
  return {
    endpoint: v.MEDIA_S3_ENDPOINT!.replace(/\/$/, ""),
    bucket: v.MEDIA_S3_BUCKET!,
    region: v.MEDIA_S3_REGION ?? "us-east-1",
    accessKeyId: v.MEDIA_S3_ACCESS_KEY_ID!,
    secretAccessKey: v.MEDIA_S3_SECRET_ACCESS_KEY!,
    prefix: v.MEDIA_S3_PREFIX ?? "",
  };
}
