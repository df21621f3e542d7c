// A service and the example plugin as a real HTTP server, wired for plugin protocol tests.
import type { Scope } from "../../core/access/scopes.ts";
import { createSession } from "../../core/auth/session_store.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import {
  type ExamplePlugin,
  startExamplePlugin,
} from "../../plugins/testing/plugin.ts";
import { openTestApp, type TestApp } from "../support/app.ts";
import { type LocalServer, serveLocally } from "../support/browser.ts";
import { saveTestEntry, siteWithPosts } from "../support/entries.ts";

/** The Host of the test site. */
export const SITE_HOST = "plugins.test";
const CSRF = "c".repeat(43);

/** A test world: the service, one site with an administrator, a model, and the running plugin. */
export interface PluginWorld extends TestApp {
  plugin: ExamplePlugin;
  siteId: string;
  adminId: string;
  modelId: string;
  /** A signed-in person's session token (the administrator's unless another is made). */
  session: string;
  /** Calls an admin-side route as the signed-in administrator (session, CSRF header). */
  admin(
    method: string,
    path: string,
    body?: unknown,
    options?: { session?: string },
  ): Promise<Response>;
  /** Creates an entry with one saved version per language, as the administrator. */
  entry(values: Record<string, Record<string, unknown>>): Promise<{
    groupId: string;
    instances: Record<string, string>;
  }>;
  /** Installs and activates the plugin with the whole grant; answers its installation id. */
  install(
    grant?: { capabilities?: string[]; model_ids?: string[] },
  ): Promise<string>;
  /** Launches a content action on an instance and exchanges it through the plugin's page. */
  delegate(
    installationId: string,
    instanceId?: string,
    session?: string,
  ): Promise<string>;
  sessionFor(userId: string): Promise<string>;
}

/** Options of {@linkcode openPluginWorld}. */
export interface PluginWorldOptions {
  /** Shortens the plugin call limits. */
  timeoutMs?: number;
  /** Builds the islands (browser tests). */
  islands?: boolean;
  /** More settings; a `PLUGIN_DEV_ORIGINS` here is added to the plugin's origin. */
  env?: Record<string, string>;
}

/** Opens a world; `timeoutMs` shortens the plugin call limits, `islands` builds the islands. */
export async function openPluginWorld(
  options: PluginWorldOptions = {},
): Promise<PluginWorld> {
  const plugin = await startExamplePlugin();
  const t = await openTestApp({
    islands: options.islands,
    env: {
      ENVIRONMENT: "development",
      PUBLIC_URL: `http://${SITE_HOST}`,
      ...options.env,
      PLUGIN_DEV_ORIGINS: [plugin.origin, options.env?.PLUGIN_DEV_ORIGINS]
        .filter(Boolean).join(","),
    },
  });
  if (options.timeoutMs !== undefined) {
    t.services.pluginOutbound = { limits: { timeoutMs: options.timeoutMs } };
  }
  plugin.serviceFetch = async (url, init) =>
    await t.app.request(url, {
      ...init,
      headers: { ...init.headers as Record<string, string>, host: SITE_HOST },
    });
  const { siteId, adminId, modelId } = await siteWithPosts(
    t.services,
    SITE_HOST,
    "admin@plugins.test",
  );
  const sessionFor = async (userId: string) =>
    (await createSession({ db: t.services.db, clock: t.clock }, userId)).token;
  const session = await sessionFor(adminId);
  const world: PluginWorld = {
    ...t,
    close: async () => {
      await plugin.close();
      await t.close();
    },
    plugin,
    siteId,
    adminId,
    modelId,
    session,
    sessionFor,
    admin(method, path, body, opts = {}) {
      const headers: Record<string, string> = {
        host: SITE_HOST,
        cookie: `stave_session=${opts.session ?? session}; stave_csrf=${CSRF}`,
        "x-csrf-token": CSRF,
        origin: `http://${SITE_HOST}`,
      };
      if (body !== undefined) headers["content-type"] = "application/json";
      return Promise.resolve(t.app.request(`http://${SITE_HOST}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }));
    },
    entry(values) {
      return saveTestEntry({
        db: t.services.db,
        clock: t.clock,
        siteId,
        userId: adminId,
        modelId,
      }, values);
    },
    async install(grant = {}) {
      const code = await plugin.issueCode();
      const res = await world.admin("POST", "/api/plugins", {
        manifest_url: plugin.manifestUrl,
        activation_code: code,
        grant: {
          capabilities: grant.capabilities ?? plugin.behaviour.capabilities,
          model_ids: grant.model_ids ?? [modelId],
        },
      });
      const body = await res.json();
      if (res.status !== 201) {
        throw new Error(
          `Install failed: ${res.status} ${JSON.stringify(body)}`,
        );
      }
      return body.data.id;
    },
    async delegate(installationId, instanceId, asSession) {
      const res = await world.admin(
        "POST",
        `/api/plugins/${installationId}/launch`,
        instanceId === undefined ? { kind: "manage", view: "calendar" } : {
          kind: "content_action",
          action: "publish-later",
          instance_id: instanceId,
        },
        { session: asSession },
      );
      const body = await res.json();
      if (res.status !== 201) {
        throw new Error(`Launch failed: ${res.status} ${JSON.stringify(body)}`);
      }
      const page = await fetch(body.data.url, { redirect: "manual" });
      await page.body?.cancel();
      if (page.status !== 303) {
        throw new Error(`The plugin's launch page answered ${page.status}`);
      }
      const delegation = plugin.delegations.get(installationId) as {
        delegation_id: string;
      };
      return delegation.delegation_id;
    },
  };
  return world;
}

/** Runs `fn` in a fresh world and closes it afterwards. */
export async function withPluginWorld(
  fn: (w: PluginWorld) => Promise<void>,
  options: PluginWorldOptions = {},
): Promise<void> {
  const world = await openPluginWorld(options);
  try {
    await fn(world);
  } finally {
    await world.close();
  }
}

/** Options of {@linkcode manager}. */
export interface ManagerOptions {
  /** The credential's models; null (the default) reaches every model. */
  models?: string[] | null;
}

/** A Management API caller with a credential of `scopes` made by the administrator; writes are keyed. */
export async function manager(
  w: PluginWorld,
  scopes: Scope[],
  options: ManagerOptions = {},
) {
  const { secret } = await insertCredential(w.services.db, w.clock, {
    siteId: w.siteId,
    creatorId: w.adminId,
    name: `script ${scopes.join(" ")}`,
    scopes,
    models: options.models ?? null,
  });
  let n = 0;
  return async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = {
      host: SITE_HOST,
      authorization: `Bearer ${secret}`,
    };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["idempotency-key"] = `op-${++n}-${crypto.randomUUID()}`;
    }
    const res = await w.app.request(
      `http://${SITE_HOST}/api/manage/v1${path}`,
      {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      },
    );
    return {
      status: res.status,
      body: await res.json() as Record<string, unknown>,
    };
  };
}

/** Opens an admin page (GET), or posts a form to it with the CSRF field, as the signed-in administrator. */
export function adminPage(
  w: {
    app: {
      request: (url: string, init: RequestInit) => Response | Promise<Response>;
    };
    session: string;
  },
  path: string,
  /** A form to post; a `URLSearchParams` may repeat a name (several checkboxes). */
  fields?: Record<string, string> | URLSearchParams,
): Promise<Response> {
  const headers: Record<string, string> = {
    host: SITE_HOST,
    accept: "text/html",
    cookie: `stave_session=${w.session}; stave_csrf=${CSRF}`,
    origin: `http://${SITE_HOST}`,
  };
  let body: string | undefined;
  if (fields) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    const form = new URLSearchParams(fields);
    form.set("_csrf", CSRF);
    body = form.toString();
  }
  return Promise.resolve(w.app.request(`http://${SITE_HOST}${path}`, {
    method: fields ? "POST" : "GET",
    headers,
    body,
  }));
}

/**
 * Serves the world's app on 127.0.0.1 for a browser: each request reaches the service with the
 * site's host (and origin, for form posts), as a browser at the site's address would send it.
 */
export function serveWorldLocally(w: { app: TestApp["app"] }): LocalServer {
  return serveLocally((request, info) => {
    const url = new URL(request.url);
    const headers = new Headers(request.headers);
    headers.set("host", SITE_HOST);
    if (headers.has("origin")) headers.set("origin", `http://${SITE_HOST}`);
    return w.app.fetch(
      new Request(`http://${SITE_HOST}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: request.body,
        redirect: "manual",
      }),
      info,
    );
  });
}
