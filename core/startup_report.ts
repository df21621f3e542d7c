// What a starting service tells the person who started it: one line per step with its duration, then where to go next.
import type { Config } from "./config.ts";
import type { Db } from "./db/database.ts";
import type { StepRunner } from "./db/open_migrated.ts";
import type { Services } from "./services.ts";
import type { EnsureDemoOptions } from "./sites/demo_site.ts";
import { findSiteByDomain } from "./sites/site_store.ts";
import {
  preparedDemoFingerprint,
  savePreparedDemo,
} from "./sites/demo_prepared.ts";

/**
 * A step runner that prints `✓ <label> (<detail>) <ms> ms` when a step ends, or
 * `✗ <label> failed after <ms> ms` before the error travels on.
 */
export function stepPrinter(
  print: (line: string) => void,
  now: () => number = () => performance.now(),
): StepRunner {
  return async function step(label, run, detail) {
    const started = now();
    let result;
    try {
      result = await run();
    } catch (error) {
      print(`✗ ${label} failed after ${Math.round(now() - started)} ms`);
      throw error;
    }
    const extra = detail ? ` (${detail(result)})` : "";
    print(`✓ ${label}${extra}: ${Math.round(now() - started)} ms`);
    return result;
  };
}

/** How many entries and search documents a site holds, for the demo step's line. */
export async function contentCounts(
  db: Db,
  siteId: string,
): Promise<{ entries: number; searchDocuments: number }> {
  const entries = await db.selectFrom("entry_groups")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("site_id", "=", siteId).executeTakeFirstOrThrow();
  const documents = await db.selectFrom("search_documents")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("site_id", "=", siteId).executeTakeFirstOrThrow();
  return {
    entries: Number(entries.n),
    searchDocuments: Number(documents.n),
  };
}

/** Creates the demo site when missing (content and search index in one step) and answers what to print about it. */
export async function demoStep(
  services: Services,
  step: StepRunner,
  options: EnsureDemoOptions = {},
): Promise<DemoFacts> {
  const { config, db } = services;
  // Imported here: a service without the demo site never loads the demo's content and media code.
  const { DEMO_ADMIN_EMAIL, ensureDemoSite } = await import(
    "./sites/demo_site.ts"
  );
  const demo = await step(
    "Demo site",
    async () => {
      const result = await ensureDemoSite(services, options);
      const site = await findSiteByDomain(db, config.demoDomain);
      return { ...result, counts: await contentCounts(db, site!.id) };
    },
    (d) =>
      `${
        DEMO_ORIGIN[d.origin]
      }: ${d.counts.entries} entries, ${d.counts.searchDocuments} search documents`,
  );
  if (demo.origin === "created") {
    const fingerprint = await preparedDemoFingerprint(config);
    if (fingerprint) {
      await step(
        "Prepared demo saved for the next empty start",
        () => savePreparedDemo(db, config, fingerprint),
      );
    }
  }
  return {
    email: demo.createdAdmin?.email ?? DEMO_ADMIN_EMAIL,
    password: demo.createdAdmin?.password,
    passwordFile: `${config.dataDir}/demo-admin.txt`,
  };
}

const DEMO_ORIGIN = {
  created: "created",
  copied: "copied from the prepared demo, with a new admin password",
  existing: "already there",
} as const;

/** What the closing block needs to know about the demo site. */
export interface DemoFacts {
  email: string;
  /** Present only on the start that created the admin (shown once). */
  password?: string;
  passwordFile: string;
}

/** Options of {@link closingBlock}. */
export interface ClosingBlockOptions {
  config: Config;
  /** Port the server listens on (differs from the setting when it is 0). */
  port: number;
  /** Every site's domain, with its slug. */
  sites: { domain: string; slug: string }[];
  demo: DemoFacts | null;
  /** A public model of the first site to show as an example read, if any. */
  exampleModel: { domain: string; slug: string } | null;
  startedMs: number;
  /** The scheduling plugin's origin when it runs beside the demo. */
  scheduler?: string;
  /** The site renderer's origin when it runs beside the demo. */
  site?: string;
}

/** The block printed once the service listens: where the admin, docs and API are, and which hosts answer. */
export function closingBlock(options: ClosingBlockOptions): string[] {
  const { config, port, sites, demo, exampleModel } = options;
  const local = (domain: string) =>
    `http://${domain}${port === 80 ? "" : `:${port}`}`;
  // The first address printed must answer. Without PUBLIC_URL it defaults to localhost on
  // the configured port, which is wrong when PORT is 0 (any free port) and answers no site
  // when localhost is not one; then name the port listened on and a site this machine reaches.
  const base = adminBase(config, sites.map((s) => s.domain), local);
  const lines = [
    "",
    `Stave is ready after ${(options.startedMs / 1000).toFixed(1)} s`,
    `  Admin:        ${base}/admin`,
  ];
  if (demo) {
    lines.push(
      demo.password
        ? `  Sign in at ${base}/admin as ${demo.email} with password ${demo.password}`
        : `  Demo admin:   ${demo.email}, password in ${demo.passwordFile}`,
    );
    if (demo.password) {
      lines.push(
        `  This password is shown once; it is also written to ${demo.passwordFile} for local use.`,
      );
    }
  }
  if (options.site) {
    lines.push(
      `  Site:         ${options.site} (the demo site as visitors see it)`,
    );
  }
  lines.push(`  API docs:     ${base}/docs`);
  if (options.scheduler) {
    lines.push(
      `  Scheduling:   ${options.scheduler} (open an entry in the admin and choose Schedule)`,
    );
  }
  if (exampleModel) {
    lines.push(
      `  Example read: ${
        local(exampleModel.domain)
      }/v1/${exampleModel.slug}?limit=2`,
    );
  }
  if (sites.length === 0) {
    lines.push(
      "  Host names:   none yet: create a site with `deno task svc bootstrap`",
    );
  } else {
    lines.push(
      `  Host names:   ${
        sites.map((s) => `${s.domain} (${s.slug})`).join(", ")
      }`,
      "                A request reaches a site only when its Host header names it, e.g.",
      `                curl -H 'Host: ${
        sites[0].domain
      }' http://localhost:${port}/health`,
    );
  }
  lines.push("");
  return lines;
}

function adminBase(
  config: Config,
  domains: string[],
  local: (domain: string) => string,
): string {
  if (config.publicUrl !== `http://localhost:${config.port}`) {
    return config.publicUrl;
  }
  const reachable = ["localhost", "127.0.0.1"].find((d) => domains.includes(d));
  return local(reachable ?? "localhost");
}

/** Reads the sites and one public model to name in the closing block. */
export async function closingFacts(
  db: Db,
  preferDomain: string | null,
): Promise<{
  sites: { domain: string; slug: string }[];
  exampleModel: { domain: string; slug: string } | null;
}> {
  const sites = await db.selectFrom("sites").select(["id", "domain", "slug"])
    .orderBy("created_at").orderBy("domain").execute();
  const first = sites.find((s) => s.domain === preferDomain) ?? sites[0];
  let exampleModel = null;
  if (first) {
    // The public collection with the most entries makes the most telling example.
    const models = await db.selectFrom("models").select(["id", "slug"])
      .where("site_id", "=", first.id).where("is_public", "=", true)
      .where("kind", "=", "collection").orderBy("slug").execute();
    const counts = new Map(
      (await db.selectFrom("entry_groups")
        .select(["model_id", (eb) => eb.fn.countAll<number>().as("n")])
        .where("site_id", "=", first.id).groupBy("model_id").execute())
        .map((r) => [String(r.model_id), Number(r.n)]),
    );
    const model = models.sort((a, b) =>
      (counts.get(String(b.id)) ?? 0) - (counts.get(String(a.id)) ?? 0)
    )[0];
    if (model) {
      exampleModel = { domain: first.domain, slug: model.slug };
    }
  }
  return {
    sites: sites.map(({ domain, slug }) => ({ domain, slug })),
    exampleModel,
  };
}
