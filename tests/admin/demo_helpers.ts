// Test helpers for the content admin: the demo site (posts, tags, notes) on a test app, and people to sign in as.
import { seedDefaultRoles } from "../../core/access/roles.ts";
import type { Permissions } from "../../core/access/permissions.ts";
import { FileStorage } from "../../core/media/file_storage.ts";
import { seedDemoContent } from "../../core/sites/demo_content.ts";
import { ManualClock } from "../../core/clock.ts";
import type { Db } from "../../core/db/database.ts";
import { openTestApp, TEST_CLOCK_START, type TestApp } from "../support/app.ts";
import { copyImageFiles, seededImage } from "../support/db_image.ts";
import { insertSite } from "../support/sites.ts";
import {
  HOST,
  insertPerson,
  PASSWORD,
  setMemberPermissions,
} from "./helpers.ts";

/** A test app holding the demo content on `domain`, and its administrator. */
export interface DemoAdmin {
  t: TestApp;
  siteId: string;
  adminId: string;
  email: string;
}

/** Options of {@link setupDemo}. */
export interface SetupDemoOptions {
  domain?: string;
  islands?: boolean;
  /** Seeds the demo's cover images too, into files in a temporary folder. */
  media?: boolean;
}

/**
 * Opens an app with the demo models and content on `domain` and an administrator, Ada. The demo
 * is seeded once per version of the code (tests/support/db_image.ts); each call starts from a
 * copy, so tests stay independent of each other.
 */
export async function setupDemo(
  options: SetupDemoOptions = {},
): Promise<DemoAdmin> {
  const domain = options.domain ?? HOST;
  const media = options.media ?? false;
  const image = await seededImage(
    JSON.stringify({ demo: 1, domain, media }),
    (db, filesDir) =>
      seedDemo(db, { domain, mediaDir: media ? filesDir : null }),
  );
  const opened = await openTestApp({ islands: options.islands, from: image });
  const mediaDir = media
    ? await Deno.makeTempDir({ prefix: "stave-demo-media-" })
    : null;
  const t: TestApp = mediaDir === null ? opened : {
    ...opened,
    close: async () => {
      await opened.close();
      await Deno.remove(mediaDir, { recursive: true }).catch(() => {});
    },
  };
  try {
    if (mediaDir !== null) {
      await copyImageFiles(image.filesDir, mediaDir);
      t.services.media = new FileStorage(`${mediaDir}/media`);
    }
    return { t, ...image.meta, email: ADA_EMAIL };
  } catch (error) {
    await t.close();
    throw error;
  }
}

const ADA_EMAIL = "ada@example.com";

/** Writes the demo site, Ada and the default roles into `db`, as a fresh test app would. */
async function seedDemo(
  db: Db,
  options: { domain: string; mediaDir: string | null },
): Promise<{ siteId: string; adminId: string }> {
  const clock = new ManualClock(TEST_CLOCK_START);
  const siteId = await insertSite(db, {
    domain: options.domain,
    slug: "demo",
    languages: ["en", "de"],
  });
  const adminId = await insertPerson(db, {
    email: ADA_EMAIL,
    password: PASSWORD,
    displayName: "Ada Lovelace",
    siteIds: [siteId],
  });
  const roles = await seedDefaultRoles(db, siteId, clock);
  await setMemberPermissions(db, adminId, roles.administrator.permissions);
  await seedDemoContent({
    db,
    clock,
    siteId,
    adminId,
    media: options.mediaDir === null ? undefined : {
      storage: new FileStorage(`${options.mediaDir}/media`),
      publicUrl: `http://${options.domain}`,
    },
  });
  return { siteId, adminId };
}

/** Adds a person with their own role holding `permissions`; answers their id. */
export async function addPersonWith(
  demo: DemoAdmin,
  options: { email: string; displayName: string; permissions: Permissions },
): Promise<string> {
  const id = await insertPerson(demo.t.services.db, {
    email: options.email,
    password: PASSWORD,
    displayName: options.displayName,
    siteIds: [demo.siteId],
  });
  await setMemberPermissions(demo.t.services.db, id, options.permissions);
  return id;
}
