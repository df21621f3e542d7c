// List and single reads dispatched before routing. A GET or HEAD of `/v1/{model}` or
// `/v1/{model}/{slug}` whose site, token and model a request of this generation already resolved
// (the context remembered by core/public/request_context.ts, current: no commit announced since)
// is read here, ahead of the router and the /v1 middleware chain, with the same context, the
// same token check and the same read and answer steps the routes run. Those steps build final
// answers (CORS and security headers included), so the middleware after them would add nothing.
// Anything else, and any refusal or failure here, goes on to the routes, which answer it as
// before: a refusal is decided, and answered with its headers, by the full path alone.
import type { Context, MiddlewareHandler } from "hono";
import { changeFeedOf, type Db } from "../db/database.ts";
import type { AppEnv } from "../web/env.ts";
import { servePublicRead } from "./kept_answers.ts";
import { listItems } from "./list.ts";
import { readItem } from "./single.ts";
import { rememberedContext } from "./request_context.ts";
import { checkSiteToken, publicContextQuery } from "./context_refresh.ts";
import { pathOf } from "./front_answers.ts";

/**
 * Path segments taken here: a plain model or entry slug. Anything a router would decode
 * (percent escapes), a trailing slash or an empty segment goes to the routes.
 */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/;

/** How many reads were answered before routing, per database handle. */
const served = new WeakMap<Db, number>();

/** How many list and single reads `db`'s service answered before routing. */
export function frontReadsServed(db: Db): number {
  return served.get(db) ?? 0;
}

/**
 * Dispatches list and single reads before routing. `reserved` names the first segments under
 * `/v1/` that other routes own (`_search`, `interactions`, ...): those paths are never taken.
 */
export function frontReads(
  reserved: ReadonlySet<string>,
): MiddlewareHandler<AppEnv> {
  return async function frontReads(c, next) {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD") {
      const answer = await frontRead(c, reserved);
      if (answer) return answer;
    }
    await next();
  };
}

/** The model and slug of a `/v1/{model}[/{slug}]` path; null for any other. */
export function readPath(
  path: string,
  reserved: ReadonlySet<string>,
): { model: string; slug: string | null } | null {
  if (!path.startsWith("/v1/")) return null;
  const rest = path.slice(4);
  const slash = rest.indexOf("/");
  const model = slash < 0 ? rest : rest.slice(0, slash);
  const slug = slash < 0 ? null : rest.slice(slash + 1);
  if (!SEGMENT.test(model) || reserved.has(model)) return null;
  if (slug !== null && !SEGMENT.test(slug)) return null;
  return { model, slug };
}

async function frontRead(
  c: Context<AppEnv>,
  reserved: ReadonlySet<string>,
): Promise<Response | null> {
  const { db, reads } = c.get("services");
  // Replica reads choose their handle in the /v1 middleware.
  if (reads) return null;
  const generation = changeFeedOf(db)?.generation() ?? null;
  if (generation === null) return null;
  const sent = pathOf(c);
  const query = sent.indexOf("?");
  // A preview reads drafts with a fresh context (core/public/middleware.ts).
  if (query >= 0 && sent.includes("preview", query)) return null;
  const path = readPath(query < 0 ? sent : sent.slice(0, query), reserved);
  if (!path) return null;
  const contextQuery = publicContextQuery(
    c.req.header("host"),
    c.req.header("authorization"),
    path.model,
  );
  if (!contextQuery) return null;
  const context = rememberedContext(db, contextQuery, generation);
  if (!context || context.unconfirmed) return null;
  c.set("site", context.site);
  c.set("publicContext", context);
  try {
    c.set("siteToken", checkSiteToken(c));
    const { model, slug } = path;
    const answer = await servePublicRead(
      c,
      slug === null
        ? (ctx, params) => listItems(ctx, model, params)
        : (ctx, params) => readItem(ctx, { model, slug }, params),
    );
    c.set("frontRoute", slug === null ? "/v1/:model" : "/v1/:model/:slug");
    served.set(db, frontReadsServed(db) + 1);
    return answer;
  } catch {
    // The routes read it again and answer the refusal with every header it carries there.
    return null;
  }
}
