// A real CMS process with the demo site and a real renderer process beside it, for renderer tests.
import {
  privateProcessEnv,
  type ProcessEnv,
  PROJECT_ROOT,
  runDeno,
  type RunningService,
  spawnService,
} from "../support/process.ts";

/** A running renderer child. */
export interface RunningRenderer {
  origin: string;
  stop(): Promise<void>;
}

/** Starts `services/renderer/main.ts` reading the public API at `apiUrl`. */
export async function spawnRenderer(
  apiUrl: string,
  extra: Record<string, string> = {},
): Promise<RunningRenderer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "services/renderer/main.ts"],
    cwd: PROJECT_ROOT,
    env: {
      STAVE_API_URL: apiUrl,
      RENDERER_PORT: "0",
      NO_COLOR: "1",
      // Tests read a page right after publishing it; the reuse window has its own unit test.
      RENDERER_PAGE_REUSE_MS: "0",
      ...extra,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  let origin = "";
  while (!origin) {
    const { value, done } = await reader.read();
    if (done) {
      await child.status;
      throw new Error(
        `renderer exited before listening:\n${printed}\n${await stderr}`,
      );
    }
    printed += value;
    origin = /listening on (http:\/\/\S+)/.exec(printed)?.[1] ?? "";
  }
  const drained = (async () => {
    while (!(await reader.read()).done) { /* keep the pipe flowing */ }
  })();
  return {
    origin,
    stop: async () => {
      child.kill("SIGTERM");
      await child.status;
      await drained;
      await stderr;
    },
  };
}

/** CMS ports of the renderer test files: each file has its own, so parts may run together. */
export const DEMO_PORTS = {
  process: 18765,
  browser: 18766,
  bench: 18767,
} as const;

/** The demo CMS, a management token on its site, and the renderer reading it. */
export interface DemoSite {
  cms: RunningService;
  /** The CMS as the site's host answers it (`http://localhost:<port>`). */
  api: string;
  token: string;
  /** The demo administrator's password (admin@example.com). */
  password: string;
  renderer: RunningRenderer;
  close(): Promise<void>;
}

/**
 * Seeds the demo site in a private data folder (a first start), makes a management credential
 * with `svc credential`, then starts the CMS again and the renderer beside it.
 */
export async function startDemoSite(
  port: number = DEMO_PORTS.process,
  options: {
    rendererEnv?: Record<string, string>;
    /** When the CMS is killed if nobody stopped it (a hung test's safety net). */
    deadlineMs?: number;
  } = {},
): Promise<DemoSite> {
  const penv: ProcessEnv = await privateProcessEnv();
  // A fixed address lets a later run start from the prepared demo (its fingerprint names the
  // public URL) instead of seeding it again, which takes a minute on a busy machine.
  const env = {
    ...penv.env,
    PORT: String(port),
    PUBLIC_URL: `http://localhost:${port}`,
    DEMO_SITE: "true",
    DEMO_DOMAIN: "localhost",
    RENDERER_COMPANION: "false",
  };
  const first = await spawnService(env, { deadlineMs: 240_000 });
  await first.stop();
  const password = /with password (\S+)$/m.exec(first.stdout())?.[1] ??
    (await Deno.readTextFile(`${penv.dataDir}/demo-admin.txt`)).trim()
      .split(/\s+/).at(-1)!;
  const made = await runDeno([
    "run",
    "-A",
    "--unstable-kv",
    "cli/svc.ts",
    "credential",
    "--json",
    "--domain",
    "localhost",
    "--admin-email",
    "admin@example.com",
    "--name",
    "renderer-test",
    "--scopes",
    "content:read,content:write,pages:write,lifecycle:publish,settings:write",
  ], env);
  if (made.code !== 0) throw new Error(`svc credential failed: ${made.stderr}`);
  const token = /"(svm_[^"]+)"/.exec(made.stdout)?.[1];
  if (!token) throw new Error(`No credential in: ${made.stdout}`);
  // The renderer's port is fixed too, so the admin can link to it (SITE_RENDERER_URLS).
  const rendererPort = port + 100;
  const cms = await spawnService({
    ...env,
    SITE_RENDERER_URLS: `localhost=http://localhost:${rendererPort}`,
  }, { deadlineMs: options.deadlineMs ?? 120_000 });
  const api = `http://localhost:${cms.port}`;
  const renderer = await spawnRenderer(api, {
    RENDERER_PORT: String(rendererPort),
    ...options.rendererEnv,
  });
  return {
    cms,
    api,
    token,
    password,
    renderer,
    close: async () => {
      await renderer.stop();
      await cms.stop();
      await penv.cleanup();
    },
  };
}

/** Replaces the site's SEO redirects (the renderer reads them within 30 s). */
export async function putRedirects(
  site: DemoSite,
  redirects: unknown[],
): Promise<void> {
  const seo = await manage(site, "GET", "/settings/seo");
  const data = seo.body as {
    revision: number;
    document: Record<string, unknown>;
  };
  const put = await manage(site, "PUT", "/settings/seo", {
    expected_revision: data.revision,
    document: { ...data.document, redirects },
  });
  if (put.status !== 200) {
    throw new Error(`Redirects refused: ${JSON.stringify(put.body)}`);
  }
}

/** Calls the Management API of the demo site. */
export async function manage(
  site: DemoSite,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${site.api}/api/manage/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${site.token}`,
      "content-type": "application/json",
      ...(method === "GET" ? {} : { "idempotency-key": crypto.randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}
