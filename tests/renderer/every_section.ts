// A page document holding every section type of the page contract (and a few variants), with a
// site view around it, so the built-in template can be drawn and checked without a service.
import { type PageDocument, parsePageDocument } from "../../core/pages/mod.ts";
import type {
  PageView,
  SiteView,
} from "../../services/renderer/template/mod.ts";
import { addressOf } from "../../services/renderer/paths.ts";

/** The picture every media reference of the fixture shows (served by the browser test). */
export const FIXTURE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600"><rect width="800" height="600" fill="#3b4fd8"/><circle cx="400" cy="300" r="160" fill="#fde68a"/></svg>';
const IMAGE = "https://site.example/sun.svg";
const media = (alt: string | null) => ({
  media_id: "6bd0a458-6940-45ff-9f63-969e8c33c787",
  url: IMAGE,
  alt,
});
const para = (text: string) => text;

const sections: [
  string,
  string,
  Record<string, unknown>,
  Record<string, unknown>?,
][] = [
  ["hero", "hero", {
    heading: "Every section, drawn",
    subheading: "A page that holds each section type of the page contract.",
    media: { ...media("A sun over the sea"), focal: { x: 0.5, y: 0.4 } },
    link: { label: "Get started", href: "/posts" },
    eyebrow: "Built-in template",
    secondary_link: { label: "Read more", href: "#steps" },
  }],
  ["text", "rich_text", {
    heading: "Rich text",
    paragraphs: [
      para("Plain text first."),
      [{ text: "Then ", marks: [] }, { text: "bold", marks: ["bold"] }, {
        text: " and ",
        marks: [],
      }, {
        text: "code",
        marks: ["code"],
      }, { text: ".", marks: [] }],
    ],
  }],
  ["tm", "text_media", {
    heading: "Text beside media",
    paragraphs: ["The picture sits at the start."],
    media: {
      ...media("A circle"),
      crop: { x: 0.1, y: 0.1, width: 0.8, height: 0.8 },
    },
  }, { layout: "media_side=start" }],
  ["features", "feature_grid", {
    heading: "Features",
    features: [{ title: "One", body: "First." }, {
      title: "Two",
      body: "Second.",
    }, { title: "Three", body: null }],
  }, { appearance: { background: "muted" } }],
  ["cta", "cta", {
    heading: "Ready?",
    body: "Start today.",
    link: { label: "Start", href: "/start" },
    secondary_link: { label: "Later", href: "/later" },
  }, { appearance: { background: "accent" } }],
  ["cards", "cards", {
    heading: "Cards",
    items: [
      {
        title: "With a link",
        body: "Open it.",
        media: media(null),
        link: { label: "Open", href: "/a" },
      },
      { title: "Without", body: null, media: null, link: null },
    ],
  }],
  ["stats", "stats", {
    heading: "Numbers",
    items: [{ value: "99%", label: "Uptime", note: "Last year" }, {
      value: "12",
      label: "Languages",
      note: null,
    }],
  }],
  ["faq", "faq", {
    heading: "Questions",
    items: [{ question: "Why?", answer: "Because." }],
  }],
  ["quotes", "testimonials", {
    heading: "People say",
    items: [{
      quote: "It just works.",
      name: "Ada",
      role: "Editor",
      media: media(null),
    }],
  }, { variant: "single" }],
  ["gallery", "media", {
    heading: "Media",
    items: [
      { kind: "image", media: media("A picture"), caption: "A caption" },
      {
        kind: "video",
        provider: "youtube",
        video_id: "dQw4w9WgXcQ",
        title: "A video",
        poster: null,
        caption: null,
      },
    ],
  }],
  ["logos", "logos", {
    heading: "Trusted by",
    items: [{
      media: media(null),
      name: "Acme",
      link: { label: "Acme", href: "https://acme.example" },
    }],
  }],
  ["steps", "steps", {
    heading: "Steps",
    items: [{ title: "Model", body: "Define types." }, {
      title: "Write",
      body: null,
    }],
  }],
  ["pricing", "pricing", {
    heading: "Pricing",
    plans: [
      {
        name: "Free",
        price: "€0",
        period: "month",
        description: "To try.",
        features: ["One site"],
        link: { label: "Start", href: "/free" },
      },
      {
        name: "Team",
        price: "€20",
        period: "month",
        description: null,
        features: ["Ten sites", "Roles"],
        link: { label: "Buy", href: "/team" },
        highlighted: true,
      },
    ],
  }],
  ["menu", "menu", {
    heading: "Menu",
    groups: [{
      title: "Drinks",
      items: [{ name: "Tea", description: "Green", price: "€3" }, {
        name: "Water",
        description: null,
        price: null,
      }],
    }],
  }],
  ["contact", "contact", {
    heading: "Visit us",
    body: "We are open most days.",
    address: "1 Harbour Street\nPort Town",
    hours: [{ label: "Mon–Fri", value: "9–17" }],
    phone: "+44 (0) 20 1234 5678",
    email: "hello@example.com",
    map_link: { label: "Open the map", href: "https://maps.example/harbour" },
    link: null,
  }],
  ["latest", "latest_entries", {
    heading: "Latest posts",
    model: "posts",
    title_field: "title",
    cover_field: null,
    summary_field: null,
    date_field: "published_on",
    limit: 3,
    empty_text: null,
  }],
  ["broken", "latest_entries", {
    heading: "Unreadable list",
    model: "posts",
    title_field: "title",
    cover_field: null,
    summary_field: null,
    date_field: null,
    limit: 3,
    empty_text: null,
  }],
  ["signup", "form", {
    heading: "Sign up",
    body: null,
    fields: [
      {
        name: "email",
        kind: "email",
        label: "Email",
        required: true,
        help: "We never share it.",
        options: [],
      },
      {
        name: "plan",
        kind: "select",
        label: "Plan",
        required: false,
        help: null,
        options: ["Free", "Team"],
      },
      {
        name: "news",
        kind: "checkbox",
        label: "Send me news",
        required: false,
        help: null,
        options: [],
      },
      {
        name: "cv",
        kind: "file",
        label: "Attachment",
        required: false,
        help: null,
        options: [],
        accept: [".pdf"],
        max_files: 1,
        max_bytes: 1000000,
      },
    ],
    consent: null,
    submit_label: "Sign up",
    success_text: "Welcome aboard.",
  }],
  ["find", "search", { heading: "Find anything", placeholder: "Type a word" }],
];

/** The document, parsed as delivery parses it (so it is canonical). */
export function everySectionDocument(imageUrl = IMAGE): PageDocument {
  const doc = {
    format: 2,
    sections: sections.map(([id, type, , extra]) => ({
      id,
      type,
      variant: (extra?.variant as string) ?? "default",
      layout: (extra?.layout as string) ?? "default",
      component: null,
      ...(extra?.appearance ? { appearance: extra.appearance } : {}),
    })),
    props: Object.fromEntries(sections.map(([id, , props]) => [id, props])),
  };
  const parsed = parsePageDocument(
    JSON.parse(JSON.stringify(doc).replaceAll(IMAGE, imageUrl)),
    { purpose: "deliver" },
  );
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value;
}

/** A page view of that document: one list read, one list that could not be read. */
export function everySectionView(
  options: { preview?: boolean; imageUrl?: string } = {},
): PageView {
  const site: SiteView = {
    siteName: "Fixture",
    siteUrl: "https://site.example",
    locale: "en",
    defaultLocale: "en",
    chrome: null,
    fallbackNav: [{ id: "home", label: "Home", href: "/" }, {
      id: "posts",
      label: "Blog",
      href: "/posts",
    }],
    path: "/every-section",
    transformOrigins: [],
    preview: options.preview ?? false,
    hrefOf: (item) => addressOf(item, "en"),
  };
  const document = everySectionDocument(options.imageUrl);
  return {
    site,
    seo: {
      title: "Every section · Fixture",
      description: null,
      canonical: null,
      noindex: true,
      image: null,
      alternates: [],
      type: "website",
    },
    item: {
      id: "aff3380c-1eaf-43b0-86b5-26ab5cb1560c",
      slug: "every-section",
      model: "pages",
      locale: "en",
      fields: { title: "Every section" },
    },
    document,
    lists: {
      latest: {
        ok: true,
        items: [{
          id: "1",
          slug: "first",
          model: "posts",
          locale: "en",
          fields: { title: "First post", published_on: "2026-08-27" },
        }],
      },
      broken: { ok: false },
    },
    form: null,
    formKey: "k".repeat(32),
  };
}
