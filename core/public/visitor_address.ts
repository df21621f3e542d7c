// The address a visitor's interaction counts against: the connection's, or the one a site
// renderer names when it forwards a visitor's form post with the shared forwarding key.
import type { Context } from "hono";
import type { AppEnv } from "../web/env.ts";
import { secretsEqual } from "../auth/secrets.ts";

/** The header holding the renderer's forwarding key (never logged, never answered). */
export const FORWARDING_KEY_HEADER = "x-stave-forwarding-key";
/** The header naming the visitor's address when the key matches. */
export const VISITOR_ADDRESS_HEADER = "x-stave-visitor-address";

/** IPv4 or IPv6 literal characters only, as long as an address can be. */
const ADDRESS = /^[0-9A-Fa-f.:]{2,45}$/;

/**
 * The visitor's address: a forwarded one only when the request carries the configured key
 * (compared in constant time) and a well-formed address; else the connection's. A request
 * without the key, or with a wrong one, can never choose whose window it counts against.
 */
export async function visitorAddress(c: Context<AppEnv>): Promise<string> {
  const key = c.var.services.config.rendererForwardingKey;
  const sent = c.req.header(FORWARDING_KEY_HEADER);
  const named = c.req.header(VISITOR_ADDRESS_HEADER);
  if (
    key && sent && named && ADDRESS.test(named) &&
    await secretsEqual(sent, key)
  ) {
    return named;
  }
  const env = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return env?.remoteAddr?.hostname ?? "unknown";
}
