// Browser origins of a site (Settings -> API -> Browser origins): who may read the public API cross-origin.
import type { Context } from "hono";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { AppEnv } from "../web/env.ts";
import type { PublicContext } from "./request_context.ts";

/** One refused line of the origins text. */
export interface OriginProblem {
  line: number;
  message: string;
}

/** Parses one origin per line (blank lines ignored); `*` allows every origin. */
export function parseBrowserOrigins(
  text: string,
): { ok: true; origins: string[] } | { ok: false; problems: OriginProblem[] } {
  const origins: string[] = [];
  const problems: OriginProblem[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    if (line === "*") return void origins.push("*");
    let url: URL | null = null;
    try {
      url = new URL(line);
    } catch {
      url = null;
    }
    if (
      !url || (url.protocol !== "https:" && url.protocol !== "http:") ||
      url.origin !== line.toLowerCase() || url.username || url.password
    ) {
      problems.push({
        line: i + 1,
        message:
          `Expected a complete http(s) origin without trailing slash or path, such as "https://www.example.com": "${
            line.slice(0, 100)
          }"`,
      });
      return;
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, origins };
}

/** Replaces the site's origins with the parsed `text`; nothing changes on refusal. */
export async function setBrowserOrigins(
  ctx: { db: Db; clock: Clock },
  siteId: string,
  text: string,
): Promise<
  | { ok: true; origins: string[] }
  | { ok: false; code: "input_invalid"; problems: OriginProblem[] }
> {
  const parsed = parseBrowserOrigins(text);
  if (!parsed.ok) {
    return { ok: false, code: "input_invalid", problems: parsed.problems };
  }
  const row = {
    site_id: siteId,
    origins: JSON.stringify(parsed.origins),
    updated_at: ctx.clock.now(),
  };
  await ctx.db.insertInto("site_browser_origins").values(row)
    .onConflict((oc) =>
      oc.column("site_id").doUpdateSet({
        origins: row.origins,
        updated_at: row.updated_at,
      })
    ).execute();
  return { ok: true, origins: parsed.origins };
}

/** The site's origins; empty (no cross-origin reads) by default. */
export async function getBrowserOrigins(
  db: Db,
  siteId: string,
): Promise<string[]> {
  const row = await db.selectFrom("site_browser_origins").select("origins")
    .where("site_id", "=", siteId).executeTakeFirst();
  return (row?.origins as string[] | undefined) ?? [];
}

/** True when `origin` may read cross-origin. */
export function originAllowed(
  origins: readonly string[],
  origin: string,
): boolean {
  return origins.includes("*") || origins.includes(origin.toLowerCase());
}

/** Answer headers a browser script may read. */
const EXPOSED = "ETag, Cache-Tag";

/**
 * The `Origin` of `c`'s /v1 request when the site's browser origins allow it, else null. Asked
 * when needed: a read may replace an unconfirmed context with a fresh one.
 */
export function allowedOrigin(c: Context<AppEnv>): string | null {
  const origin = c.req.header("origin");
  return origin !== undefined && origin !== "null" &&
      originAllowed(contextOf(c).origins, origin)
    ? origin
    : null;
}

/**
 * The CORS headers of a /v1 answer to `c`'s request: allow-origin and the exposed headers for an
 * allowed origin, none otherwise. Asked after the read.
 */
export function corsAnswerHeaders(c: Context<AppEnv>): [string, string][] {
  const origin = allowedOrigin(c);
  return origin === null ? [] : [
    ["Access-Control-Allow-Origin", origin],
    ["Access-Control-Expose-Headers", EXPOSED],
  ];
}

/** The request's public context (typed here: the /v1 middleware sets it). */
function contextOf(c: Context<AppEnv>): PublicContext {
  return c.get("publicContext");
}
