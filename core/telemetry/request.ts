// Each request's id and telemetry: the `X-Request-Id` on the answer and on every log line of the
// request, and, with OpenTelemetry on, its span named by route pattern and the request metrics.
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "../web/env.ts";
import {
  requestCount,
  requestDuration,
  requestErrors,
  requestSpan,
  TELEMETRY_ON,
} from "./mod.ts";

/** A request id a client or proxy may send: short, and nothing a log line could be confused by. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{8,64}$/;

/**
 * Gives the request an id (the `X-Request-Id` it came with when well formed, else a new one) and
 * adds it to every log line of the request; an id the request brought is answered back (one made
 * here is not: public answers stay byte-identical for caches and conditional requests). With telemetry on, Deno's span of
 * the request is named `METHOD /route/:pattern`, its URL attributes lose the query string (it
 * may carry a preview token or a cursor), and the request is counted by route pattern.
 */
export function requestTelemetry(): MiddlewareHandler<AppEnv> {
  return async function identifyRequest(c, next) {
    const sent = c.req.header("x-request-id");
    const echo = sent !== undefined && REQUEST_ID.test(sent);
    // An id made here is only written into log lines: made when the first one is.
    let made: string | undefined;
    const idOf = () => echo ? sent : made ??= crypto.randomUUID();
    const span = TELEMETRY_ON ? requestSpan() : undefined;
    const traceId = span?.spanContext().traceId;
    const log = c.var.log;
    c.set(
      "log",
      traceId
        ? (entry) => log({ ...entry, request_id: idOf(), trace_id: traceId })
        : (entry) => log({ ...entry, request_id: idOf() }),
    );
    const started = performance.now();
    try {
      await next();
    } finally {
      if (echo) c.header("X-Request-Id", sent);
      if (TELEMETRY_ON) {
        const route = routeOf(c);
        const status = c.res.status;
        const attributes = {
          "http.request.method": c.req.method,
          "http.route": route,
          "http.response.status_class": `${Math.floor(status / 100)}xx`,
        };
        requestCount.add(1, attributes);
        requestDuration.record(
          (performance.now() - started) / 1000,
          attributes,
        );
        if (status >= 500) requestErrors.add(1, attributes);
        if (span) {
          const url = new URL(c.req.url);
          span.updateName(`${c.req.method} ${route}`);
          span.setAttributes({
            "http.route": route,
            // Deno records the whole URL; the query string may hold a preview token or a cursor.
            "url.full": `${url.origin}${url.pathname}`,
            "url.query": "",
            "stave.request_id": idOf(),
          });
        }
      }
    }
  };
}

/**
 * The pattern of the handler the path matched (`/v1/:model`), whether or not a middleware answered
 * first (a refused credential still names its route); `(unmatched)` when none did.
 */
function routeOf(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string {
  // A read answered before routing (core/public/front_reads.ts) matched no route.
  const front = c.get("frontRoute");
  if (front !== undefined) return front;
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i];
    if (!route.path.endsWith("*")) return route.path;
  }
  return "(unmatched)";
}
