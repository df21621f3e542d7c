// GET /docs/viewer/{file}: the OpenAPI viewer's script and style sheet, bundled from npm.
import type { Context } from "hono";
import { viewerFile } from "../../../core/openapi/viewer_assets.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const answer = await viewerFile(c.req.param("file")!);
    if (!answer) refuse(404, "not_found", "Not found");
    return answer;
  },
};
