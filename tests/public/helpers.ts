// Fixtures of the public read API tests: the demo site (posts, tags, notes, pages in en and de) behind app.request().
import { equal } from "node:assert/strict";
import { ensureDemoSite } from "../../core/sites/demo_site.ts";
import type { Actor } from "../../core/access/actor.ts";
import { modelValidator } from "../../core/entries/model_validator.ts";
import type { LifecycleContext } from "../../core/entries/types.ts";
import { loadConfig } from "../../core/config.ts";
import { ManualClock } from "../../core/clock.ts";
import { openKvStore } from "../../core/kv/open.ts";
import { changeFeedOf, type Db } from "../../core/db/database.ts";
import { openTestApp, TEST_CLOCK_START, type TestApp } from "../support/app.ts";
import { copyImageFiles, seededImage } from "../support/db_image.ts";

/** Status, body and every header a client or shared cache sees. */
export async function seen(res: Response) {
  return {
    status: res.status,
    body: await res.text(),
    headers: Object.fromEntries(res.headers),
  };
}

/**
 * Reads `path` until a read is answered ahead of routing, as `aheadCount` (a step's count of such
 * answers per database handle) tells, in at most 5 reads after the first (the first reads of a
 * world may commit, a cursor's key for one); answers what the first read saw and what the read
 * answered ahead saw.
 */
export async function untilAhead(
  w: PublicWorld,
  path: string,
  aheadCount: (db: Db) => number,
  headers: Record<string, string> = {},
) {
  const first = await seen(await w.get(path, headers));
  for (let i = 0; i < 5; i++) {
    const before = aheadCount(w.services.db);
    const again = await seen(await w.get(path, headers));
    if (aheadCount(w.services.db) === before + 1) return { first, again };
  }
  throw new Error(`${path} was never answered ahead of routing`);
}

/** A test app holding the demo site on `localhost`. */
export interface PublicWorld extends TestApp {
  siteId: string;
  adminId: string;
  /** GET on the demo host; `init.headers` are added. */
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** A lifecycle context acting as the demo admin. */
  ctx(): LifecycleContext;
  modelId(slug: string): Promise<string>;
  /** The group id of the item with `slug` in `locale`. */
  groupId(model: string, slug: string, locale?: string): Promise<string>;
}

/**
 * Opens an app with the demo site seeded; `env` adds settings. `media` seeds the demo's library
 * images too (files under the temporary data folder), as the service's own demo does. The demo is
 * seeded by `ensureDemoSite` once per version of the code (tests/support/db_image.ts); each call
 * starts from a copy.
 */
export async function openPublicWorld(
  env: Record<string, string> = {},
  options: { media?: boolean } = {},
): Promise<PublicWorld> {
  const dataDir = await Deno.makeTempDir();
  const appEnv = {
    DATA_DIR: dataDir,
    ...(options.media ? { DEMO_SITE: "true" } : {}),
    ...env,
  };
  const config = loadConfig(appEnv);
  // What the seed writes depends on these settings only.
  const written = {
    DEMO_SITE: String(config.demoSite),
    DEMO_DOMAIN: config.demoDomain,
    PUBLIC_URL: config.publicUrl,
  };
  const image = await seededImage(
    JSON.stringify({ publicWorld: 1, ...written }),
    (db, filesDir) => seedPublicDemo(db, { ...written, DATA_DIR: filesDir }),
  );
  await copyImageFiles(image.filesDir, dataDir);
  const t = await openTestApp({ env: appEnv, from: image });
  const { db } = t.services;
  // As the service does at start-up (core/boot.ts): listening for commits before the first read.
  changeFeedOf(db)?.listen();
  const site = await db.selectFrom("sites").select("id").where(
    "domain",
    "=",
    "localhost",
  ).executeTakeFirstOrThrow();
  const admin = await db.selectFrom("site_members").select("user_id").where(
    "site_id",
    "=",
    site.id,
  )
    .executeTakeFirstOrThrow();
  const world: PublicWorld = {
    ...t,
    siteId: site.id,
    adminId: admin.user_id,
    get: async (path, headers = {}) =>
      await t.app.request(path, { headers: { host: "localhost", ...headers } }),
    ctx: () => ({
      db,
      clock: t.clock,
      siteId: site.id,
      actor: { kind: "person", userId: admin.user_id } as Actor,
      validate: modelValidator(),
    }),
    modelId: async (slug) =>
      (await db.selectFrom("models").select("id").where("site_id", "=", site.id)
        .where("slug", "=", slug)
        .executeTakeFirstOrThrow()).id,
    groupId: async (model, slug, locale = "en") => {
      const modelId = await world.modelId(model);
      return (await db.selectFrom("entries").select("group_id").where(
        "site_id",
        "=",
        site.id,
      )
        .where("model_id", "=", modelId).where("locale", "=", locale).where(
          "slug",
          "=",
          slug,
        )
        .executeTakeFirstOrThrow()).group_id;
    },
    close: async () => {
      await t.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
  return world;
}

/** Seeds the demo as the service does at start, with the test apps' clock. */
async function seedPublicDemo(
  db: Db,
  env: Record<string, string>,
): Promise<Record<string, never>> {
  const kv = await openKvStore(null);
  try {
    await ensureDemoSite({
      config: loadConfig(env),
      db,
      kv,
      clock: new ManualClock(TEST_CLOCK_START),
      log: () => {},
      assets: { boot: "", chunks: {} },
    });
  } finally {
    kv.close();
  }
  return {};
}

/** The error code of a JSON error answer. */
export async function codeOf(res: Response): Promise<string | undefined> {
  const body = await res.json();
  return body?.error?.code;
}

/**
 * The item ids of every page of `path` (a list URL with its query, without `cursor`), following
 * the cursors: each page answers 200 and says `has_more` exactly when it gives a cursor.
 */
export async function walkIds(
  w: PublicWorld,
  path: string,
  maxPages: number,
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < maxPages; page++) {
    const res = await w.get(`${path}${cursor ? `&cursor=${cursor}` : ""}`);
    equal(res.status, 200, path);
    const body = await res.json();
    ids.push(...body.data.map((i: { id: string }) => i.id));
    cursor = body.page.next_cursor;
    equal(body.page.has_more, cursor !== null, path);
    if (!cursor) return ids;
  }
  throw new Error(`Cannot walk "${path}": more pages than ${maxPages}`);
}
