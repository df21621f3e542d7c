// GET /admin/settings/api-client: downloads svc-manage.mjs, the command-line client generated from the contract.
import type { Context } from "hono";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import { CLI_PATH } from "../../../core/manage/generate.ts";
import type { AppEnv } from "../../../core/web/env.ts";

export const middleware = requireSignedIn;

const ROOT = new URL("../../../", import.meta.url);

export const handler = {
  async GET(c: Context<AppEnv>) {
    const text = await Deno.readTextFile(new URL(CLI_PATH, ROOT));
    return c.body(text, 200, {
      "content-type": "text/javascript; charset=UTF-8",
      "content-disposition": 'attachment; filename="svc-manage.mjs"',
    });
  },
};
