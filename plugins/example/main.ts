// Runs the example plugin: PORT, PUBLIC_ORIGIN, ADMIN_SECRET, ENVIRONMENT and SVC_DEV_ORIGINS from the environment.
import { createExamplePlugin } from "./plugin.ts";

const port = Number(Deno.env.get("PORT") ?? "8787");
const origin = Deno.env.get("PUBLIC_ORIGIN") ?? `http://localhost:${port}`;
const development = Deno.env.get("ENVIRONMENT") === "development";
const plugin = createExamplePlugin({
  origin,
  adminSecret: Deno.env.get("ADMIN_SECRET") ?? "",
  servicePolicy: {
    development,
    devOrigins: development
      ? (Deno.env.get("SVC_DEV_ORIGINS") ?? "").split(",").map((o) => o.trim())
        .filter(Boolean)
      : [],
  },
});
Deno.serve({ port, hostname: "127.0.0.1" }, plugin.handler);
console.log(`Example plugin: manifest at ${origin}/svc/manifest.json`);
