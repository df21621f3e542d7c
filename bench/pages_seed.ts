// The bench's page: the demo home page (hero, features, cards, FAQ, contact form) with two shared
// sections, written and published through the lifecycle service as an editor would.
import { systemClock } from "../core/clock.ts";
import { administratorPermissions } from "../core/access/default_roles.ts";
import type { Db } from "../core/db/database.ts";
import { modelValidator } from "../core/entries/model_validator.ts";
import { publishEntry, saveEntry } from "../core/entries/mod.ts";
import type {
  LifecycleContext,
  LifecycleOutcome,
  LifecycleResult,
} from "../core/entries/types.ts";
import { createModel } from "../core/models/store.ts";
import { exampleFooter, exampleHomePage } from "../core/pages/example.ts";
import { SHARED_SECTION_MODEL } from "../core/pages/shared.ts";

/** The slug of the bench's page: `GET /v1/pages/home`. */
export const BENCH_PAGE = "home";

function saved(result: LifecycleOutcome): LifecycleResult {
  if (!result.ok) {
    throw new Error(`Cannot seed the bench page: ${JSON.stringify(result)}`);
  }
  return result;
}

async function model(
  db: Db,
  siteId: string,
  slug: string,
  isPublic: boolean,
): Promise<string> {
  const made = await createModel({ db, clock: systemClock, siteId }, {
    model: { name: slug, slug, description: "", enableI18n: true, isPublic },
    fields: [
      { key: "title", label: "Title", type: "text", required: true },
      { key: "slides", label: "Sections", type: "json", localized: true },
    ],
  });
  if (!made.ok) {
    throw new Error(`Cannot create ${slug}: ${JSON.stringify(made)}`);
  }
  return made.model_id!;
}

/** Seeds the `pages` and `shared_section` models, two shared sections and a page using both. */
export async function seedBenchPage(
  db: Db,
  siteId: string,
): Promise<{ pagesModelId: string }> {
  const userId = crypto.randomUUID();
  const roleId = crypto.randomUUID();
  const now = new Date();
  await db.insertInto("users").values({
    id: userId,
    email: "bench@example.com",
    display_name: "Bench",
    // No password: nobody signs in as the bench's editor.
    password_hash: "!",
    status: "active",
    created_at: now,
  }).execute();
  await db.insertInto("roles").values({
    id: roleId,
    site_id: siteId,
    name: "Bench administrator",
    permissions: JSON.stringify(administratorPermissions()),
    created_at: now,
  }).execute();
  await db.insertInto("site_members").values({
    site_id: siteId,
    user_id: userId,
    role_id: roleId,
    created_at: now,
  }).execute();
  const pagesModelId = await model(db, siteId, "pages", true);
  const sharedModelId = await model(db, siteId, SHARED_SECTION_MODEL, false);
  const ctx: LifecycleContext = {
    db,
    clock: systemClock,
    siteId,
    actor: { kind: "person", userId },
    validate: modelValidator(),
  };
  const publish = async (result: LifecycleResult) =>
    saved(
      await publishEntry(ctx, {
        group_id: result.group_id,
        expected_current_version_id: result.current_version_id,
        expected_workflow_revision: result.revision,
      }),
    );
  const shared: string[] = [];
  for (const slug of ["footer", "newsletter"]) {
    const entry = saved(
      await saveEntry(ctx, {
        model_id: sharedModelId,
        locale: "en",
        slug,
        fields: { title: slug, slides: exampleFooter("en") },
        expected_current_version_id: null,
      }),
    );
    await publish(entry);
    shared.push(entry.group_id);
  }
  const page = exampleHomePage("en", shared[0]);
  page.sections.splice(1, 0, {
    id: "signup",
    type: "shared",
    variant: "default",
    layout: "default",
    component: null,
    shared: { entry: shared[1] },
  });
  page.props.signup = {};
  await publish(saved(
    await saveEntry(ctx, {
      model_id: pagesModelId,
      locale: "en",
      slug: BENCH_PAGE,
      fields: { title: "Home", slides: page },
      expected_current_version_id: null,
    }),
  ));
  return { pagesModelId };
}
