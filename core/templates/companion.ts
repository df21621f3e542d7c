// The template services beside the embedded demo (`deno task start`): services/templates/main.ts
// as its own process with keys made up at this start, and the service's template settings
// pointed at it, so a newcomer can upload, preview, accept and release a template locally.
import { randomToken } from "../auth/secrets.ts";
import { startCompanionProcess } from "../companion_process.ts";

/** A running template services child and the settings that reach it. */
export interface TemplateCompanion {
  origin: string;
  settings: Record<string, string>;
  close(): Promise<void>;
}

/**
 * The sandbox here is the Deno executable itself: its own SHA-256 pins it by digest, so the
 * setting names exactly the runtime candidate code runs in.
 */
async function sandboxImage(): Promise<string> {
  const file = await Deno.open(Deno.execPath());
  try {
    const digest = await crypto.subtle.digest(
      "SHA-256",
      new Uint8Array(await new Response(file.readable).arrayBuffer()),
    );
    const hex = Array.from(
      new Uint8Array(digest),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    return `local/deno-${Deno.version.deno}@sha256:${hex}`;
  } catch (e) {
    file.close();
    throw e;
  }
}

/** Starts the template services on `port`; throws when they never listen. */
export async function startTemplateCompanion(
  port: number,
  dataDir: string,
  options: { waitMs?: number } = {},
): Promise<TemplateCompanion> {
  const keys = {
    TEMPLATE_BUILD_SERVICE_KEY: randomToken(),
    TEMPLATE_PREVIEW_SERVICE_KEY: randomToken(),
    MANAGED_RENDER_DEPLOY_SERVICE_KEY: randomToken(),
    MANAGED_RENDER_HMAC_KEY: randomToken(),
  };
  const root = await Deno.realPath(dataDir).catch(() => dataDir);
  const { origin, close } = await startCompanionProcess(
    "services/templates/main.ts",
    {
      ...keys,
      TEMPLATE_SERVICE_PORT: String(port),
      MANAGED_RENDER_DEPLOY_DIR: `${root}/template-deploy`,
    },
    { waitMs: options.waitMs, exitMessage: "the template services exited" },
  );
  return {
    origin,
    settings: {
      ...keys,
      TEMPLATE_BUILD_SERVICE_URL: origin,
      TEMPLATE_PREVIEW_SERVICE_URL: origin,
      MANAGED_RENDER_DEPLOY_SERVICE_URL: origin,
      MANAGED_RENDER_INSTALLATION_ID: "local-development",
      TEMPLATE_SANDBOX_IMAGE: await sandboxImage(),
      TEMPLATE_ARTIFACTS: `${root}/template-artifacts`,
    },
    close,
  };
}
