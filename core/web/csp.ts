// The Content-Security-Policy of every page the service answers, in one place: the app applies it
// to all answers, and a page that frames a plugin's reviewed origin (spec 1 part 1, PEXT-003)
// answers the same policy with those origins added to `frame-src`.

/** The directives every answer carries (the app's `secureHeaders`). */
export const CONTENT_SECURITY_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", "data:", "https:"],
  frameAncestors: ["'none'"],
};

function directive(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The policy as a header value, with `frameOrigins` (exact https or dev origins) framable. */
export function cspAllowingFrames(frameOrigins: readonly string[]): string {
  const parts = Object.entries(CONTENT_SECURITY_POLICY).map(([name, values]) =>
    `${directive(name)} ${values.join(" ")}`
  );
  if (frameOrigins.length > 0) {
    parts.push(`frame-src ${[...new Set(frameOrigins)].join(" ")}`);
  }
  return parts.join("; ");
}
