// Reads the renderer's settings once from the environment and validates them, naming the bad one.
import { z } from "zod";

const bool = z.enum(["true", "false", "1", "0"]).transform((v) =>
  v === "true" || v === "1"
);

const origin = z.url({ protocol: /^https?$/ }).refine(
  (v) => new URL(v).origin === v.replace(/\/$/, ""),
  "expected only scheme, host and port, without path, query or fragment",
).transform((v) => v.replace(/\/$/, ""));

/** A bare https origin (http only on a loopback host), as release delivery needs. */
const httpsOrigin = origin.refine((v) => {
  const url = new URL(v);
  return url.protocol === "https:" ||
    ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
}, "expected an https origin (http only on localhost)");

const schema = z.object({
  RENDERER_PORT: z.coerce.number().int().min(0).max(65535).default(8002),
  RENDERER_HOST: z.string().min(1).default("127.0.0.1"),
  /** Where the public API answers for the site: its host must be the site's domain. */
  STAVE_API_URL: origin.default("http://localhost:8000"),
  /** The address visitors use; links in sitemaps and canonical tags start with it. */
  SITE_URL: origin.optional(),
  SITE_NAME: z.string().trim().min(1).max(80).optional(),
  /** Comma-separated https origins of image transform hosts; the first one draws `srcset`. */
  MANAGED_IMAGE_TRANSFORM_ORIGINS: z.string().max(2000).transform(
    (value, ctx) => {
      const list = value.split(",").map((o) => o.trim()).filter(Boolean);
      for (const o of list) {
        if (!httpsOrigin.safeParse(o).success) {
          ctx.addIssue({
            code: "custom",
            message:
              'expected comma-separated https origins such as "https://img.example.com"',
          });
          return z.NEVER;
        }
      }
      return list.map((o) => o.replace(/\/$/, ""));
    },
  ).optional(),
  RENDERER_ENVIRONMENT: z.enum(["development", "production"]).optional(),
  MANAGED_RENDER_DEPLOY_SERVICE_URL: httpsOrigin.optional(),
  MANAGED_RENDER_DEPLOY_SERVICE_KEY: z.string().min(
    32,
    "expected a secret of 32 or more characters",
  ).optional(),
  MANAGED_RENDER_INSTALLATION_ID: z.string().regex(
    /^[a-z0-9-]{3,63}$/,
    "expected 3 to 63 lowercase letters, digits and hyphens",
  ).optional(),
  MANAGED_RENDER_HMAC_KEY: z.string().min(
    32,
    "expected a secret of 32 or more characters",
  ).optional(),
  RENDERER_LOG_REQUESTS: bool.default(false),
  /**
   * How long one page or post read serves every visitor asking for it (milliseconds, 0 to
   * 30,000; 0 reads on every request). Concurrent requests for one page always share a read.
   */
  RENDERER_PAGE_REUSE_MS: z.coerce.number().int().min(0).max(30_000).default(
    1_000,
  ),
  /** Shared with the service: forwarded form posts then count against each visitor. */
  RENDERER_FORWARDING_KEY: z.string().min(
    32,
    "expected a secret of 32 or more characters",
  ).max(256).optional(),
});

/** The settings a production release needs (template rule 8); development needs none. */
export const RELEASE_SETTINGS = [
  "MANAGED_RENDER_DEPLOY_SERVICE_URL",
  "MANAGED_RENDER_DEPLOY_SERVICE_KEY",
  "MANAGED_RENDER_INSTALLATION_ID",
  "MANAGED_RENDER_HMAC_KEY",
] as const;

/** The renderer's validated settings. */
export interface RendererConfig {
  port: number;
  host: string;
  apiUrl: string;
  /** Null: the address the renderer listens on. */
  siteUrl: string | null;
  siteName: string | null;
  transformOrigins: string[];
  environment: "development" | "production";
  /** The installation a production release names; null in development. */
  installationId: string | null;
  logRequests: boolean;
  /** How long a page or post read is reused (0: read on every request). */
  pageReuseMs: number;
  /** Sent with each forwarded form post beside the visitor's address; null sends neither. */
  forwardingKey: string | null;
  /**
   * Where the active release of this site's host is read (the deploy service and its key), or
   * null: the built-in template draws every page.
   */
  releases: { url: string; key: string } | null;
}

/** Raised for a bad setting; the message names the setting, never its value. */
export class RendererConfigError extends Error {
  override name = "RendererConfigError";
}

/** Reads and validates settings from an environment record. */
export function loadRendererConfig(
  env: Record<string, string | undefined>,
): RendererConfig {
  const known = Object.fromEntries(
    Object.keys(schema.shape).map((
      k,
    ) => [k, env[k] === "" ? undefined : env[k]]),
  );
  const parsed = schema.safeParse(known);
  if (!parsed.success) {
    throw new RendererConfigError(
      `Invalid configuration: ${
        parsed.error.issues.map((i) =>
          `setting ${String(i.path[0])}: ${i.message}`
        )
          .join("; ")
      }`,
    );
  }
  const v = parsed.data;
  const environment = v.RENDERER_ENVIRONMENT ?? "development";
  if (environment === "production") {
    const missing = RELEASE_SETTINGS.filter((k) => v[k] === undefined);
    if (missing.length > 0) {
      throw new RendererConfigError(
        `Invalid configuration: production needs ${missing.join(", ")}`,
      );
    }
    if (!v.SITE_URL?.startsWith("https://")) {
      throw new RendererConfigError(
        "Invalid configuration: setting SITE_URL: production serves an https origin",
      );
    }
  }
  return {
    port: v.RENDERER_PORT,
    host: v.RENDERER_HOST,
    apiUrl: v.STAVE_API_URL,
    siteUrl: v.SITE_URL ?? null,
    siteName: v.SITE_NAME ?? null,
    transformOrigins: v.MANAGED_IMAGE_TRANSFORM_ORIGINS ?? [],
    environment,
    installationId: v.MANAGED_RENDER_INSTALLATION_ID ?? null,
    logRequests: v.RENDERER_LOG_REQUESTS,
    pageReuseMs: v.RENDERER_PAGE_REUSE_MS,
    forwardingKey: v.RENDERER_FORWARDING_KEY ?? null,
    releases: v.MANAGED_RENDER_DEPLOY_SERVICE_URL &&
        v.MANAGED_RENDER_DEPLOY_SERVICE_KEY
      ? {
        url: v.MANAGED_RENDER_DEPLOY_SERVICE_URL.replace(/\/$/, ""),
        key: v.MANAGED_RENDER_DEPLOY_SERVICE_KEY,
      }
      : null,
  };
}
