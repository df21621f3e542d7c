// The template build service as its own process (`deno task templates`, and beside the demo under
// `deno task start`). Settings: TEMPLATE_BUILD_SERVICE_KEY (32+ characters), TEMPLATE_SERVICE_PORT,
// TEMPLATE_SERVICE_HOST, TEMPLATE_WORK_DIR.
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
const server = Deno.serve(
  {
    port: Number(Deno.env.get("TEMPLATE_SERVICE_PORT") ?? 8003),
    hostname: Deno.env.get("TEMPLATE_SERVICE_HOST") ?? "127.0.0.1",
    onListen: ({ hostname, port }) =>
      console.log(`Template services listening on http://${hostname}:${port}`),
  },
  createTemplateService({
    buildKey: key,
    previewKey: previewKey.length >= 32 ? previewKey : undefined,
    workRoot,
  }),
);
Deno.addSignalListener("SIGTERM", () => server.shutdown());
await server.finished;
