// Creates the demo site of `deno task start` once, so a newcomer has something to look at.
import type { Services } from "../services.ts";
import { findSiteByDomain } from "./site_store.ts";
import { createInstallation } from "./installation.ts";
import { seedDemoContent } from "./demo_content.ts";
import { mediaStorageOf } from "../media/storage_of.ts";
import { type NewPassword, newPassword } from "../auth/password.ts";
import { PREPARED_PASSWORD_HASH } from "./demo_prepared.ts";

/** What start-up prints about the demo site. */
export interface DemoSite {
  slug: string;
  /**
   * Present only on the start that created the admin, or gave a copied demo's admin its own
   * password; the password is never stored in clear.
   */
  createdAdmin?: { email: string; password: string };
  /** How this start came by the demo. */
  origin: "created" | "copied" | "existing";
}

/** The demo site's administrator. */
export const DEMO_ADMIN_EMAIL = "admin@example.com";

/** Options of {@link ensureDemoSite}. */
export interface EnsureDemoOptions {
  /**
   * The password a copied demo's admin gets, already being hashed (openServices starts it when
   * it copies the prepared demo); made here when absent.
   */
  copiedAdminPassword?: Promise<NewPassword>;
}

/** Ensures the demo site on the configured demo domain exists, creating it on first start. */
export async function ensureDemoSite(
  services: Services,
  options: EnsureDemoOptions = {},
): Promise<DemoSite> {
  const { config } = services;
  const existing = await findSiteByDomain(services.db, config.demoDomain);
  if (existing) {
    const admin = await claimCopiedAdmin(
      services,
      options.copiedAdminPassword,
    );
    return admin
      ? { slug: existing.slug, createdAdmin: admin, origin: "copied" }
      : { slug: existing.slug, origin: "existing" };
  }
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
  await writeAdminNote(services, created.admin);
  return {
    slug: created.site.slug,
    createdAdmin: created.admin,
    origin: "created",
  };
}

/**
 * A demo copied from the prepared one (demo_prepared.ts) has an admin without a password: give it
 * a fresh one, as a created demo gets. Answers null when the admin already has a password.
 */
async function claimCopiedAdmin(
  services: Services,
  prepared: Promise<NewPassword> | undefined,
): Promise<{ email: string; password: string } | null> {
  const copied = await services.db.selectFrom("users").select("id")
    .where("email", "=", DEMO_ADMIN_EMAIL)
    .where("password_hash", "=", PREPARED_PASSWORD_HASH)
    .executeTakeFirst();
  if (!copied) return null;
  const { password, hash } = await (prepared ?? newPassword());
  const claimed = await services.db.updateTable("users")
    .set({ password_hash: hash })
    .where("id", "=", copied.id)
    .where("password_hash", "=", PREPARED_PASSWORD_HASH)
    .executeTakeFirst();
  if (claimed.numUpdatedRows === 0n) return null;
  const admin = { email: DEMO_ADMIN_EMAIL, password };
  await writeAdminNote(services, admin);
  return admin;
}

async function writeAdminNote(
  services: Services,
  admin: { email: string; password: string },
): Promise<void> {
  const note = `email: ${admin.email}\npassword: ${admin.password}\n`;
  await Deno.writeTextFile(`${services.config.dataDir}/demo-admin.txt`, note, {
    mode: 0o600,
  });
}
