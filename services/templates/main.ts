// The template services as their own process (`deno task templates`): the build service, and
// the preview and deploy services when their keys are set, each behind its own key. Settings:
// TEMPLATE_BUILD_SERVICE_KEY, TEMPLATE_PREVIEW_SERVICE_KEY, MANAGED_RENDER_DEPLOY_SERVICE_KEY and
// MANAGED_RENDER_HMAC_KEY (32+ characters each), TEMPLATE_SERVICE_PORT, TEMPLATE_SERVICE_HOST,
// TEMPLATE_WORK_DIR, MANAGED_RENDER_DEPLOY_DIR.
import { createDeployService } from "./deploy.ts";
import { createTemplateService } from "./server.ts";

const key = Deno.env.get("TEMPLATE_BUILD_SERVICE_KEY") ?? "";
if (key.length < 32) {
  console.error(
    "Setting TEMPLATE_BUILD_SERVICE_KEY: expected a secret of 32 or more characters",
  );
  Deno.exit(1);
}
// The preview service shares this process; it answers only when its own key is set.
const previewKey = Deno.env.get("TEMPLATE_PREVIEW_SERVICE_KEY") ?? "";
const workRoot = Deno.env.get("TEMPLATE_WORK_DIR") ??
  await Deno.makeTempDir({ prefix: "stave-templates-" });
await Deno.mkdir(workRoot, { recursive: true });
const templates = createTemplateService({
  buildKey: key,
  previewKey: previewKey.length >= 32 ? previewKey : undefined,
  workRoot,
});
// The deploy service shares this process too, behind its own key, when delivery is set up.
const deployKey = Deno.env.get("MANAGED_RENDER_DEPLOY_SERVICE_KEY") ?? "";
const hmacKey = Deno.env.get("MANAGED_RENDER_HMAC_KEY") ?? "";
const deploy = deployKey.length >= 32 && hmacKey.length >= 32
  ? createDeployService({
    key: deployKey,
    hmacKey,
    dir: Deno.env.get("MANAGED_RENDER_DEPLOY_DIR") ?? `${workRoot}/deploy`,
  })
  : null;
const server = Deno.serve({
  port: Number(Deno.env.get("TEMPLATE_SERVICE_PORT") ?? 8003),
  hostname: Deno.env.get("TEMPLATE_SERVICE_HOST") ?? "127.0.0.1",
  onListen: ({ hostname, port }) =>
    console.log(`Template services listening on http://${hostname}:${port}`),
}, async (request) => (await deploy?.(request)) ?? await templates(request));
Deno.addSignalListener("SIGTERM", () => server.shutdown());
await server.finished;
