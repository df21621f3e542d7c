// The request's URL, parsed once however many steps of a request read it.
import type { Context } from "hono";

declare module "hono" {
  interface ContextVariableMap {
    /** The request's URL, parsed ({@link requestUrl}). */
    requestUrl: URL;
  }
}

/**
 * The URL of `c`'s request. Parsing costs a public read a few microseconds each time, and the
 * text check, the context and the read itself all need it. Callers must not change it.
 */
export function requestUrl(c: Context): URL {
  let url = c.get("requestUrl");
  if (url === undefined) {
    url = new URL(c.req.url);
    c.set("requestUrl", url);
  }
  return url;
}
