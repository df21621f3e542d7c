// What the process serves: the public app at once, the whole app on the first request it must answer.
import type { Hono } from "hono";
import { getPath } from "hono/utils/url";
import { manifest as publicManifest } from "../routes_public.gen.ts";
import type { Services } from "./services.ts";
import type { AppEnv } from "./web/env.ts";
import { buildApp } from "./build_app.ts";
import { answerCheckOn } from "./openapi/answer_check.ts";
import { inPublicApp } from "./web/public_app_paths.ts";
import { PublicRouter } from "./web/public_router.ts";

/** Options of {@link createServedApp}. */
export interface ServedAppOptions {
  /** Builds the whole app; core/server.ts's createApp, imported when first needed, by default. */
  loadWholeApp?: (services: Services) => Promise<Hono<AppEnv>>;
}

/** Answers requests as `Deno.serve` hands them over. */
export interface ServedApp {
  fetch(
    request: Request,
    info?: Deno.ServeHandlerInfo,
  ): Response | Promise<Response>;
}

/**
 * A process that only serves public reads never loads the admin pages, the Management API, MCP,
 * OAuth or the OpenAPI documents (about 35 MiB, a quarter of its memory at start). Paths of the
 * public app's segments go to the public app, which holds the same steps and routes the whole app
 * has there; any other path goes to the whole app, built on the first such request.
 */
export async function createServedApp(
  services: Services,
  options: ServedAppOptions = {},
): Promise<ServedApp> {
  const documents = answerCheckOn((name) => Deno.env.get(name))
    ? (await import("./openapi/checked_documents.ts")).CHECKED_DOCUMENTS
    : [];
  const publicApp = buildApp(services, {
    manifest: publicManifest,
    checkedDocuments: () => documents,
    // Tries only the routes a path can match, in order. The trie's lookup, and PatternRouter's
    // after it, allocated per request arrays that V8 came to allocate straight into the old
    // generation (pretenuring): under load the heap grew by 1.3-2.5 KB per answer until a full
    // collection. PublicRouter's lookup makes none that V8 pretenures.
    router: new PublicRouter(),
  });
  const loadWholeApp = options.loadWholeApp ?? importWholeApp;
  let wholeApp: Promise<Hono<AppEnv>> | null = null;
  return {
    fetch(request, info) {
      if (inPublicApp(getPath(request))) return publicApp.fetch(request, info);
      wholeApp ??= loadWholeApp(services);
      return wholeApp.then((app) => app.fetch(request, info));
    },
  };
}

async function importWholeApp(services: Services): Promise<Hono<AppEnv>> {
  const { createApp } = await import("./server.ts");
  return createApp(services);
}
