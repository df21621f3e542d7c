// What a chrome region may hold (spec 3 part 4.6): an ordered list of blocks, each a shared
// section's published sections, a menu, the search page, recent Blog posts, categories, tags or
// posts by month. Stored in the Site Chrome settings document under `regions`.
import { z } from "zod";

/** Most blocks one region holds (Stave's limit: a region is a column, not a page). */
export const MAX_REGION_BLOCKS = 8;
/** Most recent posts one block lists. */
export const MAX_RECENT_POSTS = 10;
/** Posts by month: the newest posts it groups, and the most months it shows. */
export const POSTS_BY_MONTH = { posts: 30, months: 12 } as const;

const LANGUAGE = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const FIELD_KEY = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);
/** A region key as templates declare it (letters, digits, `_`, `-`, up to 64). */
export const REGION_KEY = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/** A heading shown above a block, per language; absent languages use the default language's. */
const title = z.record(LANGUAGE, z.string().trim().max(60)).optional();

/** One block of a region. */
export const REGION_BLOCK = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("shared_section"),
    /** The shared section item (its translation group id). */
    entry: z.uuid(),
    title,
  }),
  z.strictObject({
    kind: z.literal("menu"),
    menu: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/),
    title,
  }),
  z.strictObject({ kind: z.literal("search"), title }),
  z.strictObject({
    kind: z.literal("recent_posts"),
    limit: z.number().int().min(1).max(MAX_RECENT_POSTS),
    title,
  }),
  /** The options of a select field of the Blog's posts that live posts use. */
  z.strictObject({ kind: z.literal("categories"), field: FIELD_KEY, title }),
  /** The tags a relation field of the Blog's posts links live posts to. */
  z.strictObject({ kind: z.literal("tags"), field: FIELD_KEY, title }),
  z.strictObject({ kind: z.literal("posts_by_month"), title }),
]);

/** One stored region block. */
export type RegionBlock = z.infer<typeof REGION_BLOCK>;

/** The `regions` member of the Site Chrome document: region key to its blocks, in order. */
export const REGIONS = z.record(
  REGION_KEY,
  z.array(REGION_BLOCK).max(MAX_REGION_BLOCKS),
).refine((r) => Object.keys(r).length <= 8, "at most 8 regions");
