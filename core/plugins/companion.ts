// The scheduling plugin beside the embedded demo (`deno task start`): started in this process on
// its own port with its own database and KV under DATA_DIR/scheduling, reached only over HTTP
// like any plugin, and installed on the demo site once, so a newcomer sees a Schedule card on a
// post right away. Production never runs it (spec 1 part 5.10: local HTTP only in development,
// for an exact listed origin, which is this plugin's own).
import {
  type RunningScheduler,
  startScheduler,
} from "../../plugins/scheduling/server.ts";
import {
  SCHEDULING_PLUGIN_ID,
  schedulingManifest,
} from "../../plugins/scheduling/manifest.ts";
import { DEMO_ADMIN_EMAIL } from "../sites/demo_site.ts";
import { findSiteByDomain } from "../sites/site_store.ts";
import type { Services } from "../services.ts";
import { pluginCallOf } from "./calls.ts";
import { installPlugin } from "./installations.ts";
import { CAPABILITIES } from "./protocol.ts";

/** The plugin's operator secrets, made once and kept beside its data (mode 0600). */
async function companionSecrets(
  dir: string,
): Promise<{ adminSecret: string; tokenKey: Uint8Array }> {
  const path = `${dir}/secrets.json`;
  try {
    const kept = JSON.parse(await Deno.readTextFile(path));
    return {
      adminSecret: kept.admin_secret,
      tokenKey: Uint8Array.from(atob(kept.token_key), (c) => c.charCodeAt(0)),
    };
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const tokenKey = crypto.getRandomValues(new Uint8Array(32));
  const adminSecret = [...crypto.getRandomValues(new Uint8Array(24))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  await Deno.writeTextFile(
    path,
    JSON.stringify({
      admin_secret: adminSecret,
      token_key: btoa(String.fromCharCode(...tokenKey)),
    }),
    { mode: 0o600 },
  );
  return { adminSecret, tokenKey };
}

/** What start-up reports about the companion. */
export interface Companion {
  scheduler: RunningScheduler;
  origin: string;
  /** "installed" now, "already" from an earlier start, or why it was not installed. */
  installed: string;
  close(): Promise<void>;
}

/**
 * Starts the scheduling plugin on `port` and installs it on the demo site with every model
 * granted. Throws only for outages; an install refusal is reported, not fatal.
 */
export async function startSchedulerCompanion(
  services: Services,
  port: number,
): Promise<Companion> {
  const { config, db } = services;
  const dir = `${config.dataDir}/scheduling`;
  await Deno.mkdir(dir, { recursive: true });
  const secrets = await companionSecrets(dir);
  const kv = await Deno.openKv(`${dir}/kv.sqlite3`);
  let scheduler: RunningScheduler;
  try {
    scheduler = await startScheduler({
      hostname: "127.0.0.1",
      port,
      adminSecret: secrets.adminSecret,
      tokenKey: secrets.tokenKey,
      database: { dataDir: dir },
      kv,
      servicePolicy: {
        development: true,
        devOrigins: [new URL(config.publicUrl).origin],
      },
    });
  } catch (error) {
    kv.close();
    throw error;
  }
  if (!config.pluginDevOrigins.includes(scheduler.origin)) {
    config.pluginDevOrigins.push(scheduler.origin);
  }
  const close = async () => {
    await scheduler.close();
    kv.close();
  };
  const site = await findSiteByDomain(db, config.demoDomain);
  const admin = await db.selectFrom("users").select("id")
    .where("email", "=", DEMO_ADMIN_EMAIL).executeTakeFirst();
  if (!site || !admin) {
    return {
      scheduler,
      origin: scheduler.origin,
      installed: "no demo site",
      close,
    };
  }
  const existing = await db.selectFrom("plugin_installations").select("id")
    .where("site_id", "=", site.id)
    .where("plugin_id", "=", SCHEDULING_PLUGIN_ID)
    .where("state", "<>", "revoked").executeTakeFirst();
  if (existing) {
    return { scheduler, origin: scheduler.origin, installed: "already", close };
  }
  const models = await db.selectFrom("models").select("id")
    .where("site_id", "=", site.id).execute();
  const asked = new Set<string>(
    schedulingManifest(scheduler.origin).capabilities,
  );
  const done = await installPlugin({
    db,
    clock: services.clock,
    siteId: site.id,
    userId: admin.id,
    call: pluginCallOf(services),
    serviceUrl: config.publicUrl,
  }, {
    manifest_url: scheduler.manifestUrl,
    activation_code: await scheduler.issueCode(),
    grant: {
      capabilities: CAPABILITIES.filter((c) => asked.has(c)),
      model_ids: models.map((m) => m.id),
    },
  });
  return {
    scheduler,
    origin: scheduler.origin,
    installed: done.ok ? "installed" : `not installed (${done.code})`,
    close,
  };
}
