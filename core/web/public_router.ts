// The public app's router: routes tried in the order they were added, one regular expression
// each, as Hono's PatternRouter does, with a lookup that makes no array from an array literal.
//
// V8 watches the arrays each array literal makes. When most of them outlive a scavenge it starts
// allocating that literal's arrays straight into the old generation ("pretenuring"), where only a
// full collection frees them, and everything they point to then outlives every scavenge too.
// Under read load V8 came to pretenure PatternRouter's lookup (`[handlers]`,
// `[handler, params]`): each answer, a 404 included, left about 1.3 KB in the old generation, so
// full collections came several times a second. `Array.of` makes its arrays without that
// watching (though each call costs a few hundred nanoseconds, so a match makes two or three);
// every route answers the same entry every time, its parameters' values in a stash beside them
// (docs/benchmarks.md, "Memory of public reads").
import { type Result, type Router, UnsupportedPathError } from "hono/router";
import { METHODS } from "./manifest.ts";

const NO_PARAMS: Record<string, number> = Object.freeze(Object.create(null));

/** A distinct pattern, and where the values of its parameters go in a match's stash. */
interface Pattern {
  regex: RegExp;
  names: string[];
  offset: number;
}

interface PublicRoute<T> {
  /** Its place among the routes: handlers are answered in the order they were added. */
  order: number;
  /** The route's leading literal segments: a path without them cannot match. */
  prefix: string;
  /**
   * Whether its pattern needs a `/` or the end right after `prefix`, so that only a path whose
   * segments begin with `prefix` can match (every route but one ending in a bare `*`).
   */
  bounded: boolean;
  pattern: Pattern;
  method: string;
  /** What a match answers for this route, made once: the handler, where its parameters are. */
  entry: [T, Record<string, number>];
}

/** The methods whose route index is kept (those a route file answers): any other is indexed for its one request. */
const COMMON_METHODS = new Set<string>(METHODS);

interface MethodIndex<T> {
  byPrefix: Map<string, PublicRoute<T>[]>;
  unbounded: PublicRoute<T>[];
  /** Candidate lists by the key of the prefixes a path has (`#candidates`). */
  candidates: Map<string, PublicRoute<T>[]>;
}

/** Hono's `Router` for the public app (core/served_app.ts). */
export class PublicRouter<T> implements Router<T> {
  name = "PublicRouter";
  #routes: PublicRoute<T>[] = [];
  /** One RegExp per distinct pattern: the app adds most routes several times, once per step. */
  #patterns = new Map<string, Pattern>();
  /** Parameters of all patterns: each has its own places in a match's stash. */
  #stashSize = 0;
  /** The routes of each common method, by prefix; made on the first match after a change. */
  #indexes = new Map<string, MethodIndex<T>>();

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
    let prefix = "";
    let literal = true;
    const names: string[] = [];
    const parts = (path.match(
      /\/?(:\w+(?:{(?:(?:{[\d,]+})|[^}])+})?)|\/?[^\/\?]+/g,
    ) ?? []).map((part) => {
      const param = part.match(/^\/:([^{]+)(?:{(.*)})?/);
      if (param || part === "/*") literal = false;
      else if (literal) prefix += part;
      if (param) {
        names.push(param[1]);
        return `/(?<${param[1]}>${param[2] || "[^/]+"})`;
      }
      return part === "/*" ? "/[^/]+" : part.replace(/[.\\+*[^\]$()]/g, "\\$&");
    });
    const source = `^${parts.join("")}${suffix}`;
    let pattern = this.#patterns.get(source);
    if (!pattern) {
      let regex: RegExp;
      try {
        regex = new RegExp(source);
      } catch {
        throw new UnsupportedPathError();
      }
      pattern = { regex, names, offset: this.#stashSize };
      this.#stashSize += names.length;
      this.#patterns.set(source, pattern);
    }
    const { offset } = pattern;
    const entry = Array.of<unknown>(
      handler,
      names.length
        ? Object.freeze(
          Object.fromEntries(names.map((n, k) => [n, offset + k])),
        )
        : NO_PARAMS,
    ) as [T, Record<string, number>];
    this.#routes.push({
      order: this.#routes.length,
      prefix,
      bounded: suffix !== "",
      pattern,
      method,
      entry,
    });
    this.#indexes.clear();
  }

  /** The routes `method` may take, grouped by prefix (a method outside the common ones is not kept). */
  #indexFor(method: string): MethodIndex<T> {
    let index = this.#indexes.get(method);
    if (index) return index;
    index = { byPrefix: new Map(), unbounded: [], candidates: new Map() };
    for (const route of this.#routes) {
      if (route.method !== method && route.method !== "ALL") continue;
      if (!route.bounded) index.unbounded.push(route);
      else {
        const same = index.byPrefix.get(route.prefix);
        if (same) same.push(route);
        else index.byPrefix.set(route.prefix, [route]);
      }
    }
    if (COMMON_METHODS.has(method)) this.#indexes.set(method, index);
    return index;
  }

  /**
   * The routes that may match `path`, in order: those whose prefix is one of the path's leading
   * segments (or none), and those not bounded by a segment. About 120 routes are added; a read
   * of an entry list has 15 candidates, and each other route would have cost a regex run.
   */
  #candidates(index: MethodIndex<T>, path: string): PublicRoute<T>[] {
    // The route prefixes this path begins with, as one key: a list is kept per key, so the lists
    // kept are bounded by the routes' prefixes whatever paths are asked for.
    let key = "";
    for (let end = path.indexOf("/", 1);; end = path.indexOf("/", end + 1)) {
      const leading = end === -1 ? path : path.slice(0, end);
      if (leading !== "" && index.byPrefix.has(leading)) key += `${leading}\n`;
      if (end === -1) break;
    }
    let found = index.candidates.get(key);
    if (!found) {
      found = [...index.unbounded, ...(index.byPrefix.get("") ?? [])];
      for (const leading of key.split("\n")) {
        if (leading) found.push(...index.byPrefix.get(leading)!);
      }
      found.sort((a, b) => a.order - b.order);
      index.candidates.set(key, found);
    }
    return found;
  }

  /**
   * Hono's stash form of a match: each route's entry (its handler and the places of its
   * parameters) is made once, and a match makes the list of entries and, when a pattern with
   * parameters matched, one stash of their values.
   */
  match(method: string, path: string): Result<T> {
    const handlers = Array.of<[T, Record<string, number>]>();
    let stash: string[] | null = null;
    // A route added again with the same pattern (the next step for the same paths) shares the
    // run of its regex.
    let last: Pattern | null = null;
    let found: RegExpExecArray | null = null;
    for (const route of this.#candidates(this.#indexFor(method), path)) {
      // A bounded candidate's prefix is one of the path's leading segments already.
      if (!route.bounded && !path.startsWith(route.prefix)) continue;
      const pattern = route.pattern;
      if (pattern !== last) {
        last = pattern;
        found = pattern.regex.exec(path);
        if (found?.groups && pattern.names.length) {
          stash ??= Array.of<string>();
          for (let k = 0; k < pattern.names.length; k++) {
            stash[pattern.offset + k] = found.groups[pattern.names[k]];
          }
        }
      }
      if (found) handlers.push(route.entry);
    }
    return (stash
      ? Array.of<unknown>(handlers, stash)
      : Array.of(handlers)) as unknown as Result<T>;
  }
}
