// A plugin catalogue as a real HTTP server on 127.0.0.1: pages set per path, every request recorded.

/** What one path answers: a JSON value, or a raw body with a status and headers. */
export type CataloguePage =
  | { json: unknown }
  | { status?: number; body: string; headers?: Record<string, string> };

/** A running catalogue server. */
export interface CatalogueServer {
  /** `http://127.0.0.1:<port>`, to list in `PLUGIN_DEV_ORIGINS`. */
  origin: string;
  /** Paths requested so far, in order. */
  requests: string[];
  /** Sets what `path` answers (unset paths answer 404). */
  set(path: string, page: CataloguePage): void;
  /** Serves `pages` as a chain: `path`, `path?page=2`, …, each naming the next. */
  chain(path: string, pages: unknown[][]): void;
  close(): Promise<void>;
}

/** An entry named `name` whose manifest sits on `origin`. */
export function catalogueEntry(
  origin: string,
  name: string,
  description?: string,
) {
  return {
    name,
    ...(description === undefined ? {} : { description }),
    manifest_url: `${origin}/plugins/${encodeURIComponent(name)}/manifest.json`,
  };
}

/** `count` entries named `prefix-0`, `prefix-1`, … on `origin`. */
export function catalogueEntries(
  origin: string,
  prefix: string,
  count: number,
) {
  return Array.from(
    { length: count },
    (_, i) => catalogueEntry(origin, `${prefix}-${i}`),
  );
}

/** Starts a catalogue server on a free port of 127.0.0.1. */
export function startCatalogueServer(): CatalogueServer {
  const pages = new Map<string, CataloguePage>();
  const requests: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => {
      const url = new URL(request.url);
      const path = `${url.pathname}${url.search}`;
      requests.push(path);
      const page = pages.get(path);
      if (!page) return new Response("not found", { status: 404 });
      if ("json" in page) return Response.json(page.json);
      return new Response(page.body, {
        status: page.status ?? 200,
        headers: { "content-type": "application/json", ...page.headers },
      });
    },
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    requests,
    set(path, page) {
      pages.set(path, page);
    },
    chain(path, chained) {
      chained.forEach((entries, i) => {
        const at = i === 0 ? path : `${path}?page=${i + 1}`;
        const next = i + 1 < chained.length
          ? `${origin}${path}?page=${i + 2}`
          : null;
        pages.set(at, { json: { entries, next } });
      });
    },
    close: () => server.shutdown(),
  };
}
