// The scheduling plugin beside the embedded demo (`deno task start`): started on a worker thread of
// this process on its own port with its own database and KV under DATA_DIR/scheduling, reached
// only over HTTP like any plugin, and installed on the demo site once, so a newcomer sees a Schedule card on a
// post right away. Production never runs it (spec 1 part 5.10: local HTTP only in development,
// for an exact listed origin, which is this plugin's own).
import type { TickReport } from "../../plugins/scheduling/core/tick.ts";
import type { CompanionAnswer, CompanionQuestion } from "./companion_worker.ts";
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
  /** One tick of the plugin now (the service's cron calls it each minute). */
  tick(): Promise<TickReport>;
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
  const worker = new CompanionWorker();
  let started: { origin: string; manifestUrl: string };
  try {
    started = await worker.ask({
      call: "start",
      dir,
      port,
      adminSecret: secrets.adminSecret,
      tokenKey: secrets.tokenKey,
      devOrigins: [new URL(config.publicUrl).origin],
    }) as typeof started;
  } catch (error) {
    worker.terminate();
    throw error;
  }
  const { origin } = started;
  if (!config.pluginDevOrigins.includes(origin)) {
    config.pluginDevOrigins.push(origin);
  }
  const close = async () => {
    await worker.ask({ call: "close" }).catch(() => {});
    worker.terminate();
  };
  const tick = () => worker.ask({ call: "tick" }) as Promise<TickReport>;
  const site = await findSiteByDomain(db, config.demoDomain);
  const admin = await db.selectFrom("users").select("id")
    .where("email", "=", DEMO_ADMIN_EMAIL).executeTakeFirst();
  if (!site || !admin) {
    return { tick, origin, installed: "no demo site", close };
  }
  const existing = await db.selectFrom("plugin_installations").select("id")
    .where("site_id", "=", site.id)
    .where("plugin_id", "=", SCHEDULING_PLUGIN_ID)
    .where("state", "<>", "revoked").executeTakeFirst();
  if (existing) {
    return { tick, origin, installed: "already", close };
  }
  const models = await db.selectFrom("models").select("id")
    .where("site_id", "=", site.id).execute();
  const asked = new Set<string>(
    schedulingManifest(origin).capabilities,
  );
  const done = await installPlugin({
    db,
    clock: services.clock,
    siteId: site.id,
    userId: admin.id,
    call: pluginCallOf(services),
    serviceUrl: config.publicUrl,
  }, {
    manifest_url: started.manifestUrl,
    activation_code: await worker.ask({ call: "issueCode" }) as string,
    grant: {
      capabilities: CAPABILITIES.filter((c) => asked.has(c)),
      model_ids: models.map((m) => m.id),
    },
  });
  return {
    tick,
    origin,
    installed: done.ok ? "installed" : `not installed (${done.code})`,
    close,
  };
}

/** The worker thread the plugin runs on, asked one question at a time per id. */
class CompanionWorker {
  #worker = new Worker(new URL("./companion_worker.ts", import.meta.url), {
    type: "module",
  });
  #next = 1;
  #waiting = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();

  constructor() {
    this.#worker.onmessage = (event: MessageEvent<CompanionAnswer>) => {
      const answer = event.data;
      const waiting = this.#waiting.get(answer.id);
      this.#waiting.delete(answer.id);
      if (answer.ok) waiting?.resolve(answer.value);
      else waiting?.reject(new Error(answer.message));
    };
    // A worker that fails outside a question (it cannot load) fails every question waiting.
    this.#worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      for (const waiting of this.#waiting.values()) {
        waiting.reject(new Error(event.message));
      }
      this.#waiting.clear();
    };
  }

  ask(question: DistributiveOmit<CompanionQuestion, "id">): Promise<unknown> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ ...question, id });
    });
  }

  terminate(): void {
    this.#worker.terminate();
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K>
  : never;
