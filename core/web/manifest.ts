// The shapes of route modules and of the generated manifest that lists them.
import type { Context, MiddlewareHandler } from "hono";
import type { ComponentChildren, ComponentType } from "preact";
import type { AppEnv } from "./env.ts";
import type { Config } from "../config.ts";

/** What a handler may answer: a Response, or the data of the page component. */
export type HandlerResult = Response | PageResult;

/** A per-method handler of a route file. */
export type RouteHandler = (
  c: Context<AppEnv>,
) => HandlerResult | Promise<HandlerResult>;

/** HTTP methods a route file may export handlers for. */
export const METHODS = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
] as const;
export type Method = typeof METHODS[number];

/** Props of a page component. */
export interface PageProps<Data = unknown> {
  data: Data;
  params: Record<string, string>;
  url: URL;
}

/** Props of `_layout.tsx` and `_app.tsx` components. */
export interface LayoutProps extends PageProps {
  children?: ComponentChildren;
}

/** Marks the data a handler gives to the page component. */
export interface PageResult {
  readonly kind: "page";
  data: unknown;
  status: number;
  headers?: HeadersInit;
}

/** Answers the route's page component with `data`. */
export function page(
  data: unknown = undefined,
  init: { status?: number; headers?: HeadersInit } = {},
): PageResult {
  return {
    kind: "page",
    data,
    status: init.status ?? 200,
    headers: init.headers,
  };
}

/** Per-route settings a route file may export as `config`. */
export interface RouteConfig {
  /**
   * Largest accepted request body in bytes, or a function of the settings giving it per
   * request (a limit an operator sets); the default applies otherwise.
   */
  bodyLimit?: number | ((config: Config) => number);
  /**
   * The route reads its body as a stream (file uploads): the limit counts the bytes as they
   * pass instead of gathering a body sent without a length to count it.
   */
  streamsBody?: boolean;
  /** The error code of a body over the limit (default `payload_too_large`); 413 either way. */
  tooLargeCode?: string;
}

/** What a file under `routes/` may export. */
export interface RouteModule {
  handler?: Partial<Record<Method, RouteHandler>>;
  // Page, layout and app components each take their own props; the registrar knows which is which.
  // deno-lint-ignore no-explicit-any
  default?: ComponentType<any>;
  config?: RouteConfig;
  middleware?: MiddlewareHandler<AppEnv> | MiddlewareHandler<AppEnv>[];
}

/** One file of the manifest. */
export interface ManifestEntry {
  file: string;
  folder: string;
  module: RouteModule;
}

/** The generated import table of routes, middlewares, layouts and islands. */
export interface Manifest {
  routes: (ManifestEntry & { pattern: string })[];
  middlewares: ManifestEntry[];
  layouts: ManifestEntry[];
  app: ManifestEntry | null;
  islands: { name: string; file: string }[];
}
