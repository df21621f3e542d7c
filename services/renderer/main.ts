// The managed renderer's entry point: `deno run -A services/renderer/main.ts`. It reads the site
// only through the public API (STAVE_API_URL) and serves its pages on RENDERER_PORT.
import { loadRendererConfig } from "./config.ts";
import { releaseTemplate } from "./release.ts";
import { createRenderer } from "./server.ts";
import { builtInTemplate } from "./template/builtin/mod.tsx";

let config;
try {
  config = loadRendererConfig(Deno.env.toObject());
} catch (error) {
  console.error(`renderer: ${(error as Error).message}`);
  Deno.exit(2);
}
const shutdown = new AbortController();
let handler: (
  request: Request,
  info: Deno.ServeHandlerInfo,
) => Promise<Response> = () =>
  Promise.resolve(new Response("Starting", { status: 503 }));
const server = Deno.serve({
  port: config.port,
  hostname: config.host,
  signal: shutdown.signal,
  onListen: ({ hostname, port }) => {
    const shown = hostname === "127.0.0.1" || hostname === "0.0.0.0"
      ? "localhost"
      : hostname;
    console.log(`renderer: listening on http://${shown}:${port}`);
  },
}, (request, info) => handler(request, info));
const siteUrl = config.siteUrl ?? `http://localhost:${server.addr.port}`;
handler = createRenderer({
  config,
  // With a deploy service, the host's active release draws; the built-in template otherwise.
  template: config.releases
    ? releaseTemplate({
      ...config.releases,
      host: new URL(siteUrl).hostname,
      fallback: builtInTemplate,
      workRoot: await Deno.makeTempDir({ prefix: "stave-renderer-" }),
    })
    : builtInTemplate,
  siteUrl,
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => shutdown.abort());
}
await server.finished;
