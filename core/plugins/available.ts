// What a caller may use of the site's plugin installations now: the one reading of grants,
// scopes and the caller's authority behind every listing (spec 2 part 2.5; MPL-001 to MPL-004).
import type { Authority } from "../access/authority.ts";
import { decide } from "../access/decide.ts";
import type { Db } from "../db/database.ts";
import { isPageField } from "../models/validate_values.ts";
import {
  type Installation,
  installationOf,
  listInstallationRows,
} from "./installation_store.ts";
import { operationAvailable, withinScopes } from "./invocations.ts";
import type { ManifestOperation, ManifestV1 } from "./manifest.ts";

/** One installation with what the caller may use of it now. */
export interface AvailablePlugin {
  installation: Installation;
  views: ManifestV1["manage_views"];
  actions: (ManifestV1["content_actions"][number] & { model_ids: string[] })[];
  /** Each operation with the models it may run on (none for a site operation). */
  operations: { op: ManifestOperation; model_ids: string[] }[];
}

async function pageModels(db: Db, siteId: string): Promise<Set<string>> {
  const rows = await db.selectFrom("model_fields").select([
    "model_id",
    "key",
    "type",
    "config",
  ]).where("site_id", "=", siteId).execute();
  return new Set(
    rows.filter((r) => isPageField(r as never)).map((r) => r.model_id),
  );
}

/** The granted models the caller reads now, inside the credential's models. */
function readableModels(
  authority: Authority,
  installation: Installation,
): string[] {
  return installation.modelIds.filter((model) =>
    decide(authority, { action: "plugins.launch", model }).ok
  );
}

/**
 * What the caller may use of each installation now (active and disabled ones; a disabled one
 * offers nothing): manage views, content actions with their models, and operations with the
 * models they may run on. One source for the Management API's listings, MCP and the admin.
 */
export async function availablePlugins(
  db: Db,
  siteId: string,
  authority: Authority,
): Promise<AvailablePlugin[]> {
  const rows = (await listInstallationRows(db, siteId)).map(
    installationOf,
  ).filter((i) => i.state === "active" || i.state === "disabled");
  // Every entry list and editor asks: a site without plugins costs one query.
  if (rows.length === 0) return [];
  const pages = await pageModels(db, siteId);
  const plugins = rows.map((installation) => {
    const active = installation.state === "active";
    const readable = active ? readableModels(authority, installation) : [];
    const views = readable.length > 0 ? installation.manifest.manage_views : [];
    const actions = readable.length > 0
      ? installation.manifest.content_actions.map((a) => ({
        ...a,
        model_ids: a.scope === "page"
          ? readable.filter((m) => pages.has(m))
          : readable,
      })).filter((a) => a.model_ids.length > 0)
      : [];
    const operations = active
      ? installation.manifest.operations.flatMap((op) => {
        if (
          !operationAvailable(installation, op) ||
          !withinScopes(op, authority.scopes)
        ) return [];
        if (op.scope === "site") {
          return decide(authority, { action: "plugins.site_operation" }).ok
            ? [{ op, model_ids: [] as string[] }]
            : [];
        }
        const models = readable.filter((model) =>
          (op.scope !== "page" || pages.has(model)) &&
          (!op.destructive ||
            decide(authority, {
              action: "plugins.entry_operation_destructive",
              model,
            }).ok)
        );
        return models.length > 0 ? [{ op, model_ids: models }] : [];
      })
      : [];
    return { installation, views, actions, operations };
  });
  return plugins;
}
