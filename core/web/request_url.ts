// The request's URL, parsed once however many steps of a request read it.
import type { Context } from "hono";

const parsed = new WeakMap<Request, URL>();

/**
 * The URL of `c`'s request. Parsing costs a public read a few microseconds each time, and the
 * text check, the context and the read itself all need it. Callers must not change it.
 */
export function requestUrl(c: Context): URL {
  let url = parsed.get(c.req.raw);
  if (url === undefined) {
    url = new URL(c.req.url);
    parsed.set(c.req.raw, url);
  }
  return url;
}
