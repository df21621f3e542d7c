// The scheduling plugin's settings, read once from the environment (spec 1 parts 5.9 and 8).
import { z } from "zod";

/** What the plugin runs with. */
export interface SchedulerConfig {
  /** The origin the plugin is reached at; every manifest URL is on it. */
  publicOrigin: string;
  port: number;
  hostname: string;
  /** Operator bearer for `/admin/*` (at least 16 characters). */
  adminSecret: string;
  /** 32 bytes that encrypt stored installation tokens (AES-GCM). */
  tokenKey: Uint8Array;
  /** PostgreSQL URL; unset means embedded PGlite under `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  /** The plugin's own Deno KV file; unset means `<dataDir>/kv.sqlite3`. */
  kvPath: string;
  development: boolean;
  /** Service origins allowed over plain HTTP in development (`SVC_DEV_ORIGINS`). */
  svcDevOrigins: string[];
  maxAttempts: number;
  maxLatenessMs: number;
  leaseMs: number;
  maxRetryAfterMs: number;
}

const positive = (fallback: number) =>
  z.coerce.number().int().min(1).max(86_400_000).default(fallback);

const envSchema = z.object({
  PUBLIC_ORIGIN: z.string().default("http://127.0.0.1:8001"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8001),
  HOST: z.string().default("127.0.0.1"),
  ADMIN_SECRET: z.string().min(
    16,
    "ADMIN_SECRET must be at least 16 characters",
  ),
  TOKEN_KEY: z.string(),
  SCHEDULER_DATABASE_URL: z.string().optional(),
  SCHEDULER_DATA_DIR: z.string().default("./data/scheduling"),
  SCHEDULER_KV_PATH: z.string().optional(),
  ENVIRONMENT: z.string().default("production"),
  SVC_DEV_ORIGINS: z.string().default(""),
  MAX_ATTEMPTS: positive(5),
  MAX_LATENESS_MS: positive(900_000),
  LEASE_MS: positive(60_000),
  MAX_RETRY_AFTER_MS: positive(300_000),
});

/** Decodes `TOKEN_KEY` (base64 of exactly 32 bytes). */
export function decodeTokenKey(value: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
  } catch {
    throw new TypeError("TOKEN_KEY must be base64");
  }
  if (bytes.length !== 32) {
    throw new TypeError("TOKEN_KEY must be base64 of 32 random bytes");
  }
  return bytes;
}

/** Reads the configuration; throws a TypeError naming the first bad setting. */
export function loadSchedulerConfig(
  env: Record<string, string | undefined>,
): SchedulerConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TypeError(`${issue.path.join(".")}: ${issue.message}`);
  }
  const e = parsed.data;
  const origin = new URL(e.PUBLIC_ORIGIN);
  if (origin.pathname !== "/" || origin.search || origin.hash) {
    throw new TypeError("PUBLIC_ORIGIN must be an origin with no path");
  }
  return {
    publicOrigin: origin.origin,
    port: e.PORT,
    hostname: e.HOST,
    adminSecret: e.ADMIN_SECRET,
    tokenKey: decodeTokenKey(e.TOKEN_KEY),
    databaseUrl: e.SCHEDULER_DATABASE_URL || null,
    dataDir: e.SCHEDULER_DATA_DIR,
    kvPath: e.SCHEDULER_KV_PATH ?? `${e.SCHEDULER_DATA_DIR}/kv.sqlite3`,
    development: e.ENVIRONMENT === "development",
    svcDevOrigins: e.SVC_DEV_ORIGINS.split(",").map((s) => s.trim()).filter(
      Boolean,
    ),
    maxAttempts: e.MAX_ATTEMPTS,
    maxLatenessMs: e.MAX_LATENESS_MS,
    leaseMs: e.LEASE_MS,
    maxRetryAfterMs: e.MAX_RETRY_AFTER_MS,
  };
}
