// Answers of the demo site (`deno task start`), shortened, shown as examples in the public read API document.
import { PAGE_CONTRACT_SERVED } from "./items.ts";
import type { PublicRouteName } from "./query_parameters.ts";
import type { ChromeAnswer } from "../pages/chrome_shapes.ts";

const item = {
  id: "1758dd50-db24-4306-89d8-1d2604229fdf",
  slug: "alt-text-as-part-of-the-review",
  locale: "en",
  model: "posts",
  version: 1,
  published_at: "2026-11-23T22:15:21.842Z",
  fields: {
    title: "Alt text as part of the review",
    body:
      "<p>A preview shows the draft exactly as the live site will, on the real pages, to people holding a short-lived link.</p><h2>See it before readers do</h2><p>Preview links expire on their own and can be withdrawn at once; they never open anything but the drafts they were made for.</p>",
    published_on: "2026-08-27",
    category: "opinion",
    reading_minutes: 6,
  },
  relations: {
    author: ["5b0d1e43-8f1c-4a57-9a0e-3c2b7d64e911"],
    tags: ["627c0b8f-0d05-452b-99c0-d8f024c6ceb3"],
  },
  media: { cover: null },
};
const page = { limit: 1, has_more: true, next_cursor: "eyJ2IjoxLCJxIjoi…" };
const contracts = { page: { served: PAGE_CONTRACT_SERVED } };
const hit = {
  kind: "post",
  model: "posts",
  slug: "alt-text-as-part-of-the-review",
  locale: "en",
  title: "Alt text as part of the review",
  summary:
    "A preview shows the draft exactly as the live site will, on the real pages, to people holding a short-lived link.",
};

/** One example answer per route, where the demo site has one to show. */
export const PUBLIC_EXAMPLES: Partial<Record<PublicRouteName, unknown>> = {
  list: { data: [item], page, contracts },
  single: {
    data: {
      ...item,
      alternates: [{ locale: "en", slug: "alt-text-as-part-of-the-review" }],
    },
    contracts,
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
    contracts,
  },
  search: { data: [hit], page },
  suggest: { query: "alt", data: [hit], limit: 5, locale: "en" },
  sync: {
    data: [item],
    deleted: [],
    changes: [],
    phase: "snapshot",
    next_cursor: "eyJ2IjoxLCJiaW5kaW5nIjp7…",
    checkpoint: null,
    reset_reason: null,
  },
  chrome: {
    data: {
      locale: "en",
      menus: {
        main: {
          lang: "en",
          items: [
            { id: "m-home", label: "Home", href: "/", children: [] },
            {
              id: "m-blog",
              label: "Blog",
              href: "/posts",
              children: [
                { id: "m-guides", label: "Guides", href: "/posts?tag=guides" },
              ],
            },
          ],
        },
      },
      placements: { header: "main", footer: null },
      footer_note: { lang: "en", text: "© 2026 Example Press" },
      regions: [{
        key: "sidebar",
        label: "Sidebar",
        items: [
          { kind: "search", title: "Search", href: "/search" },
          {
            kind: "recent_posts",
            title: "Recent posts",
            items: [{
              id: item.id,
              label: item.fields.title,
              href: `/posts/${item.slug}`,
              published_at: item.published_at,
            }],
          },
        ],
      }],
    } satisfies ChromeAnswer,
  },
  redirects: { data: [] },
};
