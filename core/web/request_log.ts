// One log line per request: method, path without its query string, status and duration.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.ts";
import type { Clock } from "../clock.ts";

/** Logs each request after it is answered; the query string is left out as it may hold secrets. */
export function requestLog(clock: Clock): MiddlewareHandler<AppEnv> {
  return async function logRequest(c, next) {
    const started = performance.now();
    await next();
    c.var.log({
      level: "info",
      msg: "request",
      at: clock.now().toISOString(),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  };
}
