// The site renderer beside the embedded demo (`deno task start`): services/renderer/main.ts as
// its own process on its own port, reading the demo site only through the public API, so a
// newcomer sees the site visitors would see. Production runs the renderer on its own.
import { startCompanionProcess } from "./companion_process.ts";

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
  return await startCompanionProcess(
    "services/renderer/main.ts",
    {
      STAVE_API_URL: apiUrl,
      RENDERER_PORT: String(port),
      // The service made this key up at start: the renderer names each visitor with it.
      ...(options.forwardingKey
        ? { RENDERER_FORWARDING_KEY: options.forwardingKey }
        : {}),
    },
    {
      waitMs: options.waitMs,
      exitMessage: "the renderer exited before listening",
      // Its request log (when turned on) goes to this process's output.
      forwardOutput: true,
    },
  );
}
