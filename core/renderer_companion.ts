// The site renderer beside the embedded demo (`deno task start`): services/renderer/main.ts as
// its own process on its own port, reading the demo site only through the public API, so a
// newcomer sees the site visitors would see. Production runs the renderer on its own.
import { PROJECT_ROOT } from "./server.ts";

/** A running renderer child. */
export interface RendererCompanion {
  origin: string;
  close(): Promise<void>;
}

/** Starts the renderer on `port` reading the public API at `apiUrl`; throws when it never listens. */
export async function startRendererCompanion(
  apiUrl: string,
  port: number,
  options: { waitMs?: number; forwardingKey?: string | null } = {},
): Promise<RendererCompanion> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "services/renderer/main.ts"],
    cwd: PROJECT_ROOT,
    env: {
      STAVE_API_URL: apiUrl,
      RENDERER_PORT: String(port),
      // The service made this key up at start: the renderer names each visitor with it.
      ...(options.forwardingKey
        ? { RENDERER_FORWARDING_KEY: options.forwardingKey }
        : {}),
    },
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
      throw new Error(printed.trim() || "the renderer exited before listening");
    }
    printed += value;
    origin = /listening on (http:\/\/\S+)/.exec(printed)?.[1] ?? "";
  }
  clearTimeout(timer);
  const drained = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      // Its request log (when turned on) goes to this process's output.
      if (value) Deno.stdout.writeSync(new TextEncoder().encode(value));
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
