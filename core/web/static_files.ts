// Serves files under static/ at /_static/, with hashed build output cached for good.
import type { Context } from "hono";

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
  let body: Uint8Array;
  try {
    body = await Deno.readFile(`${staticDir}/${relative}`);
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound ||
      error instanceof Deno.errors.IsADirectory
    ) return null;
    throw error;
  }
  const immutable = relative.startsWith("build/");
  return new Response(
    c.req.method === "HEAD" ? null : body as Uint8Array<ArrayBuffer>,
    {
      headers: {
        "content-type": TYPES[extension] ?? "application/octet-stream",
        "cache-control": immutable
          ? "public, max-age=31536000, immutable"
          : "public, max-age=300",
        "x-content-type-options": "nosniff",
      },
    },
  );
}
