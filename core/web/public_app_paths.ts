// Which paths the public app answers on its own, without the admin, Management API, MCP or OAuth.

/**
 * First path segments of the public app: the public read API, media files and health checks.
 * Nothing else in the whole app answers under them, so either app gives a request there the
 * same answer.
 */
export const PUBLIC_APP_SEGMENTS: readonly string[] = ["v1", "media", "health"];

/** Whether `path` (a request path or a route pattern) belongs to the public app. */
export function inPublicApp(path: string): boolean {
  const end = path.indexOf("/", 1);
  return PUBLIC_APP_SEGMENTS.includes(
    end < 0 ? path.slice(1) : path.slice(1, end),
  );
}
