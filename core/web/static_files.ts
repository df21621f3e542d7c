// Serves files under static/ at /_static/: hashed build output and a stylesheet addressed by its
// content hash are cached for good, and text files are sent compressed (brotli or gzip, as the
// browser's Accept-Encoding allows, with `Vary: Accept-Encoding`).
import type { Context } from "hono";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  ico: "image/x-icon",
  json: "application/json",
  txt: "text/plain; charset=utf-8",
  map: "application/json",
};

/** Types worth compressing: text. Images are compressed already. */
const COMPRESSIBLE = new Set(["js", "css", "svg", "json", "txt", "map"]);

/** Files smaller than this are sent as they are: compression would not pay for its header. */
const MIN_COMPRESSED_BYTES = 1024;

/** A file's compressed forms, kept while its size and modification time stay the same. */
interface Compressed {
  stamp: string;
  br: Uint8Array;
  gzip: Uint8Array;
}

// Derived from the files on disk only (never from a request), so every instance answers the
// same bytes; compressing once per file version keeps brotli's cost off each request.
const compressedFiles = new Map<string, Compressed>();

function compressed(path: string, stamp: string, body: Uint8Array): Compressed {
  const kept = compressedFiles.get(path);
  if (kept && kept.stamp === stamp) return kept;
  const made = {
    stamp,
    br: new Uint8Array(brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
    })),
    gzip: new Uint8Array(gzipSync(body, { level: 9 })),
  };
  compressedFiles.set(path, made);
  return made;
}

/** The encodings a request accepts (a `q=0` refuses one), by name. */
function acceptedEncodings(header: string | undefined): Set<string> {
  const accepted = new Set<string>();
  for (const part of (header ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (q && Number(q.slice(2)) === 0) continue;
    if (name) accepted.add(name);
  }
  return accepted;
}

const stylesheetHrefs = new Map<string, string>();

/**
 * The address of a stylesheet under static/ with its content hash (`/_static/admin.css?v=…`),
 * which is served as immutable; read once per process, as the hashed bundles are built once.
 */
export function stylesheetHref(staticDir: string, name: string): string {
  const key = `${staticDir}/${name}`;
  let href = stylesheetHrefs.get(key);
  if (href === undefined) {
    let version = "";
    try {
      const body = Deno.readFileSync(key);
      // Synchronous on purpose: pages render synchronously; a short FNV-1a hash is enough to
      // change the address whenever the file changes.
      let hash = 0x811c9dc5;
      for (const byte of body) {
        hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
      }
      version = `${hash.toString(16)}${body.byteLength.toString(16)}`;
    } catch {
      version = "";
    }
    href = `/_static/${name}${version ? `?v=${version}` : ""}`;
    stylesheetHrefs.set(key, href);
  }
  return href;
}

/** The admin stylesheet's address with its content hash, for every page's `<link>`. */
export function adminStylesheetHref(): string {
  return stylesheetHref(
    decodeURIComponent(new URL("../../static", import.meta.url).pathname),
    "admin.css",
  );
}

/** Answers a file of `staticDir` named by the path after `/_static/`, or null when there is none. */
export async function serveStaticFile(
  c: Context,
  staticDir: string,
): Promise<Response | null> {
  let relative: string;
  try {
    relative = decodeURIComponent(c.req.path.replace(/^\/_static\//, ""));
  } catch {
    return null;
  }
  if (
    relative.split("/").some((part) =>
      part === ".." || part === "" || part.startsWith(".")
    )
  ) return null;
  const extension = relative.split(".").pop() ?? "";
  const path = `${staticDir}/${relative}`;
  let body: Uint8Array;
  let stamp: string;
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) return null;
    body = await Deno.readFile(path);
    stamp = `${info.size}:${info.mtime?.getTime() ?? 0}`;
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound ||
      error instanceof Deno.errors.IsADirectory
    ) return null;
    throw error;
  }
  // Build output has content-hashed names; another file is immutable only when it is asked for
  // by its current content address (`?v=`), so an old address never pins a newer file.
  const version = c.req.query("v");
  const immutable = relative.startsWith("build/") ||
    (version !== undefined &&
      stylesheetHref(staticDir, relative) ===
        `/_static/${relative}?v=${version}`);
  const headers: Record<string, string> = {
    "content-type": TYPES[extension] ?? "application/octet-stream",
    "cache-control": immutable
      ? "public, max-age=31536000, immutable"
      : "public, max-age=300",
    "x-content-type-options": "nosniff",
  };
  let sent = body;
  if (COMPRESSIBLE.has(extension) && body.byteLength >= MIN_COMPRESSED_BYTES) {
    headers["vary"] = "Accept-Encoding";
    const accepted = acceptedEncodings(c.req.header("accept-encoding"));
    const encoding = accepted.has("br")
      ? "br"
      : accepted.has("gzip")
      ? "gzip"
      : null;
    if (encoding) {
      const forms = compressed(path, stamp, body);
      sent = forms[encoding];
      headers["content-encoding"] = encoding;
    }
  }
  headers["content-length"] = String(sent.byteLength);
  return new Response(
    c.req.method === "HEAD" ? null : sent as Uint8Array<ArrayBuffer>,
    { headers },
  );
}
