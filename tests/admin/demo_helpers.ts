// Test helpers for the content admin: the demo site (posts, tags, notes) on a test app, and people to sign in as.
import { seedDefaultRoles } from "../../core/access/roles.ts";
import type { Permissions } from "../../core/access/permissions.ts";
import { FileStorage } from "../../core/media/file_storage.ts";
import { seedDemoContent } from "../../core/sites/demo_content.ts";
import { openTestApp, type TestApp } from "../support/app.ts";
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

/** Opens an app with the demo models and content on `domain` and an administrator, Ada. */
export async function setupDemo(
  options: SetupDemoOptions = {},
): Promise<DemoAdmin> {
  const opened = await openTestApp({ islands: options.islands });
  const mediaDir = options.media
    ? await Deno.makeTempDir({ prefix: "stave-demo-media-" })
    : null;
  const t: TestApp = mediaDir === null ? opened : {
    ...opened,
    close: async () => {
      await opened.close();
      await Deno.remove(mediaDir, { recursive: true }).catch(() => {});
    },
  };
  if (mediaDir !== null) {
    t.services.media = new FileStorage(`${mediaDir}/media`);
  }
  try {
    const siteId = await insertSite(t.services.db, {
      domain: options.domain ?? HOST,
      slug: "demo",
      languages: ["en", "de"],
    });
    const email = "ada@example.com";
    const adminId = await insertPerson(t.services.db, {
      email,
      password: PASSWORD,
      displayName: "Ada Lovelace",
      siteIds: [siteId],
    });
    const roles = await seedDefaultRoles(t.services.db, siteId, t.clock);
    await setMemberPermissions(
      t.services.db,
      adminId,
      roles.administrator.permissions,
    );
    await seedDemoContent({
      db: t.services.db,
      clock: t.clock,
      siteId,
      adminId,
      media: t.services.media && {
        storage: t.services.media,
        publicUrl: `http://${options.domain ?? HOST}`,
      },
    });
    return { t, siteId, adminId, email };
  } catch (error) {
    await t.close();
    throw error;
  }
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
