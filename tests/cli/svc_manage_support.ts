// Runs the generated svc-manage.mjs as a user would: a separate Node process with its own environment.
import { PROJECT_ROOT } from "../support/process.ts";

/** What one run of the client printed and how it exited. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  env?: Record<string, string>;
  stdin?: string;
  /** `node` (default) or `deno`. */
  runtime?: "node" | "deno";
}

/** Runs `svc-manage.mjs <args>` with only PATH, HOME and `env` in its environment. */
export async function runCli(
  args: string[],
  options: RunCliOptions = {},
): Promise<CliRun> {
  const file = `${PROJECT_ROOT}/generated/svc-manage.mjs`;
  const [command, prefix] = options.runtime === "deno"
    ? [Deno.execPath(), ["run", "-A", file]]
    : ["node", [file]];
  const child = new Deno.Command(command, {
    args: [...prefix, ...args],
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/tmp",
      NO_COLOR: "1",
      ...options.env,
    },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const output = await child.output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return {
    code: output.code,
    stdout: decode(output.stdout),
    stderr: decode(output.stderr),
  };
}

/** A real HTTP server on 127.0.0.1 for `handler`; stop it with `shutdown()`. */
export function serveOnLoopback(
  handler: (request: Request) => Response | Promise<Response>,
): { url: string; shutdown(): Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    shutdown: () => server.shutdown(),
  };
}

/**
 * Spawns `login --no-open`: the connect address it prints, its end (exit code and what it
 * printed), and `stop` to kill it and wait for that end.
 */
export function startLogin(
  origin: string,
  env: Record<string, string>,
  extra: string[] = [],
) {
  const child = new Deno.Command("node", {
    args: [
      `${PROJECT_ROOT}/generated/svc-manage.mjs`,
      "login",
      "--no-open",
      "--url",
      origin,
      ...extra,
    ],
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let printed = "";
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  const address = (async () => {
    for (;;) {
      const match = /^(http\S+\/admin\/connect\?\S+)$/m.exec(printed);
      if (match) return new URL(match[1]);
      const { value, done } = await reader.read();
      if (done) throw new Error(`login ended early:\n${printed}`);
      printed += value;
    }
  })();
  const ended = (async () => {
    const address_ = await address.catch(() => null);
    if (address_) {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        printed += value;
      }
    }
    const status = await child.status;
    await child.stdout.cancel();
    return { code: status.code, stderr: printed };
  })();
  const kill = () => child.kill("SIGKILL");
  const stop = async () => {
    kill();
    await ended;
  };
  return { address, ended, kill, stop };
}
