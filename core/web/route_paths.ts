// Turns a file path under routes/ into a Hono pattern, the way Fresh names its routes.

/** What a file under `routes/` is. */
export type RouteFileKind = "route" | "middleware" | "layout" | "app";

/** One parsed file of the routes folder. */
export interface RouteFile {
  /** Path relative to the project root, with forward slashes. */
  file: string;
  kind: RouteFileKind;
  /** The folder it scopes, relative to `routes/` ("" for the root), groups included. */
  folder: string;
  /** The Hono pattern; only for `route` files. */
  pattern?: string;
}

const SPECIAL: Record<string, RouteFileKind> = {
  _middleware: "middleware",
  _layout: "layout",
  _app: "app",
};

/**
 * Parses `relative` (a path inside `routes/`, such as `v1/[model]/[slug].ts`) or returns
 * `null` for files that are not routes (tests, other underscore files).
 */
export function parseRouteFile(
  root: string,
  relative: string,
): RouteFile | null {
  if (!/\.(ts|tsx)$/.test(relative) || /_test\.tsx?$/.test(relative)) {
    return null;
  }
  const parts = relative.replace(/\.(ts|tsx)$/, "").split("/");
  const name = parts.pop()!;
  const folder = parts.join("/");
  const file = `${root}/${relative}`;
  if (name in SPECIAL) {
    const kind = SPECIAL[name];
    if (kind === "app" && folder !== "") {
      throw new Error(
        `Cannot use "${file}": _app belongs at the routes root only`,
      );
    }
    return { file, kind, folder };
  }
  if (name.startsWith("_")) return null;
  const segments = [...parts, name].filter((s) => !/^\(.+\)$/.test(s));
  if (segments.at(-1) === "index") segments.pop();
  const pattern = "/" +
    segments.map((s) => toPatternSegment(s, file)).join("/");
  return { file, kind: "route", folder, pattern };
}

function toPatternSegment(segment: string, file: string): string {
  if (/^[A-Za-z0-9._~-]+$/.test(segment)) return segment;
  const rest = /^\[\.\.\.([A-Za-z_][A-Za-z0-9_]*)\]$/.exec(segment);
  if (rest) return `:${rest[1]}{.+}`;
  const param = /^\[([A-Za-z_][A-Za-z0-9_]*)\]$/.exec(segment);
  if (param) return `:${param[1]}`;
  throw new Error(
    `Cannot parse route segment "${segment}" in "${file}": expected a literal, [name] or [...name]`,
  );
}

/** Orders patterns so literal segments beat parameters and parameters beat catch-alls. */
export function compareSpecificity(a: string, b: string): number {
  const as = a.split("/");
  const bs = b.split("/");
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    if (as[i] === undefined) return -1;
    if (bs[i] === undefined) return 1;
    const diff = rank(as[i]) - rank(bs[i]);
    if (diff !== 0) return diff;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

function rank(segment: string): number {
  if (segment.startsWith(":") && segment.endsWith("{.+}")) return 2;
  return segment.startsWith(":") ? 1 : 0;
}

/** True when `folder` is `ancestor` or lies below it. */
export function isWithin(folder: string, ancestor: string): boolean {
  return ancestor === "" || folder === ancestor ||
    folder.startsWith(`${ancestor}/`);
}
