// GET /api/managed-templates/candidates/{versionId}/site/{name} (site:infra): one asset of a
// candidate (its stylesheet, pictures), for its previews in the admin.
import type { Context } from "hono";
import {
  refuseTemplate,
  templateContext,
} from "../../../../../../core/templates/http.ts";
import { findCandidate } from "../../../../../../core/templates/candidates.ts";
import { compiledFiles } from "../../../../../../core/templates/preview.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  txt: "text/plain; charset=utf-8",
  json: "application/json",
};

export const handler = {
  async GET(c: Context<AppEnv>) {
    const ctx = await templateContext(c, ["site:infra"]);
    const candidate = await findCandidate(ctx, c.req.param("versionId") ?? "");
    if (!candidate) return refuseTemplate({ ok: false, code: "not_found" });
    const files = await compiledFiles(ctx, candidate.id);
    if (!files.ok) return refuseTemplate(files);
    const name = `assets/${c.req.param("name") ?? ""}`;
    if (!Object.hasOwn(files.files, name)) {
      return refuseTemplate({ ok: false, code: "not_found" });
    }
    const ext = name.split(".").pop() ?? "";
    return new Response(files.files[name], {
      headers: {
        // Scripts are never served as scripts: a preview runs none.
        "content-type": TYPES[ext] ?? "text/plain; charset=utf-8",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      },
    });
  },
};
