// The public app's router: routes tried in the order they were added, one regular expression
// each, as Hono's PatternRouter does, with a lookup that makes no array from an array literal.
//
// V8 watches the arrays each array literal makes. When most of them outlive a scavenge it starts
// allocating that literal's arrays straight into the old generation ("pretenuring"), where only a
// full collection frees them, and everything they point to then outlives every scavenge too.
// Under read load V8 came to pretenure PatternRouter's lookup (`[handlers]`,
// `[handler, params]`): each answer, a 404 included, left about 1.3 KB in the old generation, so
// full collections came several times a second. `Array.of` makes its arrays without that
// watching; a route without parameters answers the same entry every time (docs/benchmarks.md,
// "Memory of public reads").
import { type Result, type Router, UnsupportedPathError } from "hono/router";

const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null));

interface PublicRoute<T> {
  pattern: RegExp;
  method: string;
  /** The handler, with no parameters: what a match without parameters answers, made once. */
  entry: [T, Record<string, string>];
}

/** Hono's `Router` for the public app (core/served_app.ts). */
export class PublicRouter<T> implements Router<T> {
  name = "PublicRouter";
  #routes: PublicRoute<T>[] = [];

  add(method: string, path: string, handler: T): void {
    const suffix = path.endsWith("/*")
      ? "(?:$|/)"
      : path.endsWith("*")
      ? ""
      : "/?$";
    path = path.replace(/\*$/, "");
    if (path.at(-1) === "?") {
      // An optional last segment: the path without it is a route of its own.
      path = path.slice(0, -1);
      this.add(method, path.replace(/\/[^/]+$/, ""), handler);
    }
    const parts = (path.match(
      /\/?(:\w+(?:{(?:(?:{[\d,]+})|[^}])+})?)|\/?[^\/\?]+/g,
    ) ?? []).map((part) => {
      const param = part.match(/^\/:([^{]+)(?:{(.*)})?/);
      if (param) return `/(?<${param[1]}>${param[2] || "[^/]+"})`;
      return part === "/*" ? "/[^/]+" : part.replace(/[.\\+*[^\]$()]/g, "\\$&");
    });
    let pattern: RegExp;
    try {
      pattern = new RegExp(`^${parts.join("")}${suffix}`);
    } catch {
      throw new UnsupportedPathError();
    }
    const entry = Array.of<unknown>(handler, NO_PARAMS) as [
      T,
      Record<string, string>,
    ];
    this.#routes.push({ pattern, method, entry });
  }

  match(method: string, path: string): Result<T> {
    const handlers = Array.of<[T, Record<string, string>]>();
    for (const route of this.#routes) {
      if (route.method !== method && route.method !== "ALL") continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      handlers.push(
        found.groups
          ? Array.of<unknown>(route.entry[0], found.groups) as [
            T,
            Record<string, string>,
          ]
          : route.entry,
      );
    }
    return Array.of(handlers) as unknown as Result<T>;
  }
}
