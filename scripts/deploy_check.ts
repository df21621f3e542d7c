// `deno task deploy:check`: starts the service (and, unless --no-tick, the scheduling plugin) the
// way Deno Deploy runs them: DENO_DEPLOYMENT_ID set, no permission to write, run subprocesses or
// load native code, PostgreSQL, the path-less KV, media in S3-compatible storage, and the island
// bundles of `deno task build`. It proves they serve /health, /v1, /admin and a plugin tick.
import pg from "pg";
import S3rver from "s3rver";
import { loadConfig } from "../core/config.ts";
import { openServices } from "../core/boot.ts";
import { ensureDemoSite } from "../core/sites/demo_site.ts";
import { PROJECT_ROOT } from "../core/server.ts";
import {
  PREBUILT_MANIFEST,
  stalePrebuiltIslands,
} from "../core/web/islands_prebuilt.ts";
import { manifest } from "../routes.gen.ts";

/** What Deploy grants a deployment: read its own files, network, environment; nothing else. */
export const DEPLOY_PERMISSIONS = [
  "--allow-read",
  "--allow-net",
  "--allow-env",
  "--allow-sys",
  "--deny-write",
  "--deny-run",
  "--deny-ffi",
  "--unstable-kv",
  "--unstable-cron",
  // The path-less Deno.openKv() keeps its file per origin: one of its own for the check.
  "--location",
  "http://stave-deploy-check.invalid/",
];

/** Options of {@link deployCheck}. */
export interface DeployCheckOptions {
  /** A PostgreSQL URL whose server may create and drop scratch databases. */
  databaseUrl: string;
  /** Also run the scheduling plugin as its own deployment and wait for its minute tick. */
  tick: boolean;
  /** Where progress lines go. */
  log?: (line: string) => void;
}

/** One thing the check proved, as a line for the operator. */
export interface DeployCheckReport {
  proved: string[];
}

/** Runs the check; throws naming the first thing that failed. */
export async function deployCheck(
  options: DeployCheckOptions,
): Promise<DeployCheckReport> {
  const log = options.log ?? (() => {});
  const proved: string[] = [];
  const stale = await stalePrebuiltIslands({
    root: PROJECT_ROOT,
    islands: manifest.islands,
  });
  if (stale.length > 0) {
    throw new Error(
      `The prebuilt island bundles are stale (${
        stale[0]
      }): run "deno task build" first`,
    );
  }
  proved.push("the island bundles of deno task build match the code");
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const s3 = await startS3();
    cleanups.push(s3.close);
    const database = await scratchDatabase(options.databaseUrl);
    cleanups.push(database.drop);
    const env: Record<string, string> = {
      DENO_DEPLOYMENT_ID: "deploy-check",
      DENO_REGION: "local",
      DATABASE_URL: database.url,
      PUBLIC_URL: "https://cms.example.com",
      MEDIA_S3_ENDPOINT: s3.endpoint,
      MEDIA_S3_BUCKET: "stave-media",
      MEDIA_S3_ACCESS_KEY_ID: "S3RVER",
      MEDIA_S3_SECRET_ACCESS_KEY: "S3RVER",
      PORT: "0",
      NO_COLOR: "1",
    };
    log("Seeding the demo site into the scratch database (an operator's step)");
    await seedDemo(env);
    const service = await spawnDeployed(
      "main.ts",
      env,
      /Listening on port (\d+)/,
    );
    cleanups.push(service.stop);
    const deployed = [service];
    const origin = `http://localhost:${service.port}`;
    proved.push(
      "the service started with DENO_DEPLOYMENT_ID, no write permission and the path-less KV",
    );
    await expect(`${origin}/health`, 200, /"site"/);
    proved.push("/health answers 200 for the site");
    await expect(`${origin}/health/ready`, 200, /"ready":true/);
    proved.push("/health/ready checks PostgreSQL, KV and S3 storage");
    const list = await expect(`${origin}/v1/posts?limit=2`, 200, /"data"/);
    const items = JSON.parse(list).data as { slug: string }[];
    if (items.length === 0) throw new Error("/v1/posts answered no items");
    proved.push(`/v1/posts answers ${items.length} published items`);
    // The demo's images were stored in the bucket; the deployed service reads them back from it.
    const media = /"https:\/\/cms\.example\.com(\/media\/[^"?]+)/.exec(
      await expect(`${origin}/v1/posts?limit=20`, 200, /"data"/),
    )?.[1];
    if (!media) throw new Error("/v1/posts names no media file");
    const file = await fetch(`${origin}${media}`);
    const bytes = (await file.arrayBuffer()).byteLength;
    if (file.status !== 200 || bytes === 0) {
      throw new Error(`${media} answered ${file.status} with ${bytes} bytes`);
    }
    proved.push(`${media} is served from S3-compatible storage`);
    // Without FFI sharp's native add-on cannot load, as on Deploy: the WebAssembly codecs make it.
    const variant = await fetch(`${origin}${media}?width=16&format=webp`);
    const variantBytes = (await variant.arrayBuffer()).byteLength;
    if (
      variant.status !== 200 ||
      variant.headers.get("content-type") !== "image/webp" || variantBytes === 0
    ) {
      throw new Error(
        `${media}?width=16&format=webp answered ${variant.status} (${
          variant.headers.get("content-type")
        }, ${variantBytes} bytes), expected a WebP made by the WebAssembly codecs`,
      );
    }
    proved.push(
      "an image variant is made without FFI by the WebAssembly codecs",
    );
    await expect(`${origin}/admin/sign-in`, 200, /<form/);
    proved.push("/admin/sign-in renders");
    const built = JSON.parse(
      await Deno.readTextFile(`${PROJECT_ROOT}/${PREBUILT_MANIFEST}`),
    ) as { assets: { boot: string } };
    await expect(`${origin}${built.assets.boot}`, 200, /./);
    proved.push(`the prebuilt boot script ${built.assets.boot} is served`);
    const admin = await fetch(`${origin}/admin`, { redirect: "manual" });
    await admin.body?.cancel();
    if (admin.status !== 302 && admin.status !== 303) {
      throw new Error(`/admin answered ${admin.status}, expected a redirect`);
    }
    proved.push(`/admin answers ${admin.status} to sign in`);
    if (options.tick) {
      const plugin = await scratchDatabase(options.databaseUrl);
      cleanups.push(plugin.drop);
      const port = freePort();
      const scheduling = await spawnDeployed("plugins/scheduling/main.ts", {
        DENO_DEPLOYMENT_ID: "deploy-check-scheduling",
        DENO_REGION: "local",
        SCHEDULER_DATABASE_URL: plugin.url,
        ADMIN_SECRET: crypto.randomUUID(),
        TOKEN_KEY: btoa(
          String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))),
        ),
        PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
        PORT: String(port),
        SCHEDULER_LOG_TICKS: "true",
        NO_COLOR: "1",
      }, /listening on http:\/\/[^:]+:(\d+)/);
      cleanups.push(scheduling.stop);
      deployed.push(scheduling);
      await expect(
        `http://127.0.0.1:${port}/svc/manifest.json`,
        200,
        /"id"/,
      );
      proved.push(
        "the scheduling plugin serves its manifest as its own deployment",
      );
      log("Waiting for the scheduling plugin's minute tick (up to 70 s)");
      await scheduling.waitFor(/scheduling: tick sent/, 70_000);
      proved.push(
        "the scheduling plugin's Deno.cron tick ran against PostgreSQL",
      );
    }
    for (const stop of deployed) {
      const { stderr } = await stop.stop();
      if (/NotCapable|PermissionDenied|Requires write access/.test(stderr)) {
        throw new Error(`The deployed service tried to write: ${stderr}`);
      }
    }
    proved.push("nothing asked for write access");
    return { proved };
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch(() => {});
    }
  }
}

async function expect(
  url: string,
  status: number,
  body: RegExp,
): Promise<string> {
  const answer = await fetch(url);
  const text = await answer.text();
  if (answer.status !== status || !body.test(text)) {
    throw new Error(
      `${url} answered ${answer.status} (expected ${status}): ${
        text.slice(0, 300)
      }`,
    );
  }
  return text;
}

async function seedDemo(env: Record<string, string>): Promise<void> {
  const dataDir = await Deno.makeTempDir({ prefix: "stave-deploy-check-" });
  try {
    const config = loadConfig({
      ...env,
      DENO_DEPLOYMENT_ID: undefined,
      DEMO_SITE: "true",
      DATA_DIR: dataDir,
    });
    const { services, close } = await openServices(config, {
      buildIslands: false,
      log: () => {},
    });
    try {
      await ensureDemoSite(services);
    } finally {
      await close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

interface Deployed {
  port: number;
  waitFor(pattern: RegExp, ms: number): Promise<void>;
  stop(): Promise<{ stderr: string }>;
}

async function spawnDeployed(
  entry: string,
  env: Record<string, string>,
  listening: RegExp,
): Promise<Deployed> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...DEPLOY_PERMISSIONS, entry],
    cwd: PROJECT_ROOT,
    // Only what Deploy would set: no DATA_DIR, no KV_PATH, nothing of this machine's.
    env: { PATH: Deno.env.get("PATH") ?? "", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let printed = "";
  let errors = "";
  const waiters: (() => void)[] = [];
  const pump = async (
    stream: ReadableStream<Uint8Array<ArrayBuffer>>,
    add: (text: string) => void,
  ) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      add(text);
      for (const wake of waiters.splice(0)) wake();
    }
  };
  const out = pump(child.stdout, (t) => printed += t);
  const err = pump(child.stderr, (t) => errors += t);
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    for (const wake of waiters.splice(0)) wake();
    return s;
  });
  const waitFor = async (pattern: RegExp, ms: number) => {
    const deadline = Date.now() + ms;
    while (!pattern.test(printed)) {
      if (exited) {
        throw new Error(`${entry} exited:\n${printed}\n${errors}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `${entry} did not print ${pattern} within ${ms} ms:\n${printed}\n${errors}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  try {
    await waitFor(listening, 90_000);
  } catch (error) {
    if (!exited) child.kill("SIGKILL");
    await status;
    throw error;
  }
  const port = Number(listening.exec(printed)![1]);
  return {
    port,
    waitFor,
    async stop() {
      if (!exited) child.kill("SIGTERM");
      await status;
      await Promise.all([out, err]);
      return { stderr: errors };
    },
  };
}

async function scratchDatabase(
  url: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `stave_deploy_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return {
    url: scratch.toString(),
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

async function startS3(): Promise<
  { endpoint: string; close(): Promise<void> }
> {
  const directory = await Deno.makeTempDir({ prefix: "stave-deploy-s3-" });
  const server = new S3rver({
    port: 0,
    address: "127.0.0.1",
    directory,
    silent: true,
    configureBuckets: [{ name: "stave-media", configs: [] }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      await server.close();
      await Deno.remove(directory, { recursive: true }).catch(() => {});
    },
  };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

if (import.meta.main) {
  const databaseUrl = Deno.env.get("DATABASE_URL");
  if (!databaseUrl) {
    console.error(
      "deploy:check needs DATABASE_URL: a PostgreSQL server where it may create and drop a scratch database",
    );
    Deno.exit(2);
  }
  try {
    const report = await deployCheck({
      databaseUrl,
      tick: !Deno.args.includes("--no-tick"),
      log: (line) => console.log(line),
    });
    for (const line of report.proved) console.log(`ok: ${line}`);
  } catch (error) {
    console.error(`deploy:check failed: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
