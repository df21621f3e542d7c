// GET /api/plugin/v1/content/{instance_id}: one item in scope, optionally read for a delegated person (part 2.8).
// PUT saves field values for that person, pinned to the version they read.
import type { Context } from "hono";
import {
  dataResponse,
  installationOf,
  parseQuery,
  refusalResponse,
  requireCapabilities,
} from "../../../../../../core/plugins/api_support.ts";
import { readContent } from "../../../../../../core/plugins/content_api.ts";
import { scopedItem } from "../../../../../../core/plugins/scoped_item.ts";
import { useDelegation } from "../../../../../../core/plugins/delegations.ts";
import { savePluginContent } from "../../../../../../core/plugins/writes_api.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const installation = installationOf(c);
    const denied = requireCapabilities(installation, ["content:read"]);
    if (denied) return refusalResponse(denied);
    const query = parseQuery(c, ["delegation_id"]);
    if (!query.ok) return refusalResponse(query);
    const db = c.var.services.db;
    const item = await scopedItem(
      db,
      installation,
      c.req.param("instance_id") ?? "",
    );
    if (!("instance" in item)) return refusalResponse(item);
    let delegation;
    if (query.value.delegation_id !== undefined) {
      const used = await useDelegation(
        db,
        installation,
        query.value.delegation_id,
        item.group,
        ["content:read"],
      );
      if (!used.ok) return refusalResponse(used);
      delegation = used;
    }
    return dataResponse(await readContent(db, installation, item, delegation));
  },
  PUT(c: Context<AppEnv>) {
    return savePluginContent(c);
  },
};
