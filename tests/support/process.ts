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
