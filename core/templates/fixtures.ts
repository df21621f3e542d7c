// This module is browser compatible.
// The page-contract fixtures every candidate is drawn against (and previews may choose): an
// ordinary page, a long one, a sparse one, one without images, and the error pages.
import { type PageDocument, parsePageDocument } from "../pages/mod.ts";

/** The fixtures by name, as the admin offers them. */
export const FIXTURE_NAMES = [
  "ordinary",
  "long",
  "sparse",
  "no_images",
  "error",
] as const;
/** A fixture's name. */
export type FixtureName = typeof FIXTURE_NAMES[number];

/** The one picture fixtures show; the checking browser answers it, and nothing else, itself. */
export const FIXTURE_PICTURE_URL = "https://fixtures.invalid/picture.svg";
/** Its bytes. */
export const FIXTURE_PICTURE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="500"><rect width="800" height="500" fill="#3b4fd8"/><circle cx="400" cy="250" r="140" fill="#fde68a"/></svg>';
const PICTURE = FIXTURE_PICTURE_URL;
const media = (alt: string) => ({
  media_id: "6bd0a458-6940-45ff-9f63-969e8c33c787",
  url: PICTURE,
  alt,
});

type Raw = [string, string, Record<string, unknown>];

const ordinary: Raw[] = [
  ["intro", "hero", {
    heading: "Fresh bread every morning",
    subheading: "A small bakery by the harbour.",
    media: media("Loaves on a wooden board"),
    link: { label: "See the menu", href: "/menu" },
  }],
  ["story", "text_media", {
    heading: "Our story",
    paragraphs: [
      "We started with one oven in 2009.",
      "We still knead by hand.",
    ],
    media: media("The first oven"),
  }],
  ["why", "feature_grid", {
    heading: "Why people come back",
    features: [
      { title: "Slow dough", body: "Forty-eight hours of rest." },
      { title: "Local flour", body: "Milled ten kilometres away." },
      { title: "Open early", body: "From six every day." },
    ],
  }],
  ["visit", "cta", {
    heading: "Visit us",
    body: "Harbour Street 4.",
    link: { label: "Directions", href: "/contact" },
  }],
];

const words = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `Paragraph ${
        i + 1
      } keeps going with long words like extraordinarily to test wrapping at narrow widths.`,
  );

const long: Raw[] = [
  ...ordinary,
  ["text", "rich_text", { heading: "A long read", paragraphs: words(12) }],
  ["faq", "faq", {
    heading: "Questions",
    items: Array.from({ length: 20 }, (_, i) => ({
      question: `Question number ${i + 1}?`,
      answer: `The answer to question ${i + 1}.`,
    })),
  }],
  ["cards", "cards", {
    heading: "Twelve cards",
    items: Array.from({ length: 12 }, (_, i) => ({
      title: `Card ${i + 1}`,
      body: "A short body.",
      media: media(`Picture ${i + 1}`),
      link: { label: `Open card ${i + 1}`, href: `/cards/${i + 1}` },
    })),
  }],
  ["numbers", "stats", {
    heading: "In numbers",
    items: Array.from({ length: 8 }, (_, i) => ({
      value: String((i + 1) * 1000),
      label: `Measure ${i + 1}`,
    })),
  }],
];

const sparse: Raw[] = [["only", "hero", { heading: "Coming soon" }]];

const noImages: Raw[] = ordinary.map(([id, type, props]) => {
  const { media: _media, ...rest } = props;
  return [id, type === "text_media" ? "rich_text" : type, rest];
});

function documentOf(raw: Raw[]): PageDocument {
  const parsed = parsePageDocument({
    format: 2,
    sections: raw.map(([id, type]) => ({
      id,
      type,
      variant: "default",
      layout: "default",
      component: null,
    })),
    props: Object.fromEntries(raw.map(([id, , props]) => [id, props])),
  });
  if (!parsed.ok) {
    throw new Error(
      `Fixture does not read: ${parsed.error.code} ${parsed.error.message}`,
    );
  }
  return parsed.value;
}

/** The site part of every fixture view (JSON; the sandbox adds `hrefOf`). */
export function fixtureSite(path: string): Record<string, unknown> {
  return {
    siteName: "Harbour Bakery",
    siteUrl: "https://bakery.example",
    locale: "en",
    defaultLocale: "en",
    chrome: {
      locale: "en",
      menus: {},
      placements: { header: null, footer: null },
      footer_note: { lang: "en", text: "Harbour Street 4" },
      regions: [],
    },
    fallbackNav: [
      { id: "home", label: "Home", href: "/" },
      { id: "posts", label: "Blog", href: "/posts" },
    ],
    path,
    transformOrigins: [],
    preview: true,
  };
}

function seo(title: string): Record<string, unknown> {
  return {
    title,
    description: null,
    canonical: null,
    noindex: true,
    image: null,
    alternates: [],
    type: "website",
  };
}

/** One call of a template: which view it draws and the view as JSON. */
export interface TemplateCall {
  kind: "page" | "post" | "posts" | "search" | "error";
  name: string;
  view: Record<string, unknown>;
}

/** A page view of `document` as JSON. */
export function pageCall(
  name: string,
  title: string,
  document: PageDocument,
  lists: Record<string, unknown> = {},
): TemplateCall {
  return {
    kind: "page",
    name,
    view: {
      site: fixtureSite("/"),
      seo: seo(title),
      item: {
        id: "0b7c3c4e-2f0a-4c55-9d1b-6a3f1b2c9d10",
        slug: "home",
        model: "pages",
        locale: "en",
        fields: { title },
      },
      document,
      lists,
      form: null,
      formKey: "fixture-form-key-000000",
    },
  };
}

/** The calls one fixture makes: its page (or the error pages), drawn in order. */
export function fixtureCalls(name: FixtureName): TemplateCall[] {
  switch (name) {
    case "ordinary":
      return [pageCall(name, "Home", documentOf(ordinary))];
    case "long":
      return [pageCall(name, "A long page", documentOf(long))];
    case "sparse":
      return [pageCall(name, "Coming soon", documentOf(sparse))];
    case "no_images":
      return [pageCall(name, "Text only", documentOf(noImages))];
    case "error":
      return [404, 500].map((status) => ({
        kind: "error" as const,
        name: `error_${status}`,
        view: { site: fixtureSite("/missing"), seo: seo("Error"), status },
      }));
  }
}

/** Every view kind a template draws, once each beyond the fixtures (posts, a post, search). */
export function otherCalls(): TemplateCall[] {
  const post = {
    id: "5f1d1e0a-8c55-4c7b-9a43-0f3c1f0e2a11",
    slug: "hello",
    model: "posts",
    locale: "en",
    published_at: "2026-01-05T09:00:00Z",
    fields: { title: "Hello", summary: "Our first post.", body: "<p>Hi.</p>" },
  };
  return [
    {
      kind: "posts",
      name: "posts",
      view: {
        site: fixtureSite("/posts"),
        seo: seo("Blog"),
        items: [post],
        nextHref: null,
        firstHref: null,
      },
    },
    {
      kind: "post",
      name: "post",
      view: {
        site: fixtureSite("/posts/hello"),
        seo: seo("Hello"),
        item: post,
      },
    },
    {
      kind: "search",
      name: "search",
      view: {
        site: fixtureSite("/search"),
        seo: seo("Search"),
        query: "bread",
        hits: [{
          title: "Hello",
          summary: "Our first post.",
          href: "/posts/hello",
          kind: "item",
        }],
        nextHref: null,
        notice: null,
      },
    },
  ];
}
