// Shared steps of the plugin API routes: outcome answers, closed body parsing, capabilities and models.
import type { Context } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../web/env.ts";
import { DATABASE_RETRY_AFTER_SECONDS, HttpError } from "../web/errors.ts";
import { isConnectionError } from "../../plugins/sdk/pg_faults.ts";
import type { Installation } from "./installation_store.ts";
import {
  type Capability,
  isOutcomeCode,
  type OutcomeCode,
  outcomeResponse,
} from "./protocol.ts";

/** A refusal of a plugin API step: an outcome code and its message. */
export interface PluginRefusal {
  ok: false;
  code: OutcomeCode;
  message: string;
}

/** Builds a refusal value. */
export function pluginRefusal(
  code: OutcomeCode,
  message: string,
): PluginRefusal {
  return { ok: false, code, message };
}

/** The outcome answer of a refusal. */
export function refusalResponse(refusal: PluginRefusal): Response {
  return outcomeResponse(refusal.code, refusal.message);
}

/** A JSON answer carrying an outcome and further top-level fields. */
export function outcomeWith(
  code: OutcomeCode,
  message: string,
  extra: Record<string, unknown>,
  status?: number,
): Response {
  const base = outcomeResponse(code, message);
  return new Response(
    JSON.stringify({
      outcome: { code, message, retry: false },
      ...extra,
    }),
    { status: status ?? base.status, headers: base.headers },
  );
}

/** A read answer: `{ data }` with status 200. */
export function dataResponse(
  data: unknown,
  extra: Record<string, unknown> = {},
) {
  return new Response(JSON.stringify({ data, ...extra }), {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}

/** The installation the middleware authenticated; routes run only after it. */
export function installationOf(c: Context<AppEnv>): Installation {
  const installation = c.var.installation;
  if (!installation) {
    throw new Error("Plugin route ran without its middleware");
  }
  return installation;
}

const DATABASE_NAMES =
  /^(database|database_url|database_id|db|db_name|dsn|connection_string)$/i;
const SITE_NAMES = /^(site|site_id|site_slug|site_domain|tenant|tenant_id)$/i;

/** The refusal for a site or database named in a query or body field, or null. */
export function namingRefusal(
  keys: Iterable<string>,
  where: "query" | "body",
): PluginRefusal | null {
  for (const key of keys) {
    if (DATABASE_NAMES.test(key)) {
      return pluginRefusal(
        "invalid_request",
        `A plugin request cannot name a database (${where} field "${key}"): the installation token decides everything`,
      );
    }
    if (SITE_NAMES.test(key)) {
      return pluginRefusal(
        "invalid_request",
        `A plugin request cannot name a site (${where} field "${key}"): the site comes from the installation token`,
      );
    }
  }
  return null;
}

/** The refusal for a header naming a site or a database, or null. */
export function headerNamingRefusal(headers: Headers): PluginRefusal | null {
  for (const [name] of headers) {
    if (name === "sec-fetch-site") continue;
    if (/(^|-)(database|db|dsn)(-|$)/i.test(name)) {
      return pluginRefusal(
        "invalid_request",
        `A plugin request cannot name a database (header "${name}")`,
      );
    }
    if (/(^|-)(site|tenant)(-|$)/i.test(name)) {
      return pluginRefusal(
        "invalid_request",
        `A plugin request cannot name a site (header "${name}"): the site comes from the installation token`,
      );
    }
  }
  return null;
}

/**
 * Reads the body as one closed JSON object: not JSON, a site or database named, an
 * unknown key or a wrong value are all `invalid_request`, naming the first problem.
 */
export async function parseBody<S extends z.ZodType>(
  c: Context<AppEnv>,
  schema: S,
): Promise<{ ok: true; value: z.output<S> } | PluginRefusal> {
  const type = (c.req.header("content-type") ?? "").split(";")[0].trim();
  if (type !== "application/json") {
    return pluginRefusal(
      "invalid_request",
      "The body must be JSON with Content-Type: application/json",
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(await c.req.text());
  } catch {
    return pluginRefusal("invalid_request", "The body is not valid JSON");
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return pluginRefusal("invalid_request", "The body must be a JSON object");
  }
  const named = namingRefusal(Object.keys(json), "body");
  if (named) return named;
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue.path.map(String).join(".") || "(body)";
    return pluginRefusal("invalid_request", `${path}: ${issue.message}`);
  }
  return { ok: true, value: parsed.data };
}

/** The query as one value per name; a repeated name, or a site or database named, is refused. */
export function parseQuery(
  c: Context<AppEnv>,
  allowed: readonly string[],
): { ok: true; value: Record<string, string> } | PluginRefusal {
  const url = new URL(c.req.url);
  const value: Record<string, string> = {};
  const named = namingRefusal(url.searchParams.keys(), "query");
  if (named) return named;
  for (const [name, v] of url.searchParams) {
    if (!allowed.includes(name)) {
      return pluginRefusal(
        "invalid_request",
        `Unknown query parameter "${name}"`,
      );
    }
    if (Object.hasOwn(value, name)) {
      return pluginRefusal(
        "invalid_request",
        `Query parameter "${name}" is given twice`,
      );
    }
    value[name] = v;
  }
  return { ok: true, value };
}

/** `capability_refused` unless the installation's grant holds every capability. */
export function requireCapabilities(
  installation: Installation,
  needed: readonly Capability[],
): PluginRefusal | null {
  const missing = needed.filter((c) => !installation.capabilities.includes(c));
  if (missing.length === 0) return null;
  return pluginRefusal(
    "capability_refused",
    `The installation's grant does not hold: ${missing.join(", ")}`,
  );
}

/** Converts whatever a plugin route threw into an outcome answer (never the admin error shape). */
export function outcomeOfError(
  error: unknown,
  log: (entry: { level: "error"; msg: string; error: string }) => void,
): Response {
  if (error instanceof HttpError) {
    if (isOutcomeCode(error.code)) {
      return outcomeResponse(error.code, error.message);
    }
    if (error.status < 500) {
      return outcomeResponse("invalid_request", error.message);
    }
  }
  if (isConnectionError(error)) {
    // The database dropped the connection: retryable, and the pool reconnects on the next query.
    log({
      level: "error",
      msg: "plugin api database unavailable",
      error: error instanceof Error ? error.message.slice(0, 200) : "unknown",
    });
    return outcomeResponse(
      "temporary_failure",
      "The database is unavailable for a moment: retry shortly",
      { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS },
    );
  }
  log({
    level: "error",
    msg: "plugin api failure",
    error: error instanceof Error ? error.name : "unknown",
  });
  return outcomeResponse(
    "temporary_failure",
    "The service could not answer: retry later",
  );
}
