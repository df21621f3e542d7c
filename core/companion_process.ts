// A service started beside `deno task start` as its own Deno process (the site renderer, the
// template services): started, waited for until it prints the address it listens on, and
// stopped with the service.
import { PROJECT_ROOT } from "./project_root.ts";

/** A companion process that is listening. */
export interface CompanionProcess {
  /** The origin it printed (`listening on http://…`). */
  origin: string;
  /** Stops it (SIGTERM) and waits until it has exited. */
  close(): Promise<void>;
}

/**
 * Runs `entry` with `env` and waits (at most `waitMs`, 60 s by default) for the line naming its
 * origin; a process that exits first throws what it printed, or `exitMessage`. With
 * `forwardOutput`, what it prints afterwards (a request log) goes to this process's output.
 */
export async function startCompanionProcess(
  entry: string,
  env: Record<string, string>,
  options: { waitMs?: number; exitMessage: string; forwardOutput?: boolean },
): Promise<CompanionProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", entry],
    cwd: PROJECT_ROOT,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const timer = setTimeout(
    () => child.kill("SIGKILL"),
    options.waitMs ?? 60_000,
  );
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  let origin = "";
  while (!origin) {
    const { value, done } = await reader.read();
    if (done) {
      clearTimeout(timer);
      await child.status;
      throw new Error(printed.trim() || options.exitMessage);
    }
    printed += value;
    origin = /listening on (http:\/\/\S+)/.exec(printed)?.[1] ?? "";
  }
  clearTimeout(timer);
  const encoder = new TextEncoder();
  const drained = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (value && options.forwardOutput) {
        Deno.stdout.writeSync(encoder.encode(value));
      }
    }
  })();
  return {
    origin,
    close: async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* already exited */ }
      await child.status;
      await drained;
    },
  };
}
