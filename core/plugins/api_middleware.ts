// The plugin API's own door: session cookie, bearer token, installation state, site naming, rate, outcome answers.
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { SESSION_COOKIE } from "../auth/cookies.ts";
import { RateWindow } from "../kv/rate_window.ts";
import type { AppEnv } from "../web/env.ts";
import {
  headerNamingRefusal,
  outcomeOfError,
  refusalResponse,
} from "./api_support.ts";
import { authenticatePlugin } from "./plugin_auth.ts";
import { LIMITS, outcomeResponse } from "./protocol.ts";

const UNAUTHORIZED = "The installation token is missing or not valid";

/**
 * Runs before every `/api/plugin/v1` route. A session cookie, a missing, malformed,
 * unknown, disabled or revoked token all answer the one `plugin_unauthorized`, before
 * any tenant read and before the body is read (a malformed bearer before any database
 * read). Then a site or database named in a header is `invalid_request`, and each
 * installation gets 120 requests per 60 seconds (`rate_limited` with `Retry-After`).
 * Whatever the route throws is answered in the outcome envelope.
 */
export const pluginApiDoor: MiddlewareHandler<AppEnv> =
  async function pluginApiDoor(
    c,
    next,
  ) {
    c.header("Cache-Control", "no-store");
    if (getCookie(c, SESSION_COOKIE) !== undefined) {
      return outcomeResponse("plugin_unauthorized", UNAUTHORIZED);
    }
    const { db, clock, kv } = c.var.services;
    let auth;
    try {
      auth = await authenticatePlugin(db, clock, c.req.header("authorization"));
    } catch (error) {
      // The token read failed (a lost database connection): still the outcome envelope.
      return outcomeOfError(error, c.var.log);
    }
    if (!auth.ok) return outcomeResponse("plugin_unauthorized", UNAUTHORIZED);
    const named = headerNamingRefusal(c.req.raw.headers);
    if (named) return refusalResponse(named);
    const installation = auth.installation;
    // The same sliding window as the Management API: no 60-second span admits more than 120.
    const rate = await new RateWindow(kv, { clock }).hit(
      ["plugin", installation.id],
      LIMITS.plugin_api_rate.requests,
      LIMITS.plugin_api_rate.window_ms,
    );
    if (!rate.allowed) {
      return outcomeResponse(
        "rate_limited",
        `More than ${LIMITS.plugin_api_rate.requests} requests in ${
          LIMITS.plugin_api_rate.window_ms / 1000
        } seconds: retry after ${rate.retryAfterSeconds} s`,
        { retryAfterSeconds: rate.retryAfterSeconds },
      );
    }
    c.set("installation", installation);
    await next();
    if (c.error) {
      c.res = undefined;
      c.res = outcomeOfError(c.error, c.var.log);
    }
  };
