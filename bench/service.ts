// Starts the benchmark's service process (bench/serve.ts) on a database and waits for its port.
import denoConfig from "../deno.json" with { type: "json" };

/** A running service process. */
export interface BenchService {
  origin: string;
  pid: number;
  /** Stops it with SIGTERM (it then prints its kept-answer counts) and waits for it. */
  stop(): Promise<void>;
}

/** Options of {@link startService}. */
export interface ServiceOptions {
  /** Opens V8's inspector on this port of 127.0.0.1 (bench/alloc.ts profiles through it). */
  inspectPort?: number;
}

/**
 * The V8 settings the service runs with: those of `deno task start` (deno.json), so a bench
 * measures the heap users run, unless `BENCH_V8_FLAGS` names others ("" for V8's defaults).
 * `DENO_V8_FLAGS` cannot replace them: Deno applies `--v8-flags` after it.
 */
export function serviceV8Flags(): string {
  const chosen = Deno.env.get("BENCH_V8_FLAGS");
  if (chosen !== undefined) return chosen;
  const flags = /--v8-flags=(\S+)/.exec(denoConfig.tasks.start)?.[1];
  if (!flags) throw new Error("deno.json's start task names no --v8-flags");
  return flags;
}

/**
 * Where the service keeps its Deno KV: a file in a new temporary folder, as a deployment keeps
 * `kv.sqlite3` in its data folder, so the writes' rate windows and idempotency records cost what
 * they cost users (each commit waits for the disk); null (an in-memory store) with
 * `BENCH_KV=memory`, the setting of the figures before 2026-12-01.
 */
async function benchKvFolder(): Promise<string | null> {
  const chosen = Deno.env.get("BENCH_KV") ?? "file";
  if (chosen === "memory") return null;
  if (chosen !== "file") {
    throw new Error(`BENCH_KV=${chosen}: expected "file" or "memory"`);
  }
  return await Deno.makeTempDir({ prefix: "stave-bench-kv-" });
}

/** Starts bench/serve.ts against `databaseUrl` with `env` added to this process's environment. */
export async function startService(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: ServiceOptions = {},
): Promise<BenchService> {
  const profileDir = Deno.env.get("BENCH_SERVICE_CPU_PROF");
  const v8Flags = serviceV8Flags();
  const kvFolder = await benchKvFolder();
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--unstable-kv",
      ...(v8Flags ? [`--v8-flags=${v8Flags}`] : []),
      // A V8 CPU profile of the service, written to this folder when the bench stops it.
      ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
      ...(options.inspectPort
        ? [`--inspect=127.0.0.1:${options.inspectPort}`]
        : []),
      new URL("./serve.ts", import.meta.url).pathname,
    ],
    env: {
      BENCH_DATABASE_URL: databaseUrl,
      ...(kvFolder ? { BENCH_KV_PATH: `${kvFolder}/kv.sqlite3` } : {}),
      ...env,
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const stop = async () => {
    server.kill("SIGTERM");
    await server.status;
    if (kvFolder) await Deno.remove(kvFolder, { recursive: true });
  };
  const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let port = 0;
  for (let i = 0; i < 100 && port === 0; i++) {
    const { value, done } = await reader.read();
    if (done) break;
    port = Number(/listening (\d+)/.exec(value ?? "")?.[1] ?? 0);
  }
  reader.releaseLock();
  if (!port) {
    await stop();
    throw new Error("Cannot start the benchmark's service");
  }
  return { origin: `http://127.0.0.1:${port}`, pid: server.pid, stop };
}
