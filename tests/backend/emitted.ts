// Test support: writes a generated backend to a temporary folder and starts it as its own
// process (`deno run main.ts` inside that folder), on a fresh PostgreSQL database when
// DATABASE_URL is set, else on its embedded default.
import type { Db } from "../../core/db/database.ts";
import {
  generateBackend,
  type GenerateOptions,
  writeProject,
} from "../../core/backend/generate/mod.ts";
import type { BackendSchema } from "../../core/backend/generate/template/src/schema.ts";
import { createScratchDatabase } from "../support/db.ts";

/** A running emitted backend. */
export interface EmittedBackend {
  dir: string;
  url: string;
  /** The service bearer it was started with. */
  bearer: string;
  schema: BackendSchema;
  /** The database it runs on (empty on the embedded default). */
  databaseUrl: string;
  /** Requests `path` as the service (bearer) or anonymously. */
  call(
    path: string,
    init?: RequestInit & { as?: "service" | "anonymous" | string },
  ): Promise<{ status: number; body: unknown; headers: Headers }>;
  stop(): Promise<void>;
}

/** Generates into a fresh folder; throws with the problems when generation is refused. */
export async function emit(
  db: Db,
  options: GenerateOptions,
): Promise<{ dir: string; schema: BackendSchema }> {
  const result = await generateBackend(db, options);
  if (!result.ok) {
    throw new Error(`generation refused: ${JSON.stringify(result.problems)}`);
  }
  const dir = await Deno.makeTempDir({ prefix: "stave-backend-" });
  await writeProject(dir, result.files);
  return { dir, schema: result.schema };
}

/** Options of {@link startBackend}. */
export interface StartOptions {
  env?: Record<string, string>;
  /** Start without API_BEARER_TOKEN (writes answer 503). */
  noBearer?: boolean;
}

/** Runs `deno run main.ts` in `dir`; answers once it listens. */
export async function startBackend(
  dir: string,
  schema: BackendSchema,
  options: StartOptions = {},
): Promise<EmittedBackend> {
  const base = Deno.env.get("DATABASE_URL");
  const scratch = base ? await createScratchDatabase(base) : null;
  const bearer = `bearer-${crypto.randomUUID()}`;
  const env: Record<string, string> = {
    PORT: "0",
    DATA_DIR: `${dir}/data`,
    NO_COLOR: "1",
    DATABASE_URL: scratch?.url ?? "",
    ...(options.noBearer ? {} : { API_BEARER_TOKEN: bearer }),
    ...options.env,
  };
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: dir,
    env,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  let port: string | null = null;
  while (port === null) {
    const { value, done } = await reader.read();
    if (done) {
      await child.status;
      await scratch?.drop();
      throw new Error(`the backend did not start:\n${seen}`);
    }
    seen += value;
    port = /Serving on http:\/\/[^:]+:(\d+)/.exec(seen)?.[1] ?? null;
  }
  // Keep draining stderr so the child never blocks on a full pipe.
  const drained = (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  const url = `http://127.0.0.1:${port}`;
  return {
    dir,
    url,
    bearer,
    schema,
    databaseUrl: scratch?.url ?? "",
    async call(path, init = {}) {
      const { as = "service", ...rest } = init;
      const headers = new Headers(rest.headers);
      if (as === "service") headers.set("authorization", `Bearer ${bearer}`);
      else if (as !== "anonymous") headers.set("authorization", `Bearer ${as}`);
      if (rest.body !== undefined) {
        headers.set("content-type", "application/json");
      }
      const res = await fetch(`${url}${path}`, { ...rest, headers });
      const text = await res.text();
      return {
        status: res.status,
        body: text === "" ? null : JSON.parse(text),
        headers: res.headers,
      };
    },
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await drained;
      await scratch?.drop();
    },
  };
}

/** Runs `deno run main.ts` in `dir` expecting it to refuse to start; answers its stderr. */
export async function refusedStart(
  dir: string,
  env: Record<string, string>,
): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: dir,
    env: { PORT: "0", DATA_DIR: `${dir}/data`, NO_COLOR: "1", ...env },
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}
