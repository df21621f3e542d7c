// One bench site with a plugin installed: a site and its administrator, a Posts model, the plugin
// installed through the guarded fetch and activated, and one manage delegation recorded as a
// launch's exchange records it (the launch itself is not what the plugin benches measure).
import { systemClock } from "../core/clock.ts";
import type { Db } from "../core/db/database.ts";
import { createModel } from "../core/models/store.ts";
import type { PluginCall } from "../core/plugins/calls.ts";
import { installPlugin } from "../core/plugins/installations.ts";
import type { Capability } from "../core/plugins/protocol.ts";
import { createInstallation } from "../core/sites/installation.ts";

/** What a bench needs of one site: ids, and the delegation its plugin acts under. */
export interface PluginSite {
  siteId: string;
  userId: string;
  email: string;
  modelId: string;
  installationId: string;
  delegationId: string;
}

/** Makes site `name-<n>` (`<n>.<name>.bench`) and installs the plugin of `manifestUrl` on it. */
export async function pluginSite(
  db: Db,
  options: {
    name: string;
    n: number;
    call: PluginCall;
    serviceUrl: string;
    manifestUrl: string;
    activationCode: string;
    capabilities: Capability[];
  },
): Promise<PluginSite> {
  const email = `admin${options.n}@${options.name}.bench`;
  const created = await createInstallation({ db, clock: systemClock }, {
    domain: `${options.n}.${options.name}.bench`,
    slug: `${options.name}-${options.n}`,
    name: `${options.name} ${options.n}`,
    locales: ["en"],
    adminEmail: email,
  });
  if (!created.ok) throw new Error(created.message);
  const siteId = created.site.id;
  const userId = created.admin.id;
  const ctx = { db, clock: systemClock, siteId };
  const model = await createModel(ctx, {
    model: { name: "Posts", slug: "posts" },
    fields: [{ key: "title", label: "Title", type: "text" }],
  });
  if (!model.ok) throw new Error(model.code);
  const installed = await installPlugin({
    ...ctx,
    userId,
    call: options.call,
    serviceUrl: options.serviceUrl,
  }, {
    manifest_url: options.manifestUrl,
    activation_code: options.activationCode,
    grant: {
      capabilities: options.capabilities,
      model_ids: [model.model_id],
    },
  });
  if (!installed.ok) throw new Error(installed.code);
  const installationId = installed.installation.id;
  // One manage delegation reaches every entry of the granted model.
  const delegationId = crypto.randomUUID();
  await db.insertInto("plugin_delegations").values({
    id: delegationId,
    site_id: siteId,
    installation_id: installationId,
    source: "launch",
    user_id: userId,
    user_email: email,
    action: "manage",
    view: "calendar",
    instance_id: null,
    group_id: null,
    model_ids: JSON.stringify([{ model_id: model.model_id, access: "read" }]),
    invocation_id: null,
    capabilities: null,
    created_at: new Date(),
  }).execute();
  return {
    siteId,
    userId,
    email,
    modelId: model.model_id,
    installationId,
    delegationId,
  };
}
