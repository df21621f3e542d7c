// Runs the project's own entry points as child processes with a private data folder and database.
import { createScratchDatabase } from "./db.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** A private environment for child processes: a temp DATA_DIR and, on PostgreSQL, a scratch database. */
export interface ProcessEnv {
  env: Record<string, string>;
  dataDir: string;
  cleanup(): Promise<void>;
}

/** Makes a private environment; the child sees PGlite or a fresh PostgreSQL database. */
export async function privateProcessEnv(
  extra: Record<string, string> = {},
): Promise<ProcessEnv> {
  const dataDir = await Deno.makeTempDir({ prefix: "stave-test-" });
  const baseUrl = Deno.env.get("DATABASE_URL");
  const scratch = baseUrl && !("DATABASE_URL" in extra)
    ? await createScratchDatabase(baseUrl)
    : null;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    NO_COLOR: "1",
    ...extra,
  };
  if (scratch) env.DATABASE_URL = scratch.url;
  return {
    env,
    dataDir,
    cleanup: async () => {
      await scratch?.drop();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/** Runs `deno <args>` in the project root and answers its exit code and output. */
export async function runDeno(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { ...env, DATABASE_URL: env.DATABASE_URL ?? "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return {
    code: output.code,
    stdout: decode(output.stdout),
    stderr: decode(output.stderr),
  };
}

/** Project root, for spawning long-running children. */
export { ROOT as PROJECT_ROOT };

/** A running `main.ts` child. */
export interface RunningService {
  port: number;
  pid: number;
  /** Everything printed on stdout so far (complete after `stop()`). */
  stdout(): string;
  /** SIGTERM, then waits; answers the exit code and stderr. */
  stop(): Promise<{ code: number; stderr: string }>;
}

/**
 * Starts `main.ts` with `env` and waits until it listens (PORT is 0 unless `env` names one).
 * A child that never listens is killed and its output thrown, so a test never hangs.
 */
export async function spawnService(
  env: Record<string, string>,
  options: { deadlineMs?: number } = {},
): Promise<RunningService> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "--unstable-cron", "main.ts"],
    cwd: ROOT,
    env: {
      PORT: "0",
      DEMO_SITE: "false",
      LOG_REQUESTS: "false",
      // The scheduling plugin beside the demo is tested on its own (tests/scheduling/).
      SCHEDULER_COMPANION: "false",
      RENDERER_COMPANION: "false",
      ...env,
      DATABASE_URL: env.DATABASE_URL ?? "",
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const deadline = setTimeout(
    () => child.kill("SIGKILL"),
    options.deadlineMs ?? 90_000,
  );
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  let port = 0;
  while (!port) {
    const { value, done } = await reader.read();
    if (done) {
      clearTimeout(deadline);
      await child.status;
      throw new Error(
        `main.ts exited before listening:\n${printed}\n${await stderr}`,
      );
    }
    printed += value;
    port = Number(/Listening on port (\d+)/.exec(printed)?.[1] ?? 0);
  }
  const drained = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      printed += value;
    }
  })();
  return {
    port,
    pid: child.pid,
    stdout: () => printed,
    stop: async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already exited */ }
      const status = await child.status;
      clearTimeout(deadline);
      await drained;
      return { code: status.code, stderr: await stderr };
    },
  };
}
