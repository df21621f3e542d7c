// Seeds the demo site's models and content: tags, posts in en and de, private notes and pages.
import type { MediaStorage } from "../media/storage.ts";
import { API_UPLOAD_LIMIT, uploadMedia } from "../media/upload.ts";
import type { Actor } from "../access/actor.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { modelValidator } from "../entries/model_validator.ts";
import { publishEntry, saveEntry } from "../entries/mod.ts";
import type {
  LifecycleContext,
  LifecycleOutcome,
  LifecycleResult,
} from "../entries/types.ts";
import { createModel } from "../models/store.ts";
import { exampleFooter, exampleHomePage } from "../pages/example.ts";
import { SHARED_SECTION_MODEL } from "../pages/shared.ts";
import {
  DEMO_AUTHORS,
  DEMO_NOTES,
  DEMO_POST_TITLES,
  DEMO_TOPICS,
} from "./demo_posts.ts";
import { putSettings } from "./settings.ts";

/** How many of each thing the demo holds; tests read these to check the seed. */
export const DEMO_COUNTS = {
  tags: 8,
  authors: 4,
  posts: 44,
  /** Posts whose German translation exists (and is published unless the post is a draft). */
  postsInGerman: 34,
  /** Posts left as drafts in every language. */
  draftPosts: 4,
  notes: 3,
  /** Pages: a home page in en and de, and an about page in en. */
  pages: 2,
  /** Shared sections: the footer, in en and de. */
  sharedSections: 1,
} as const;

const TAGS = [
  ["deno", "Deno", "Deno"],
  ["typescript", "TypeScript", "TypeScript"],
  ["postgres", "PostgreSQL", "PostgreSQL"],
  ["search", "Search", "Suche"],
  ["editing", "Editing", "Redaktion"],
  ["performance", "Performance", "Leistung"],
  ["security", "Security", "Sicherheit"],
  ["design", "Design", "Gestaltung"],
] as const;

const CATEGORIES = ["news", "guide", "release", "opinion"] as const;

/** Options of {@link seedDemoContent}. */
export interface SeedDemoOptions {
  db: Db;
  clock: Clock;
  siteId: string;
  /** The person the seed acts as (the demo admin). */
  adminId: string;
  /** Where the demo's cover images go; absent seeds no images (most tests). */
  media?: { storage: MediaStorage; publicUrl: string };
}

/** The demo's cover images (drawn by scripts/gen_demo_images.ts) with alt texts. */
const DEMO_IMAGES: [string, string, string][] = [
  [
    "sunrise",
    "An orange sun rising over dark hills",
    "Orange Sonne über dunklen Hügeln",
  ],
  [
    "harbour",
    "A white sail on a dark blue sea",
    "Ein weißes Segel auf dunkelblauem Meer",
  ],
  [
    "forest",
    "Four green fir trees under a pale sky",
    "Vier grüne Tannen unter hellem Himmel",
  ],
  [
    "grid",
    "A glowing blue grid on a dark background",
    "Ein leuchtend blaues Raster auf dunklem Grund",
  ],
];

/** Posts with a cover: every third one, so lists show both kinds. */
const COVER_EVERY = 3;

async function seedDemoImages(
  options: SeedDemoOptions,
): Promise<{ id: string; url: string }[]> {
  if (!options.media) return [];
  const ctx = {
    db: options.db,
    clock: options.clock,
    siteId: options.siteId,
    storage: options.media.storage,
    publicUrl: options.media.publicUrl,
    keyDigest: null,
  };
  const images: { id: string; url: string }[] = [];
  for (const [name, en, de] of DEMO_IMAGES) {
    const bytes = await Deno.readFile(
      new URL(`./demo_media/${name}.png`, import.meta.url),
    );
    const result = await uploadMedia(ctx, { bytes, fileName: `${name}.png` }, {
      altTexts: { en, de },
      onDuplicate: "use_existing",
      limitBytes: API_UPLOAD_LIMIT,
    });
    if (!result.ok) throw new Error(`Cannot seed demo image: ${result.code}`);
    images.push({ id: result.item.id, url: result.item.url ?? "" });
  }
  return images;
}

/** Creates the demo models and content once; throws if any step is refused, as that is a bug. */
export async function seedDemoContent(options: SeedDemoOptions): Promise<void> {
  const { db, clock, siteId } = options;
  const modelCtx = { db, clock, siteId };
  const actor: Actor = { kind: "person", userId: options.adminId };
  const ctx: LifecycleContext = {
    db,
    clock,
    siteId,
    actor,
    validate: modelValidator(),
  };

  const fallback = await putSettings(
    { db, clock, siteId, personId: options.adminId },
    "language-fallback",
    {
      document: { policy: "fallback", chains: { de: ["en"] } },
      expectedRevision: 0,
    },
  );
  if (!fallback.ok) {
    throw new Error(`Cannot seed language fallback: ${fallback.code}`);
  }
  // The built-in template's footer columns: what a blog shows under every page.
  const chrome = await putSettings(
    { db, clock, siteId, personId: options.adminId },
    "chrome",
    {
      document: {
        placements: { header: null, footer: null },
        footer_note: {},
        regions: {
          footer: [
            { kind: "recent_posts", limit: 4 },
            { kind: "categories", field: "category" },
            { kind: "tags", field: "tags" },
            { kind: "posts_by_month" },
          ],
        },
      },
      expectedRevision: 0,
    },
  );
  if (!chrome.ok) throw new Error(`Cannot seed Site Chrome: ${chrome.code}`);

  const tags = expectModel(
    await createModel(modelCtx, {
      model: {
        name: "Tags",
        slug: "tags",
        description: "Topics posts are filed under",
        enableI18n: true,
      },
      fields: [{
        key: "name",
        label: "Name",
        type: "text",
        required: true,
        localized: true,
      }],
    }),
  );
  const authors = expectModel(
    await createModel(modelCtx, {
      model: {
        name: "Authors",
        slug: "authors",
        description: "The people who write the posts",
        enableI18n: true,
      },
      fields: [
        { key: "name", label: "Name", type: "text", required: true },
        { key: "bio", label: "Short bio", type: "text", localized: true },
      ],
    }),
  );
  const posts = expectModel(
    await createModel(modelCtx, {
      model: {
        name: "Posts",
        slug: "posts",
        description: "Articles of the blog",
        enableI18n: true,
      },
      fields: [
        {
          key: "title",
          label: "Title",
          type: "text",
          required: true,
          localized: true,
          validation: { maxLength: 160 },
        },
        { key: "body", label: "Body", type: "rich_text", localized: true },
        {
          key: "cover",
          label: "Cover image",
          type: "media",
          config: { kinds: ["image"] },
        },
        {
          key: "tags",
          label: "Tags",
          type: "relation",
          config: { targets: [tags], cardinality: "many-to-many" },
          validation: { maxItems: 5 },
        },
        {
          key: "author",
          label: "Author",
          type: "relation",
          config: { targets: [authors], cardinality: "many-to-one" },
        },
        {
          key: "published_on",
          label: "Published date",
          type: "date",
          required: true,
        },
        {
          key: "category",
          label: "Category",
          type: "select",
          required: true,
          config: { options: [...CATEGORIES] },
        },
        {
          key: "reading_minutes",
          label: "Reading time (minutes)",
          type: "number",
          config: { integer: true },
          validation: { min: 1, max: 120 },
        },
      ],
    }),
  );
  const notes = expectModel(
    await createModel(modelCtx, {
      model: {
        name: "Notes",
        slug: "notes",
        description: "Internal notes, never public",
        isPublic: false,
      },
      fields: [
        { key: "title", label: "Title", type: "text", required: true },
        { key: "text", label: "Text", type: "text" },
      ],
    }),
  );
  const pages = expectModel(
    await createModel(modelCtx, {
      model: {
        name: "Pages",
        slug: "pages",
        description: "Pages of the site",
        enableI18n: true,
      },
      fields: [
        {
          key: "title",
          label: "Title",
          type: "text",
          required: true,
          localized: true,
        },
        { key: "slides", label: "Slides", type: "json", localized: true },
      ],
    }),
  );
  const sharedSections = expectModel(
    await createModel(modelCtx, {
      model: {
        name: "Shared sections",
        slug: SHARED_SECTION_MODEL,
        description: "Sections several pages show, edited once",
        enableI18n: true,
        isPublic: false,
      },
      fields: [
        {
          key: "title",
          label: "Title",
          type: "text",
          required: true,
          localized: true,
        },
        { key: "slides", label: "Sections", type: "json", localized: true },
      ],
    }),
  );

  const images = await seedDemoImages(options);
  const imageIds = images.map((i) => i.id);
  // The home page's hero shows the first library image, so its preview can present it.
  const hero = images[0] && { media_id: images[0].id, url: images[0].url };
  const tagIds: string[] = [];
  for (const [slug, en, de] of TAGS) {
    const created = expectSaved(
      await saveEntry(ctx, {
        model_id: tags,
        locale: "en",
        slug,
        fields: { name: en },
        expected_current_version_id: null,
      }),
    );
    const both = expectSaved(
      await saveEntry(ctx, {
        group_id: created.group_id,
        locale: "de",
        slug,
        fields: { name: de },
        expected_current_version_id: null,
      }),
    );
    await publishAll(ctx, both);
    tagIds.push(created.group_id);
  }

  const authorIds: string[] = [];
  for (const author of DEMO_AUTHORS) {
    const created = expectSaved(
      await saveEntry(ctx, {
        model_id: authors,
        locale: "en",
        slug: author.slug,
        fields: { name: author.name, bio: author.bio.en },
        expected_current_version_id: null,
      }),
    );
    const both = expectSaved(
      await saveEntry(ctx, {
        group_id: created.group_id,
        locale: "de",
        slug: author.slug,
        fields: { name: author.name, bio: author.bio.de },
        expected_current_version_id: null,
      }),
    );
    await publishAll(ctx, both);
    authorIds.push(created.group_id);
  }

  for (let i = 0; i < DEMO_COUNTS.posts; i++) {
    const titles = DEMO_POST_TITLES[i];
    const topic = DEMO_TOPICS[i % DEMO_TOPICS.length];
    const day = new Date(Date.UTC(2026, 0, 5) + i * 6 * 86_400_000)
      .toISOString().slice(0, 10);
    const shared = {
      tags: [tagIds[i % tagIds.length], tagIds[(i * 3 + 1) % tagIds.length]]
        .filter((v, n, a) => a.indexOf(v) === n),
      published_on: day,
      category: CATEGORIES[i % CATEGORIES.length],
      reading_minutes: 3 + (i * 7) % 15,
      author: authorIds[i % authorIds.length],
      ...(imageIds.length > 0 && i % COVER_EVERY === 0
        ? { cover: imageIds[(i / COVER_EVERY) % imageIds.length] }
        : {}),
    };
    let saved = expectSaved(
      await saveEntry(ctx, {
        model_id: posts,
        locale: "en",
        slug: slugify(titles.en),
        fields: {
          ...shared,
          title: titles.en,
          body: demoBody(topic.en, i),
        },
        expected_current_version_id: null,
      }),
    );
    if (titles.de !== null) {
      saved = expectSaved(
        await saveEntry(ctx, {
          group_id: saved.group_id,
          locale: "de",
          slug: slugify(titles.de),
          fields: {
            ...shared,
            title: titles.de,
            body: demoBody(topic.de, i),
          },
          expected_current_version_id: null,
        }),
      );
    }
    if (i >= DEMO_COUNTS.posts - DEMO_COUNTS.draftPosts) continue;
    await publishAll(ctx, saved);
  }

  for (let i = 0; i < DEMO_COUNTS.notes; i++) {
    expectSaved(
      await saveEntry(ctx, {
        model_id: notes,
        locale: "en",
        slug: `note-${i + 1}`,
        fields: DEMO_NOTES[i],
        expected_current_version_id: null,
      }),
    );
  }

  // The footer every page shares, then the pages that show it (spec 3 part 2.2).
  const footerEn = expectSaved(
    await saveEntry(ctx, {
      model_id: sharedSections,
      locale: "en",
      slug: "footer",
      fields: { title: "Footer", slides: exampleFooter("en") },
      expected_current_version_id: null,
    }),
  );
  await publishAll(
    ctx,
    expectSaved(
      await saveEntry(ctx, {
        group_id: footerEn.group_id,
        locale: "de",
        slug: "footer",
        fields: { title: "Fußzeile", slides: exampleFooter("de") },
        expected_current_version_id: null,
      }),
    ),
  );
  const footer = footerEn.group_id;
  const home = expectSaved(
    await saveEntry(ctx, {
      model_id: pages,
      locale: "en",
      slug: "home",
      fields: { title: "Home", slides: exampleHomePage("en", footer, hero) },
      expected_current_version_id: null,
    }),
  );
  await publishAll(
    ctx,
    expectSaved(
      await saveEntry(ctx, {
        group_id: home.group_id,
        locale: "de",
        slug: "start",
        fields: { title: "Start", slides: exampleHomePage("de", footer, hero) },
        expected_current_version_id: null,
      }),
    ),
  );
  const about = expectSaved(
    await saveEntry(ctx, {
      model_id: pages,
      locale: "en",
      slug: "about",
      fields: {
        title: "About",
        slides: {
          format: 2,
          sections: [
            {
              id: "story",
              type: "rich_text",
              variant: "default",
              layout: "default",
              component: null,
            },
            {
              id: "footer",
              type: "shared",
              variant: "default",
              layout: "default",
              component: null,
              shared: { entry: footer },
            },
          ],
          props: {
            story: {
              heading: "About Stave",
              paragraphs: [
                "Stave is a headless CMS: model content, write it, publish it.",
                "Published content is served from PostgreSQL.",
              ],
            },
            footer: {},
          },
        },
      },
      expected_current_version_id: null,
    }),
  );
  await publishAll(ctx, about);
}

async function publishAll(
  ctx: LifecycleContext,
  saved: LifecycleResult,
): Promise<void> {
  expectSaved(
    await publishEntry(ctx, {
      group_id: saved.group_id,
      expected_current_version_id: saved.current_version_id,
      expected_workflow_revision: saved.revision,
    }),
  );
}

function expectModel(
  result: { ok: boolean; code?: string; model_id?: string },
): string {
  if (!result.ok || !result.model_id) {
    throw new Error(`Cannot seed a demo model: ${JSON.stringify(result)}`);
  }
  return result.model_id;
}

function expectSaved(result: LifecycleOutcome): LifecycleResult {
  if (!result.ok) {
    throw new Error(`Cannot seed demo content: ${JSON.stringify(result)}`);
  }
  return result;
}

/** A post body: two of its topic's paragraphs around the topic's heading, varied by post. */
function demoBody(
  topic: { heading: string; paragraphs: string[] },
  i: number,
): string {
  const [first, second] = [i % 3, (i + 1) % 3].map((n) => topic.paragraphs[n]);
  return `<p>${first}</p><h2>${topic.heading}</h2><p>${second}</p>`;
}

function slugify(text: string): string {
  return text.toLowerCase().replaceAll("ä", "ae").replaceAll("ö", "oe")
    .replaceAll("ü", "ue").replaceAll("ß", "ss").replaceAll("á", "a")
    .replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}
