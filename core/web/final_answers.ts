// Answers built with every header they will carry: app-wide middleware leaves their headers alone.
//
// Deno turns a Response's headers into the server's own form when the Response is built; reading
// `response.headers` afterwards throws that away, and the server converts them again when it
// writes the answer. The public reads build their headers once, complete, and are marked here so
// that the middleware which would add the same headers later (security headers, CORS) does not
// touch them (docs/benchmarks.md, issue 18 round six).

const finalAnswers = new WeakSet<Response>();

/** Marks `answer` as carrying all its headers and returns it. */
export function finalAnswer(answer: Response): Response {
  finalAnswers.add(answer);
  return answer;
}

/** Whether `answer` was built with all its headers ({@link finalAnswer}). */
export function isFinalAnswer(answer: Response): boolean {
  return finalAnswers.has(answer);
}
