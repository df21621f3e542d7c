// Answers of the demo site (`deno task start`), shortened, shown as examples in the public read API document.
import type { PublicRouteName } from "./query_parameters.ts";

const item = {
  id: "1758dd50-db24-4306-89d8-1d2604229fdf",
  slug: "notes-on-previews-40",
  locale: "en",
  model: "posts",
  version: 1,
  published_at: "2026-11-23T22:15:21.842Z",
  fields: {
    title: "Notes on previews, part 40",
    body: "<p>What we learned about previews while building Stave.</p>",
    published_on: "2026-08-27",
    category: "opinion",
    reading_minutes: 6,
  },
  relations: { tags: ["627c0b8f-0d05-452b-99c0-d8f024c6ceb3"] },
  media: { cover: null },
};
const page = { limit: 1, has_more: true, next_cursor: "eyJ2IjoxLCJxIjoi…" };
const hit = {
  kind: "post",
  model: "posts",
  slug: "notes-on-previews-40",
  locale: "en",
  title: "Notes on previews, part 40",
  summary: "What we learned about previews while building Stave.",
};

/** One example answer per route, where the demo site has one to show. */
export const PUBLIC_EXAMPLES: Partial<Record<PublicRouteName, unknown>> = {
  list: { data: [item], page },
  single: {
    data: {
      ...item,
      alternates: [{ locale: "en", slug: "notes-on-previews-40" }],
    },
  },
  related: {
    data: [{
      id: "627c0b8f-0d05-452b-99c0-d8f024c6ceb3",
      slug: "design",
      locale: "en",
      model: "tags",
      version: 1,
      published_at: "2026-11-23T22:15:16.485Z",
      fields: { name: "Design" },
      relations: {},
      media: {},
    }],
    page: { limit: 25, has_more: false, next_cursor: null },
  },
  search: { data: [hit], page },
  suggest: { query: "pre", data: [hit], limit: 5, locale: "en" },
  sync: {
    data: [item],
    deleted: [],
    changes: [],
    phase: "snapshot",
    next_cursor: "eyJ2IjoxLCJiaW5kaW5nIjp7…",
  },
  chrome: {
    data: {
      locale: "en",
      menus: {},
      placements: { header: null, footer: null },
      footer_note: null,
      regions: [],
    },
  },
  redirects: { data: [] },
};
