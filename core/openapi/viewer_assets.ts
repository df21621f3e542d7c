// The OpenAPI viewer's files (Swagger UI from npm, no CDN), served under /docs/viewer/.
// Only the folder helper: the package's main module evaluates the whole 1.5 MB browser bundle,
// about 0.2 s of CPU in every process that imports this file.
import getAbsoluteFSPath from "swagger-ui-dist/absolute-path.js";

/** The viewer files a page may load, with their content types. */
export const VIEWER_FILES: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

/** Answers one viewer file, or null for a name outside {@link VIEWER_FILES}. */
export async function viewerFile(name: string): Promise<Response | null> {
  const type = VIEWER_FILES[name];
  if (!type) return null;
  const body = await Deno.readFile(`${getAbsoluteFSPath()}/${name}`);
  return new Response(body, {
    headers: {
      "content-type": type,
      // The version is pinned in deno.json; a day keeps reloads cheap and upgrades visible.
      "cache-control": "public, max-age=86400",
      "x-content-type-options": "nosniff",
    },
  });
}
