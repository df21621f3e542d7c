// The template build service as a child process, and an app whose template settings point at it.
import { SESSION_COOKIE } from "../../core/auth/cookies.ts";
import { CSRF_COOKIE, CSRF_HEADER } from "../../core/auth/csrf.ts";
import { createSession } from "../../core/auth/session_store.ts";
import { PROJECT_ROOT } from "../support/process.ts";
import type { TestApp } from "../support/app.ts";
import { HOST } from "../admin/helpers.ts";

/** The build service key the tests use (a test value, not a secret). */
export const BUILD_KEY = "test-build-service-key-0123456789abcdef";
/** The deploy service key and HMAC key the tests use. */
export const DEPLOY_KEY = "test-deploy-service-key-0123456789abcde";
export const HMAC_KEY = "test-release-hmac-key-0123456789abcdefgh";
/** The preview service key the tests use. */
export const PREVIEW_KEY = "test-preview-service-key-0123456789abcd";
/** A sandbox image pinned by digest. */
export const IMAGE = `registry.example/stave-sandbox@sha256:${"ab".repeat(32)}`;

/** A running build service. */
export interface BuildService {
  origin: string;
  stop(): Promise<void>;
}

/** Starts services/templates/main.ts on a free port. */
export async function startBuildService(): Promise<BuildService> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "services/templates/main.ts"],
    cwd: PROJECT_ROOT,
    env: {
      TEMPLATE_BUILD_SERVICE_KEY: BUILD_KEY,
      TEMPLATE_PREVIEW_SERVICE_KEY: PREVIEW_KEY,
      MANAGED_RENDER_DEPLOY_SERVICE_KEY: DEPLOY_KEY,
      MANAGED_RENDER_HMAC_KEY: HMAC_KEY,
      TEMPLATE_SERVICE_PORT: "0",
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  let origin = "";
  while (!origin) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`The build service exited: ${printed}`);
    printed += value;
    origin = /listening on (http:\/\/\S+)/.exec(printed)?.[1] ?? "";
  }
  const drained = (async () => {
    while (!(await reader.read()).done) { /* keep the pipe open */ }
  })();
  return {
    origin,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
      await drained;
    },
  };
}

/** The template settings of an app reaching `origin`, storing under `artifacts`. */
export function templateEnv(
  origin: string,
  artifacts: string,
): Record<string, string> {
  return {
    TEMPLATE_BUILD_SERVICE_URL: origin,
    TEMPLATE_BUILD_SERVICE_KEY: BUILD_KEY,
    TEMPLATE_SANDBOX_IMAGE: IMAGE,
    TEMPLATE_ARTIFACTS: artifacts,
    TEMPLATE_PREVIEW_SERVICE_URL: origin,
    TEMPLATE_PREVIEW_SERVICE_KEY: PREVIEW_KEY,
    MANAGED_RENDER_DEPLOY_SERVICE_URL: origin,
    MANAGED_RENDER_DEPLOY_SERVICE_KEY: DEPLOY_KEY,
    MANAGED_RENDER_INSTALLATION_ID: "stave-test",
    MANAGED_RENDER_HMAC_KEY: HMAC_KEY,
  };
}

const CSRF = "c".repeat(43);

/** Calls admin-side JSON routes as the person of `userId`, with a session and CSRF. */
export async function jsonCaller(t: TestApp, userId: string) {
  const { token } = await createSession(
    { db: t.services.db, clock: t.clock },
    userId,
  );
  return (path: string, init: { method?: string; body?: unknown } = {}) =>
    t.app.request(`http://${HOST}${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: {
        host: HOST,
        origin: `http://${HOST}`,
        "content-type": "application/json",
        cookie: `${SESSION_COOKIE}=${token}; ${CSRF_COOKIE}=${CSRF}`,
        [CSRF_HEADER]: CSRF,
      },
      body: init.body === undefined
        ? undefined
        : typeof init.body === "string"
        ? init.body
        : JSON.stringify(init.body),
    });
}
