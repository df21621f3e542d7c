// Answers built with every header they will carry: app-wide middleware leaves their headers alone.
//
// Deno turns a Response's headers into the server's own form when the Response is built; reading
// `response.headers` afterwards throws that away, and the server converts them again when it
// writes the answer. The public reads build their headers once, complete, and say so here so
// that the middleware which would add the same headers later (security headers, CORS) does not
// touch them (docs/benchmarks.md, issue 18 round six).
import type { Context } from "hono";

declare module "hono" {
  interface ContextVariableMap {
    /** The answer of this request that carries all its headers, if one was built. */
    finalAnswer: Response;
  }
}

/** Records `answer` as `c`'s answer carrying all its headers, and returns it. */
export function finalAnswer(c: Context, answer: Response): Response {
  c.set("finalAnswer", answer);
  return answer;
}

/** Whether `c`'s answer was built with all its headers ({@link finalAnswer}). */
export function isFinalAnswer(c: Context): boolean {
  return c.get("finalAnswer") === c.res;
}
