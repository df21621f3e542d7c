// GET /api/plugins: the site's installations; POST /api/plugins: install from a manifest URL (spec 1 parts 3.1, 4.3).
import type { Context } from "hono";
import { z } from "zod";
import { idField } from "../../../core/admin/ids.ts";
import {
  adminContext,
  installationJson,
  refuseAdmin,
} from "../../../core/plugins/admin_routes.ts";
import {
  installPlugin,
  listInstallations,
} from "../../../core/plugins/installations.ts";
import { CAPABILITIES } from "../../../core/plugins/protocol.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { HttpError } from "../../../core/web/errors.ts";

/** The closed install body. */
export const installBody = z.strictObject({
  manifest_url: z.string().min(1).max(2048),
  activation_code: z.string().min(1).max(256),
  grant: z.strictObject({
    capabilities: z.array(z.enum(CAPABILITIES)).max(CAPABILITIES.length),
    model_ids: z.array(idField).max(500),
  }),
});

/** Parses a closed JSON body or refuses `400 invalid_request` naming the first problem. */
export async function jsonBody<S extends z.ZodType>(
  c: Context<AppEnv>,
  schema: S,
): Promise<z.output<S>> {
  let json: unknown;
  try {
    json = await c.req.json();
  } catch {
    throw new HttpError(400, "invalid_request", "The body is not valid JSON");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(
      400,
      "invalid_request",
      `${issue.path.map(String).join(".") || "(body)"}: ${issue.message}`,
    );
  }
  return parsed.data;
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const listed = await listInstallations(adminContext(c));
    if (!listed.ok) refuseAdmin(listed);
    return c.json({ data: listed.installations.map(installationJson) });
  },
  async POST(c: Context<AppEnv>) {
    const body = await jsonBody(c, installBody);
    const installed = await installPlugin(adminContext(c), body);
    if (!installed.ok) refuseAdmin(installed);
    return c.json({ data: installationJson(installed.installation) }, 201);
  },
};
