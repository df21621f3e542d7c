// GET /health/ready: whether this process can serve now (PostgreSQL, KV and media storage each
// answered within a short bound, and the process is not stopping). Unlike /health it names no
// site, so a load balancer can ask it by address.
import type { Context } from "hono";
import { checkReadiness } from "../../core/readiness.ts";
import type { AppEnv } from "../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const services = c.var.services;
    const readiness = await checkReadiness(services, {
      stopping: services.stopping,
    });
    c.header("Cache-Control", "no-store");
    if (!readiness.ready) c.header("Retry-After", "5");
    return c.json(readiness, readiness.ready ? 200 : 503);
  },
};
