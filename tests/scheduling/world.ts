// Stave and the scheduling plugin, both real: the plugin serves HTTP on 127.0.0.1 (Stave calls
// its manifest, activation and pages there) and reaches Stave's /api/plugin/v1 through `fetch`
// into the test app with the site's Host. One manual clock drives both.
import type { Scope } from "../../core/access/scopes.ts";
import { createSession } from "../../core/auth/session_store.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import {
  type RunningScheduler,
  startScheduler,
} from "../../plugins/scheduling/server.ts";
import { openTestApp, type TestApp } from "../support/app.ts";
import { lendSchedulerEngine } from "./engines.ts";
import { saveTestEntry, siteWithPosts } from "../support/entries.ts";

export const SITE_HOST = "schedules.test";
const DEFAULT_SITE_HOST = SITE_HOST;
const CSRF = "c".repeat(43);

/** Every transition command the plugin sent, and a hook to answer one instead of Stave. */
export interface Wire {
  transitions: { path: string; key: string | null; body: unknown }[];
  /** Every `/releases/commit` the plugin sent. */
  commits: { key: string | null; body: unknown }[];
  /** Answers in place of the service while it returns a Response. */
  intercept?: (url: string) => Response | undefined;
  /** Lets Stave answer, then loses that answer on the way back (a 502 instead). */
  loseAnswer?: (url: string) => boolean;
  /** Runs once Stave has answered, before the answer goes back: a delay the test controls. */
  answered?: (url: string) => Promise<void> | void;
  /** Runs while the plugin waits `ms` before a resend (its injected sleep). */
  waiting?: (ms: number) => Promise<void> | void;
}

export interface SchedulingWorld extends TestApp {
  scheduler: RunningScheduler;
  wire: Wire;
  siteId: string;
  adminId: string;
  modelId: string;
  session: string;
  installationId: string;
  /** The plugin's TOKEN_KEY, for a second process on the same storage. */
  tokenKey: Uint8Array;
  /** How the plugin reaches Stave (for a second tick on the same storage). */
  serviceFetch: typeof fetch;
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  entry(values: Record<string, Record<string, unknown>>): Promise<{
    groupId: string;
    instances: Record<string, string>;
  }>;
  /** Launches the Schedule action on an instance and answers the plugin session's cookie and CSRF token. */
  launch(instanceId: string): Promise<PluginBrowser>;
  /** A management credential of the administrator with `scopes`; answers its secret. */
  credential(scopes: Scope[]): Promise<string>;
  /** Launches a manage view (`calendar` or `releases`). */
  manage(view?: string): Promise<PluginBrowser>;
  /** The entry group's state per language as Stave holds it. */
  states(groupId: string): Promise<Record<string, string>>;
}

/** A browser of the plugin's pages: its cookie and CSRF token. */
export interface PluginBrowser {
  cookie: string;
  csrf: string;
  get(path: string): Promise<Response>;
  post(path: string, fields: Record<string, string>): Promise<Response>;
}

/** Where the world's Stave answers: its site's host, and the service's public URL. */
export interface SchedulingWorldOptions {
  /** The site's domain (default `schedules.test`, reached only in process). */
  siteHost?: string;
  /** The service's public URL (default `http://<siteHost>`); a browser test serves it there. */
  publicUrl?: string;
}

/** Opens the world with the plugin installed and active for the `posts` model. */
export async function openSchedulingWorld(
  options: SchedulingWorldOptions = {},
): Promise<SchedulingWorld> {
  const SITE_HOST = options.siteHost ?? DEFAULT_SITE_HOST;
  const publicUrl = options.publicUrl ?? `http://${SITE_HOST}`;
  const wire: Wire = { transitions: [], commits: [] };
  const holder: { t?: TestApp } = {};
  const kv = await Deno.openKv(":memory:");
  const tokenKey = crypto.getRandomValues(new Uint8Array(32));
  // How the plugin reaches Stave: into the test app with the site's Host, recorded on the wire.
  const serviceFetch: typeof fetch = async (input, init) => {
    const url = String(input);
    const t = holder.t!;
    if (url.includes("/transitions/")) {
      const headers = new Headers(init?.headers);
      wire.transitions.push({
        path: new URL(url).pathname,
        key: headers.get("idempotency-key"),
        body: JSON.parse(String(init?.body ?? "null")),
      });
    }
    if (url.endsWith("/releases/commit")) {
      wire.commits.push({
        key: new Headers(init?.headers).get("idempotency-key"),
        body: JSON.parse(String(init?.body ?? "null")),
      });
    }
    const replaced = wire.intercept?.(url);
    if (replaced) return replaced;
    const headers = new Headers(init?.headers);
    headers.set("host", SITE_HOST);
    const answer = await t.app.request(url, { ...init, headers });
    await wire.answered?.(url);
    if (wire.loseAnswer?.(url)) {
      await answer.body?.cancel();
      return new Response("upstream gone", { status: 502 });
    }
    return answer;
  };
  const engine = await lendSchedulerEngine();
  const scheduler = await startScheduler({
    adminSecret: "scheduler-operator-secret",
    tokenKey,
    database: { engine: engine.pglite },
    kv,
    servicePolicy: {
      development: true,
      devOrigins: [new URL(publicUrl).origin],
    },
    now: () => holder.t!.clock.now().getTime(),
    random: () => 0.5,
    // Retries wait on the test's clock, never on a timer.
    sleep: async (ms) => {
      await wire.waiting?.(ms);
      holder.t!.clock.advance(ms);
    },
    fetch: serviceFetch,
  });
  const t = await openTestApp({
    env: {
      ENVIRONMENT: "development",
      PLUGIN_DEV_ORIGINS: scheduler.origin,
      PUBLIC_URL: publicUrl,
    },
  });
  holder.t = t;
  const { siteId, adminId, modelId } = await siteWithPosts(
    t.services,
    SITE_HOST,
    "admin@schedules.test",
  );
  const session = (await createSession(
    { db: t.services.db, clock: t.clock },
    adminId,
  ))
    .token;
  const admin = (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = {
      host: SITE_HOST,
      cookie: `stave_session=${session}; stave_csrf=${CSRF}`,
      "x-csrf-token": CSRF,
      origin: `http://${SITE_HOST}`,
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    return Promise.resolve(t.app.request(`http://${SITE_HOST}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }));
  };
  const installed = await admin("POST", "/api/plugins", {
    manifest_url: scheduler.manifestUrl,
    activation_code: await scheduler.issueCode(),
    grant: {
      capabilities: [
        "content:read",
        "workflow:read",
        "workflow:publish",
        "workflow:unpublish",
        "workflow:locale",
        "workflow:release",
      ],
      model_ids: [modelId],
    },
  });
  const installedBody = await installed.json();
  if (installed.status !== 201) {
    throw new Error(`Install failed: ${JSON.stringify(installedBody)}`);
  }
  const installationId = installedBody.data.id as string;

  const world: SchedulingWorld = {
    ...t,
    scheduler,
    wire,
    siteId,
    adminId,
    modelId,
    session,
    installationId,
    tokenKey,
    serviceFetch,
    admin,
    close: async () => {
      await scheduler.close();
      await engine.giveBack();
      kv.close();
      await t.close();
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
    async launch(instanceId) {
      const res = await admin("POST", `/api/plugins/${installationId}/launch`, {
        kind: "content_action",
        action: "schedule",
        instance_id: instanceId,
      });
      const body = await res.json();
      if (res.status !== 201) {
        throw new Error(`Launch failed: ${res.status} ${JSON.stringify(body)}`);
      }
      return await openLaunch(body.data.url);
    },
    async credential(scopes) {
      const { secret } = await insertCredential(t.services.db, t.clock, {
        siteId,
        creatorId: adminId,
        name: `agent ${scopes.join(" ")}`,
        scopes,
        models: null,
      });
      return secret;
    },
    async manage(view = "releases") {
      const res = await admin("POST", `/api/plugins/${installationId}/launch`, {
        kind: "manage",
        view,
      });
      const body = await res.json();
      if (res.status !== 201) {
        throw new Error(`Launch failed: ${res.status} ${JSON.stringify(body)}`);
      }
      return await openLaunch(body.data.url);
    },
    async states(groupId) {
      const rows = await t.services.db.selectFrom("entries")
        .select(["locale", "published_version_id"])
        .where("site_id", "=", siteId).where("group_id", "=", groupId)
        .execute();
      return Object.fromEntries(
        rows.map((
          r,
        ) => [r.locale, r.published_version_id ? "published" : "draft"]),
      );
    },
  };
  return world;
}

/** Follows a launch URL as a browser would and keeps the plugin's session. */
export async function openLaunch(url: string): Promise<PluginBrowser> {
  const origin = new URL(url).origin;
  const res = await fetch(url, { redirect: "manual" });
  await res.body?.cancel();
  if (res.status !== 303) throw new Error(`Launch page answered ${res.status}`);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
  const get = (path: string) =>
    fetch(`${origin}${path}`, { headers: { cookie }, redirect: "manual" });
  const page = await (await get(res.headers.get("location")!)).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
  return {
    cookie,
    csrf,
    get,
    post: (path, fields) =>
      fetch(`${origin}${path}`, {
        method: "POST",
        headers: {
          cookie,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ _csrf: csrf, ...fields }),
        redirect: "manual",
      }),
  };
}

/** Runs `fn` in a fresh world and closes it afterwards. */
export async function withSchedulingWorld(
  fn: (w: SchedulingWorld) => Promise<void>,
  options: SchedulingWorldOptions = {},
): Promise<void> {
  const world = await openSchedulingWorld(options);
  try {
    await fn(world);
  } finally {
    await world.close();
  }
}
