// Creates the demo site of `deno task start` once, so a newcomer has something to look at.
import type { Services } from "../services.ts";
import { findSiteByDomain } from "./site_store.ts";
import { createInstallation } from "./installation.ts";
import { seedDemoContent } from "./demo_content.ts";
import { mediaStorageOf } from "../media/storage_of.ts";

/** What start-up prints about the demo site. */
export interface DemoSite {
  slug: string;
  /** Present only on the start that created the admin; the password is never stored in clear. */
  createdAdmin?: { email: string; password: string };
}

/** The demo site's administrator. */
export const DEMO_ADMIN_EMAIL = "admin@example.com";

/** Ensures the demo site on the configured demo domain exists, creating it on first start. */
export async function ensureDemoSite(services: Services): Promise<DemoSite> {
  const { config } = services;
  const existing = await findSiteByDomain(services.db, config.demoDomain);
  if (existing) return { slug: existing.slug };
  const created = await createInstallation(services, {
    domain: config.demoDomain,
    slug: "demo",
    name: "Stave demo",
    locales: ["en", "de"],
    adminEmail: DEMO_ADMIN_EMAIL,
  });
  if (!created.ok) {
    throw new Error(`Cannot create the demo site: ${created.message}`);
  }
  await seedDemoContent({
    db: services.db,
    clock: services.clock,
    siteId: created.site.id,
    adminId: created.admin.id,
    // The service itself (not tests building a demo site) ships the demo's cover images.
    media: config.demoSite
      ? { storage: mediaStorageOf(services), publicUrl: config.publicUrl }
      : undefined,
  });
  const note =
    `email: ${created.admin.email}\npassword: ${created.admin.password}\n`;
  await Deno.writeTextFile(`${config.dataDir}/demo-admin.txt`, note, {
    mode: 0o600,
  });
  return { slug: created.site.slug, createdAdmin: created.admin };
}
