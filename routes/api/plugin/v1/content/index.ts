// GET /api/plugin/v1/content: summaries of content in scope, a page at a time.
import type { Context } from "hono";
import {
  dataResponse,
  installationOf,
  parseQuery,
  pluginRefusal,
  refusalResponse,
  requireCapabilities,
} from "../../../../../core/plugins/api_support.ts";
import { listContent } from "../../../../../core/plugins/content_api.ts";
import { useDelegation } from "../../../../../core/plugins/delegations.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

const UUID = /^[0-9a-f-]{36}$/i;

export const handler = {
  async GET(c: Context<AppEnv>) {
    const installation = installationOf(c);
    const denied = requireCapabilities(installation, ["content:read"]);
    if (denied) return refusalResponse(denied);
    const query = parseQuery(c, [
      "limit",
      "cursor",
      "model_id",
      "delegation_id",
    ]);
    if (!query.ok) return refusalResponse(query);
    const q = query.value;
    const limit = q.limit === undefined ? 50 : Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return refusalResponse(
        pluginRefusal(
          "invalid_request",
          "limit must be a whole number from 1 to 100",
        ),
      );
    }
    for (const name of ["cursor", "model_id"] as const) {
      if (q[name] !== undefined && !UUID.test(q[name])) {
        return refusalResponse(
          pluginRefusal("invalid_request", `${name} is not valid`),
        );
      }
    }
    let delegation;
    if (q.delegation_id !== undefined) {
      const used = await useDelegation(
        c.var.services.db,
        installation,
        q.delegation_id,
        undefined,
        ["content:read"],
      );
      if (!used.ok) return refusalResponse(used);
      delegation = used;
    }
    const page = await listContent(c.var.services.db, installation, {
      limit,
      after: q.cursor,
      model_id: q.model_id,
      delegation,
    });
    return dataResponse(page.data, { next_cursor: page.next_cursor });
  },
};
