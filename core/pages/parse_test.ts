// Long on purpose: one case per section type, shape, limit edge and code of the parser, in parse.ts's order.
// Unit tests of the page-document parser: every section type, shape, limit edge and code.
import assert from "node:assert/strict";
import {
  pageDocumentSchemaText,
  type PageParseResult,
  parsePageDocument,
  type ParsePageOptions,
  type RegisteredDefinition,
  sectionDefinitionDigest,
  sectionRegistry,
} from "./mod.ts";
import { exampleFooter, exampleHomePage } from "./example.ts";

type Json = Record<string, unknown>;

function one(
  type: string,
  props: Json,
  extra: Json = {},
  format = 2,
): Json {
  return {
    format,
    sections: [{
      id: "s1",
      type,
      variant: "default",
      layout: "default",
      component: null,
      ...extra,
    }],
    props: { s1: props },
  };
}

function refused(
  result: PageParseResult,
  code: string,
  path: string,
): void {
  assert.equal(result.ok, false, JSON.stringify(result));
  if (result.ok) return;
  assert.equal(result.error.code, code, JSON.stringify(result.error));
  assert.equal(result.error.detail.path, path, JSON.stringify(result.error));
  assert.equal(typeof result.error.message, "string");
}

function accepted(result: PageParseResult): Json {
  assert.equal(result.ok, true, JSON.stringify(result));
  if (!result.ok) throw new Error("refused");
  return result.value as unknown as Json;
}

const parse = (doc: unknown, options?: ParsePageOptions) =>
  parsePageDocument(doc, options);
const media = { media_id: "m1", url: "https://cdn.example/a.jpg", alt: null };
const link = { label: "Go", href: "/go" };
const list = (n: number, item: (i: number) => unknown) =>
  Array.from({ length: n }, (_, i) => item(i));

Deno.test("parsePageDocument accepts the demo documents and they round-trip (PAGE-001, PAGE-006)", () => {
  for (const locale of ["en", "de"] as const) {
    for (
      const doc of [exampleHomePage(locale, "footer1"), exampleFooter(locale)]
    ) {
      const value = accepted(parse(doc));
      assert.deepEqual(value, JSON.parse(JSON.stringify(doc)));
      assert.deepEqual(accepted(parse(value)), value);
    }
  }
});

Deno.test("parsePageDocument refuses format 4, a missing format and a non-object with unreadable_page (PAGE-003, PAGE-005)", () => {
  refused(
    parse({ ...one("search", {}), format: 4 }),
    "unreadable_page",
    "$.format",
  );
  const { format: _, ...noFormat } = one("search", {});
  refused(parse(noFormat), "unreadable_page", "$.format");
  refused(parse("page"), "unreadable_page", "$");
  refused(parse(null), "unreadable_page", "$");
  refused(
    parse({ ...one("search", {}), extra: 1 }),
    "unreadable_page",
    "$.extra",
  );
});

Deno.test("parsePageDocument refuses format 3 without a pin as noncanonical_default (PAGE-004)", () => {
  refused(parse(one("search", {}, {}, 3)), "noncanonical_default", "$.format");
});

Deno.test("parsePageDocument pairs sections and props (PAGE-006)", () => {
  const orphan = one("search", {});
  (orphan.props as Json).ghost = {};
  refused(parse(orphan), "unreadable_page", "$.props.ghost");
  refused(
    parse({ ...one("search", {}), props: {} }),
    "unreadable_page",
    "$.props.s1",
  );
  const twice = one("search", {});
  (twice.sections as Json[]).push((twice.sections as Json[])[0]);
  refused(parse(twice), "unreadable_page", "$.sections[1].id");
});

Deno.test("parsePageDocument reads the section structure (PAGE-007, PAGE-008, PAGE-009, PAGE-010, PAGE-011)", () => {
  const doc = one("search", {});
  delete (doc.sections as Json[])[0].component;
  refused(parse(doc), "invalid_slide", "$.sections[0].component");
  // PAGE-009: appearance takes only the listed values of its three keys.
  refused(
    parse(one("search", {}, { appearance: { background: "red" } })),
    "invalid_slide",
    "$.sections[0].appearance.background",
  );
  refused(
    parse(one("search", {}, { appearance: { spacing: "wide" } })),
    "invalid_slide",
    "$.sections[0].appearance.spacing",
  );
  refused(
    parse(one("search", {}, { appearance: { motion: "spin" } })),
    "invalid_slide",
    "$.sections[0].appearance.motion",
  );
  refused(
    parse(one("search", {}, { appearance: { colour: "muted" } })),
    "invalid_slide",
    "$.sections[0].appearance.colour",
  );
  refused(
    parse(one("search", {}, { appearance: {} })),
    "noncanonical_default",
    "$.sections[0].appearance",
  );
  refused(
    parse(one("search", {}, { appearance: null })),
    "noncanonical_default",
    "$.sections[0].appearance",
  );
  const looks = accepted(
    parse(
      one("search", {}, {
        appearance: {
          background: "accent",
          spacing: "compact",
          motion: "parallax",
        },
      }),
    ),
  );
  assert.deepEqual((looks.sections as Json[])[0].appearance, {
    background: "accent",
    spacing: "compact",
    motion: "parallax",
  });
  // PAGE-010: a definition on any type but custom is refused (custom without one: below).
  refused(
    parse(
      one("cta", { heading: "H", link }, {
        definition: { key: "k", version: 1, digest: "a".repeat(64) },
      }),
    ),
    "invalid_slide",
    "$.sections[0].definition",
  );
  refused(
    parse(one("search", { type: "search" })),
    "invalid_slide",
    "$.props.s1.type",
  );
  refused(parse(one("search", { id: "s1" })), "invalid_slide", "$.props.s1.id");
  refused(
    parse(
      one("text_media", { paragraphs: ["a"], media_side: "start" }, {
        layout: "media_side=start",
      }),
    ),
    "invalid_slide",
    "$.props.s1.media_side",
  );
  accepted(
    parse(
      one("text_media", { paragraphs: ["a"] }, { layout: "media_side=start" }),
    ),
  );
  refused(
    parse(one("search", {}, { layout: "Side" })),
    "invalid_slide",
    "$.sections[0].layout",
  );
  refused(parse(one("nope", {})), "invalid_slide", "$.sections[0].type");
  refused(
    parse(one("search", {}, { id: "a.b" })),
    "invalid_slide",
    "$.sections[0].id",
  );
  accepted(
    parse({ ...one("search", {}, { id: "a.0" }), props: { "a.0": {} } }, {
      purpose: "deliver",
    }),
  );
  refused(
    parse(one("search", {}, { colour: "x" })),
    "invalid_slide",
    "$.sections[0].colour",
  );
});

Deno.test("parsePageDocument fills absent optional values with null and leaves later fields out (PAGE-013, PAGE-014)", () => {
  const value = accepted(parse(one("hero", { heading: "  Hello  " })));
  assert.deepEqual((value.props as Json).s1, {
    heading: "Hello",
    subheading: null,
    media: null,
    link: null,
  });
  refused(
    parse(one("hero", { heading: "H", eyebrow: null })),
    "noncanonical_default",
    "$.props.s1.eyebrow",
  );
  refused(
    parse(one("hero", { heading: "H", eyebrow: "" })),
    "noncanonical_default",
    "$.props.s1.eyebrow",
  );
  refused(
    parse(one("hero", { heading: "H", eyebrow: "   " })),
    "noncanonical_default",
    "$.props.s1.eyebrow",
  );
  refused(
    parse(one("cta", { heading: "H", link, secondary_link: null })),
    "noncanonical_default",
    "$.props.s1.secondary_link",
  );
  // A formatting run keeps its spaces; plain text is trimmed.
  const runs = accepted(
    parse(
      one("rich_text", {
        paragraphs: [[{ text: "Hello ", marks: [] }, {
          text: "world",
          marks: ["bold"],
        }], " plain "],
      }),
    ),
  );
  assert.deepEqual(((runs.props as Json).s1 as Json).paragraphs, [[{
    text: "Hello ",
    marks: [],
  }, { text: "world", marks: ["bold"] }], "plain"]);
  refused(
    parse(
      one("rich_text", {
        paragraphs: [[{ text: "x", marks: ["bold", "bold"] }]],
      }),
    ),
    "invalid_slide",
    "$.props.s1.paragraphs[0][0].marks",
  );
});

Deno.test("parsePageDocument enforces every section type's required props and item counts at the edge (PAGE-012, PAGE-015 to PAGE-028)", () => {
  refused(parse(one("hero", {})), "invalid_slide", "$.props.s1.heading");
  refused(
    parse(one("hero", { heading: "H", secondary_link: link })),
    "invalid_slide",
    "$.props.s1.secondary_link",
  );
  accepted(parse(one("hero", { heading: "H", link, secondary_link: link })));
  // PAGE-016: rich_text paragraphs are required, 1 to 12.
  accepted(parse(one("rich_text", { paragraphs: ["p"] })));
  accepted(parse(one("rich_text", { paragraphs: list(12, () => "p") })));
  refused(
    parse(one("rich_text", { paragraphs: list(13, () => "p") })),
    "invalid_slide",
    "$.props.s1.paragraphs",
  );
  refused(
    parse(one("rich_text", { paragraphs: [] })),
    "invalid_slide",
    "$.props.s1.paragraphs",
  );
  refused(
    parse(one("rich_text", { heading: "H" })),
    "invalid_slide",
    "$.props.s1.paragraphs",
  );
  // PAGE-017: text_media paragraphs are required, 1 to 12, beside optional media.
  const textMedia = accepted(
    parse(one("text_media", { paragraphs: ["p"] })),
  );
  assert.deepEqual((textMedia.props as Json).s1, {
    heading: null,
    paragraphs: ["p"],
    media: null,
  });
  accepted(
    parse(one("text_media", { paragraphs: list(12, () => "p"), media })),
  );
  refused(
    parse(one("text_media", { paragraphs: [] })),
    "invalid_slide",
    "$.props.s1.paragraphs",
  );
  refused(
    parse(one("text_media", { paragraphs: list(13, () => "p") })),
    "invalid_slide",
    "$.props.s1.paragraphs",
  );
  refused(
    parse(one("text_media", { media })),
    "invalid_slide",
    "$.props.s1.paragraphs",
  );
  // PAGE-018: feature_grid features are required, 1 to 12 of { title, body }.
  accepted(
    parse(one("feature_grid", { features: [{ title: "t" }] })),
  );
  refused(
    parse(one("feature_grid", { features: [] })),
    "invalid_slide",
    "$.props.s1.features",
  );
  refused(
    parse(one("feature_grid", { heading: "H" })),
    "invalid_slide",
    "$.props.s1.features",
  );
  accepted(
    parse(
      one("feature_grid", {
        features: list(12, () => ({ title: "t", body: "b" })),
      }),
    ),
  );
  refused(
    parse(
      one("feature_grid", {
        features: list(13, () => ({ title: "t", body: "b" })),
      }),
    ),
    "invalid_slide",
    "$.props.s1.features",
  );
  // PAGE-019: cta needs a heading and a link; a secondary link is a later field.
  const cta = accepted(parse(one("cta", { heading: "H", link })));
  assert.deepEqual((cta.props as Json).s1, {
    heading: "H",
    body: null,
    link,
  });
  accepted(parse(one("cta", { heading: "H", link, secondary_link: link })));
  refused(
    parse(one("cta", { heading: "H" })),
    "invalid_slide",
    "$.props.s1.link",
  );
  refused(
    parse(one("cta", { link })),
    "invalid_slide",
    "$.props.s1.heading",
  );
  // PAGE-020: cards hold 1 to 12 items, each with a title.
  const card = { title: "t", body: "b", media, link };
  accepted(parse(one("cards", { items: list(12, () => card) })));
  refused(
    parse(one("cards", { items: list(13, () => card) })),
    "invalid_slide",
    "$.props.s1.items",
  );
  refused(
    parse(one("cards", { items: [] })),
    "invalid_slide",
    "$.props.s1.items",
  );
  refused(
    parse(one("cards", { items: [{ body: "b" }] })),
    "invalid_slide",
    "$.props.s1.items[0].title",
  );
  // PAGE-021: stats hold 1 to 8 items; value and label are required.
  accepted(
    parse(one("stats", { items: list(8, () => ({ value: "1", label: "l" })) })),
  );
  refused(
    parse(one("stats", { items: list(9, () => ({ value: "1", label: "l" })) })),
    "invalid_slide",
    "$.props.s1.items",
  );
  refused(
    parse(one("stats", { items: [{ label: "l", note: "n" }] })),
    "invalid_slide",
    "$.props.s1.items[0].value",
  );
  refused(
    parse(one("stats", { items: [{ value: "1", note: "n" }] })),
    "invalid_slide",
    "$.props.s1.items[0].label",
  );
  // PAGE-022: faq holds 1 to 20 items; question and answer are required.
  accepted(
    parse(
      one("faq", { items: list(20, () => ({ question: "q", answer: "a" })) }),
    ),
  );
  refused(
    parse(
      one("faq", { items: list(21, () => ({ question: "q", answer: "a" })) }),
    ),
    "invalid_slide",
    "$.props.s1.items",
  );
  refused(
    parse(one("faq", { items: [{ question: "q" }] })),
    "invalid_slide",
    "$.props.s1.items[0].answer",
  );
  refused(
    parse(one("faq", { items: [{ answer: "a" }] })),
    "invalid_slide",
    "$.props.s1.items[0].question",
  );
  // PAGE-012: every list item is closed, however deep or whichever kind it is.
  refused(
    parse(one("faq", { items: [{ question: "q", answer: "a", extra: 1 }] })),
    "invalid_slide",
    "$.props.s1.items[0].extra",
  );
  refused(
    parse(one("media", { items: [{ kind: "image", media, extra: 1 }] })),
    "invalid_slide",
    "$.props.s1.items[0].extra",
  );
  refused(
    parse(
      one("menu", {
        groups: [{ title: "g", items: [{ name: "n", extra: 1 }] }],
      }),
    ),
    "invalid_slide",
    "$.props.s1.groups[0].items[0].extra",
  );
  // PAGE-023: testimonials hold 1 to 12 items; quote and name are required.
  const quote = { quote: "q", name: "n", role: "r", media };
  accepted(parse(one("testimonials", { items: list(12, () => quote) })));
  refused(
    parse(one("testimonials", { items: list(13, () => quote) })),
    "invalid_slide",
    "$.props.s1.items",
  );
  refused(
    parse(one("testimonials", { items: [{ quote: "q" }] })),
    "invalid_slide",
    "$.props.s1.items[0].name",
  );
  refused(
    parse(one("testimonials", { items: [{ name: "n" }] })),
    "invalid_slide",
    "$.props.s1.items[0].quote",
  );
  accepted(
    parse(
      one("media", {
        items: [{ kind: "image", media }, {
          kind: "video",
          provider: "youtube",
          video_id: "abc",
          title: "T",
        }],
      }),
    ),
  );
  // PAGE-024: media holds 1 to 24 image or video items, nothing else.
  refused(
    parse(one("media", { items: [{ kind: "audio", media }] })),
    "invalid_slide",
    "$.props.s1.items[0].kind",
  );
  accepted(
    parse(one("media", { items: list(24, () => ({ kind: "image", media })) })),
  );
  refused(
    parse(one("media", { items: list(25, () => ({ kind: "image", media })) })),
    "invalid_slide",
    "$.props.s1.items",
  );
  refused(
    parse(one("media", { items: [] })),
    "invalid_slide",
    "$.props.s1.items",
  );
  refused(
    parse(one("media", { items: [{ kind: "image", caption: "c" }] })),
    "invalid_slide",
    "$.props.s1.items[0].media",
  );
  refused(
    parse(
      one("media", {
        items: [{ kind: "video", provider: "youtube", video_id: "abc" }],
      }),
    ),
    "invalid_slide",
    "$.props.s1.items[0].title",
  );
  // PAGE-025: logos hold 1 to 24 items; media and name are required.
  accepted(
    parse(one("logos", { items: list(24, () => ({ media, name: "n" })) })),
  );
  refused(
    parse(one("logos", { items: list(25, () => ({ media, name: "n" })) })),
    "invalid_slide",
    "$.props.s1.items",
  );
  refused(
    parse(one("logos", { items: [{ name: "n" }] })),
    "invalid_slide",
    "$.props.s1.items[0].media",
  );
  refused(
    parse(one("logos", { items: [{ media }] })),
    "invalid_slide",
    "$.props.s1.items[0].name",
  );
  // PAGE-026: steps hold 1 to 12 items, each with a title.
  accepted(parse(one("steps", { items: list(12, () => ({ title: "t" })) })));
  refused(
    parse(one("steps", { items: list(13, () => ({ title: "t" })) })),
    "invalid_slide",
    "$.props.s1.items",
  );
  refused(
    parse(one("steps", { items: [{ body: "b" }] })),
    "invalid_slide",
    "$.props.s1.items[0].title",
  );
  // PAGE-027: pricing holds 1 to 4 plans with a name and a price, 0 to 12 features, and at
  // most one highlighted plan, never `highlighted: false`.
  const plan = { name: "P", price: "9" };
  accepted(
    parse(
      one("pricing", { plans: [{ ...plan, features: list(12, () => "f") }] }),
    ),
  );
  refused(
    parse(one("pricing", { plans: [{ price: "9" }] })),
    "invalid_slide",
    "$.props.s1.plans[0].name",
  );
  refused(
    parse(one("pricing", { plans: [{ name: "P" }] })),
    "invalid_slide",
    "$.props.s1.plans[0].price",
  );
  accepted(
    parse(
      one("pricing", {
        plans: [{ ...plan, highlighted: true }, plan, plan, plan],
      }),
    ),
  );
  refused(
    parse(one("pricing", { plans: list(5, () => plan) })),
    "invalid_slide",
    "$.props.s1.plans",
  );
  refused(
    parse(
      one("pricing", {
        plans: [{ ...plan, highlighted: true }, { ...plan, highlighted: true }],
      }),
    ),
    "invalid_slide",
    "$.props.s1.plans[1].highlighted",
  );
  refused(
    parse(one("pricing", { plans: [{ ...plan, highlighted: false }] })),
    "invalid_slide",
    "$.props.s1.plans[0].highlighted",
  );
  refused(
    parse(one("pricing", {
      plans: [{
        ...plan,
        features: list(13, () => "f"),
      }],
    })),
    "invalid_slide",
    "$.props.s1.plans[0].features",
  );
  accepted(
    parse(
      one("menu", {
        groups: [{ title: "g", items: list(30, () => ({ name: "n" })) }],
      }),
    ),
  );
  refused(
    parse(
      one("menu", {
        groups: [{ title: "g", items: list(31, () => ({ name: "n" })) }],
      }),
    ),
    "invalid_slide",
    "$.props.s1.groups[0].items",
  );
});

Deno.test("parsePageDocument checks contact, latest entries, search and shared props (PAGE-029, PAGE-030, PAGE-031, PAGE-034, PAGE-035, PAGE-051)", () => {
  refused(
    parse(one("contact", { heading: "H" })),
    "invalid_slide",
    "$.props.s1",
  );
  accepted(parse(one("contact", { hours: [{ label: "Mon", value: "9-5" }] })));
  // PAGE-030: a phone is digits, spaces, ( ) . - with an optional leading plus, 3 or more
  // characters; an email is one address, never a mailto link; a map link is https.
  accepted(parse(one("contact", { phone: "+49 (30) 123.45-6" })));
  accepted(parse(one("contact", { phone: "112" })));
  refused(
    parse(one("contact", { phone: "12" })),
    "invalid_slide",
    "$.props.s1.phone",
  );
  refused(
    parse(one("contact", { phone: "call 112" })),
    "invalid_slide",
    "$.props.s1.phone",
  );
  refused(
    parse(one("contact", { phone: "49+30" })),
    "invalid_slide",
    "$.props.s1.phone",
  );
  accepted(parse(one("contact", { email: "a@b.de" })));
  refused(
    parse(one("contact", { email: "mailto:a@b.de" })),
    "invalid_slide",
    "$.props.s1.email",
  );
  refused(
    parse(one("contact", { email: "a@b.de, c@d.de" })),
    "invalid_slide",
    "$.props.s1.email",
  );
  accepted(
    parse(
      one("contact", {
        map_link: { label: "Map", href: "https://maps.example/x" },
      }),
    ),
  );
  refused(
    parse(
      one("contact", {
        map_link: { label: "Map", href: "http://maps.example" },
      }),
    ),
    "invalid_slide",
    "$.props.s1.map_link.href",
  );
  refused(
    parse(
      one("contact", { hours: list(15, () => ({ label: "d", value: "v" })) }),
    ),
    "invalid_slide",
    "$.props.s1.hours",
  );
  // PAGE-031: latest_entries names a model and fields by slug and takes 1 to 12 entries.
  const latest = { model: "posts", title_field: "title", limit: 12 };
  assert.deepEqual(
    (accepted(parse(one("latest_entries", latest))).props as Json).s1,
    {
      heading: null,
      ...latest,
      cover_field: null,
      summary_field: null,
      date_field: null,
      empty_text: null,
    },
  );
  accepted(parse(one("latest_entries", { ...latest, limit: 1 })));
  refused(
    parse(one("latest_entries", { ...latest, limit: 13 })),
    "invalid_slide",
    "$.props.s1.limit",
  );
  refused(
    parse(one("latest_entries", { ...latest, limit: 0 })),
    "invalid_slide",
    "$.props.s1.limit",
  );
  refused(
    parse(one("latest_entries", { ...latest, limit: 2.5 })),
    "invalid_slide",
    "$.props.s1.limit",
  );
  refused(
    parse(one("latest_entries", { model: "posts", title_field: "title" })),
    "invalid_slide",
    "$.props.s1.limit",
  );
  refused(
    parse(one("latest_entries", { ...latest, model: "Posts" })),
    "invalid_slide",
    "$.props.s1.model",
  );
  refused(
    parse(one("latest_entries", { model: "posts", limit: 3 })),
    "invalid_slide",
    "$.props.s1.title_field",
  );
  accepted(
    parse(
      one("latest_entries", {
        ...latest,
        model: "a".repeat(64),
        cover_field: "cover_image-2",
      }),
    ),
  );
  refused(
    parse(one("latest_entries", { ...latest, model: "a".repeat(65) })),
    "invalid_slide",
    "$.props.s1.model",
  );
  refused(
    parse(one("latest_entries", { ...latest, date_field: "2date" })),
    "invalid_slide",
    "$.props.s1.date_field",
  );
  accepted(
    parse(one("latest_entries", { ...latest, empty_text: "x".repeat(200) })),
  );
  refused(
    parse(one("latest_entries", { ...latest, empty_text: "x".repeat(201) })),
    "invalid_slide",
    "$.props.s1.empty_text",
  );
  refused(
    parse(one("latest_entries", { ...latest, cursor: "abc" })),
    "invalid_slide",
    "$.props.s1.cursor",
  );
  // PAGE-034: a search section's placeholder is at most 80 characters.
  accepted(parse(one("search", { placeholder: "x".repeat(80) })));
  refused(
    parse(one("search", { placeholder: "x".repeat(81) })),
    "invalid_slide",
    "$.props.s1.placeholder",
  );
  refused(
    parse(one("search", { endpoint: "https://x" })),
    "invalid_slide",
    "$.props.s1.endpoint",
  );
  const shared = { shared: { entry: "e1" } };
  accepted(parse(one("shared", {}, shared)));
  refused(
    parse(one("shared", { heading: "x" }, shared)),
    "invalid_slide",
    "$.props.s1.heading",
  );
  refused(
    parse(
      one("shared", {}, { ...shared, appearance: { background: "muted" } }),
    ),
    "invalid_slide",
    "$.sections[0].appearance",
  );
  refused(
    parse(one("shared", {}, { ...shared, variant: "wide" })),
    "invalid_slide",
    "$.sections[0].variant",
  );
  // PAGE-051: what a renderer receives must hold no shared reference.
  refused(
    parse(one("shared", {}, shared), { purpose: "deliver" }),
    "shared_section_unexpanded",
    "$.sections[0].type",
  );
});

Deno.test("parsePageDocument reads links and media references with crop and focal (PAGE-036, PAGE-037, PAGE-038)", () => {
  refused(
    parse(one("hero", { heading: "H", media: { media_id: "m", alt: null } })),
    "invalid_slide",
    "$.props.s1.media.url",
  );
  refused(
    parse(
      one("hero", { heading: "H", media: { media_id: "m", url: "/a.jpg" } }),
    ),
    "invalid_slide",
    "$.props.s1.media.alt",
  );
  refused(
    parse(
      one("hero", {
        heading: "H",
        link: { label: "x", href: "javascript:alert(1)" },
      }),
    ),
    "invalid_slide",
    "$.props.s1.link.href",
  );
  // PAGE-037: a crop is four fractions with a positive size, lying inside the image.
  const crop = (c: Json) =>
    one("hero", { heading: "H", media: { ...media, crop: c } });
  const cropped = accepted(
    parse(crop({ x: 0.5, y: 0, width: 0.5, height: 1 })),
  );
  assert.deepEqual(((cropped.props as Json).s1 as Json).media, {
    ...media,
    crop: { x: 0.5, y: 0, width: 0.5, height: 1 },
  });
  accepted(parse(crop({ x: 0, y: 0.75, width: 1, height: 0.25 })));
  refused(
    parse(crop({ x: 0.8, y: 0, width: 0.5, height: 1 })),
    "invalid_slide",
    "$.props.s1.media.crop",
  );
  refused(
    parse(crop({ x: 0, y: 0.75, width: 1, height: 0.3 })),
    "invalid_slide",
    "$.props.s1.media.crop",
  );
  refused(
    parse(crop({ x: 0, y: 0, width: 0, height: 1 })),
    "invalid_slide",
    "$.props.s1.media.crop",
  );
  refused(
    parse(crop({ x: 0, y: 0, width: 1, height: 0 })),
    "invalid_slide",
    "$.props.s1.media.crop",
  );
  refused(
    parse(crop({ x: -0.1, y: 0, width: 0.5, height: 1 })),
    "invalid_slide",
    "$.props.s1.media.crop.x",
  );
  refused(
    parse(crop({ x: 0, y: 0, width: 1.5, height: 1 })),
    "invalid_slide",
    "$.props.s1.media.crop.width",
  );
  refused(
    parse(crop({ x: 0, y: 0, width: 1 })),
    "invalid_slide",
    "$.props.s1.media.crop.height",
  );
  refused(
    parse(one("hero", { heading: "H", media: { ...media, focal: null } })),
    "invalid_slide",
    "$.props.s1.media.focal",
  );
  refused(
    parse(
      one("hero", {
        heading: "H",
        media: { ...media, focal: { x: 1.1, y: 0 } },
      }),
    ),
    "invalid_slide",
    "$.props.s1.media.focal.x",
  );
});

Deno.test("parsePageDocument reads form fields (PAGE-032, PAGE-039, PAGE-040, PAGE-041, PAGE-042, PAGE-043, PAGE-044)", () => {
  const f = (extra: Json = {}) => ({
    name: "name",
    kind: "text",
    label: "Name",
    required: true,
    help: null,
    options: [],
    ...extra,
  });
  const form = (fields: unknown[], extra: Json = {}) =>
    one("form", {
      fields,
      submit_label: "Send",
      success_text: "Thanks",
      ...extra,
    });
  accepted(parse(form(list(12, (i) => f({ name: `f${i}` })))));
  refused(
    parse(form(list(13, (i) => f({ name: `f${i}` })))),
    "invalid_slide",
    "$.props.s1.fields",
  );
  const { help: _, ...noHelp } = f();
  refused(parse(form([noHelp])), "invalid_slide", "$.props.s1.fields[0].help");
  // PAGE-040: a field name is 1 to 32 of a-z, 0-9 and _, from a letter, unique in its form.
  refused(
    parse(form([f(), f()])),
    "invalid_slide",
    "$.props.s1.fields[1].name",
  );
  accepted(parse(form([f({ name: "a" }), f({ name: "a_1" })])));
  refused(
    parse(form([f({ name: "" })])),
    "invalid_slide",
    "$.props.s1.fields[0].name",
  );
  refused(
    parse(form([f({ name: "Name" })])),
    "invalid_slide",
    "$.props.s1.fields[0].name",
  );
  refused(
    parse(form([f({ name: "first-name" })])),
    "invalid_slide",
    "$.props.s1.fields[0].name",
  );
  accepted(parse(form([f({ name: "a".repeat(32) })])));
  refused(
    parse(form([f({ name: "a".repeat(33) })])),
    "invalid_slide",
    "$.props.s1.fields[0].name",
  );
  refused(
    parse(form([f({ name: "1a" })])),
    "invalid_slide",
    "$.props.s1.fields[0].name",
  );
  // PAGE-041: the seven kinds; a select lists 2 to 20 distinct options, other kinds [].
  for (
    const kind of ["text", "email", "phone", "textarea", "checkbox", "file"]
  ) {
    accepted(parse(form([f({ kind })])));
  }
  accepted(parse(form([f({ kind: "select", options: ["one", "two"] })])));
  refused(
    parse(form([f({ kind: "select", options: ["one"] })])),
    "invalid_slide",
    "$.props.s1.fields[0].options",
  );
  refused(
    parse(form([f({ kind: "select", options: ["one", "one"] })])),
    "invalid_slide",
    "$.props.s1.fields[0].options[1]",
  );
  accepted(
    parse(form([f({ kind: "select", options: list(20, (i) => `o${i}`) })])),
  );
  refused(
    parse(form([f({ kind: "select", options: list(21, (i) => `o${i}`) })])),
    "invalid_slide",
    "$.props.s1.fields[0].options",
  );
  refused(
    parse(form([f({ options: ["a", "b"] })])),
    "invalid_slide",
    "$.props.s1.fields[0].options",
  );
  refused(
    parse(form([f({ kind: "date" })])),
    "invalid_slide",
    "$.props.s1.fields[0].kind",
  );
  // PAGE-042: a file field's accept, max_files and max_bytes, at their edges; other kinds
  // refuse these keys.
  const file = (extra: Json) => form([f({ kind: "file", ...extra })]);
  accepted(
    parse(
      file({ accept: ["image/png", ".pdf"], max_files: 5, max_bytes: 5242880 }),
    ),
  );
  accepted(parse(file({ accept: [], max_files: 1, max_bytes: 1 })));
  const ten = [
    "image/jpeg",
    "image/png",
    "image/gif",
    "image/webp",
    "image/avif",
    "application/pdf",
    ".txt",
    ".csv",
    ".rtf",
    ".doc",
  ];
  accepted(parse(file({ accept: ten })));
  refused(
    parse(file({ accept: [...ten, ".docx"] })),
    "invalid_slide",
    "$.props.s1.fields[0].accept",
  );
  refused(
    parse(file({ accept: ["application/x-msdownload"] })),
    "invalid_slide",
    "$.props.s1.fields[0].accept[0]",
  );
  refused(
    parse(file({ max_files: 0 })),
    "invalid_slide",
    "$.props.s1.fields[0].max_files",
  );
  refused(
    parse(file({ max_bytes: 0 })),
    "invalid_slide",
    "$.props.s1.fields[0].max_bytes",
  );
  refused(
    parse(file({ accept: ["image/*"] })),
    "invalid_slide",
    "$.props.s1.fields[0].accept[0]",
  );
  refused(
    parse(file({ max_files: 6 })),
    "invalid_slide",
    "$.props.s1.fields[0].max_files",
  );
  refused(
    parse(file({ max_bytes: 5242881 })),
    "invalid_slide",
    "$.props.s1.fields[0].max_bytes",
  );
  refused(
    parse(file({ accept: list(11, () => ".pdf") })),
    "invalid_slide",
    "$.props.s1.fields[0].accept",
  );
  refused(
    parse(form([f({ max_files: 1 })])),
    "invalid_slide",
    "$.props.s1.fields[0].max_files",
  );
  refused(
    parse(form([f({ kind: "textarea", accept: [] })])),
    "invalid_slide",
    "$.props.s1.fields[0].accept",
  );
  refused(
    parse(form([f({ kind: "select", options: ["a", "b"], max_bytes: 1 })])),
    "invalid_slide",
    "$.props.s1.fields[0].max_bytes",
  );
  refused(
    parse(form([f()], { recipient: "a@b.de" })),
    "invalid_slide",
    "$.props.s1.recipient",
  );
  refused(
    parse(form([f()], { submit_label: " " })),
    "invalid_slide",
    "$.props.s1.submit_label",
  );
  // PAGE-043: consent is the statement to accept, or null (its enforcement: forms_test.ts).
  const consent = accepted(parse(form([f()])));
  assert.equal(((consent.props as Json).s1 as Json).consent, null);
  const withConsent = accepted(
    parse(form([f()], { consent: " I agree to be contacted. " })),
  );
  assert.equal(
    ((withConsent.props as Json).s1 as Json).consent,
    "I agree to be contacted.",
  );
});

Deno.test("parsePageDocument pins custom sections only through a registry (PAGE-008, PAGE-010, PAGE-033, PAGE-045, PAGE-046, PAGE-047, PAGE-048)", async () => {
  const definition = {
    key: "banner",
    label: "Banner",
    description: "",
    variants: ["default"],
    props: {
      title: { kind: "text" },
      dark: { kind: "toggle" },
      logo: { kind: "media" },
      more: { kind: "link" },
    },
  };
  const digest = await sectionDefinitionDigest(
    definition,
    new TextEncoder().encode("export default 1;\n"),
  );
  assert.match(digest, /^[0-9a-f]{64}$/);
  assert.notEqual(
    digest,
    await sectionDefinitionDigest(
      definition,
      new TextEncoder().encode("export default 2;\n"),
    ),
  );
  const pin = {
    component_id: "c1",
    version_id: "v2",
    artifact_digest: "b".repeat(64),
  };
  const registered: RegisteredDefinition = {
    key: "banner",
    version: 1,
    digest,
    props: definition.props as RegisteredDefinition["props"],
    components: [
      { ...pin, promoted: true },
      {
        component_id: "c1",
        version_id: "v3",
        artifact_digest: "c".repeat(64),
        promoted: false,
      },
    ],
  };
  const registry = sectionRegistry([registered]);
  const custom = (
    component: unknown,
    fields: Json = { title: "Hi" },
    def: Json = { key: "banner", version: 1, digest },
  ) =>
    one("custom", { heading: null, fields }, { definition: def, component }, 3);
  const value = accepted(parse(custom(pin, { title: " Hi " }), { registry }));
  assert.deepEqual(((value.props as Json).s1 as Json).fields, {
    title: "Hi",
    dark: false,
    logo: null,
    more: null,
  });
  // PAGE-047: a pin is never a bare name or slug.
  refused(
    parse(custom("hero-x"), { registry }),
    "invalid_slide",
    "$.sections[0].component",
  );
  refused(
    parse(
      custom({ ...pin, version_id: "v3", artifact_digest: "c".repeat(64) }),
      { registry },
    ),
    "unknown_component_version",
    "$.sections[0].component",
  );
  refused(
    parse(custom({ ...pin, version_id: "v9" }), { registry }),
    "unknown_component_version",
    "$.sections[0].component",
  );
  refused(
    parse(custom(pin, {}, { key: "banner", version: 2, digest })),
    "unknown_section_definition",
    "$.sections[0].definition",
  );
  refused(
    parse(
      custom(pin, {}, { key: "banner", version: 1, digest: "0".repeat(64) }),
      { registry },
    ),
    "unknown_section_definition",
    "$.sections[0].definition",
  );
  refused(
    parse(
      custom(pin, {}, { key: "banner", version: 1, digest: "0".repeat(63) }),
      { registry },
    ),
    "invalid_slide",
    "$.sections[0].definition.digest",
  );
  refused(
    parse(custom(pin, { colour: "red" }), { registry }),
    "invalid_slide",
    "$.props.s1.fields.colour",
  );
  // PAGE-046: locale props are { heading, fields }; a field holds text, a flag, a link, a
  // media reference, null or a list of those, never another object.
  refused(
    parse(custom(pin, { title: { nested: true } }), { registry }),
    "invalid_slide",
    "$.props.s1.fields.title",
  );
  refused(
    parse(custom(pin, { dark: "yes" }), { registry }),
    "invalid_slide",
    "$.props.s1.fields.dark",
  );
  // Its links and media references are read like every other section's.
  const framed = { ...media, alt: " Logo ", focal: { x: 0.5, y: 0.5 } };
  assert.deepEqual(
    ((accepted(parse(custom(pin, { logo: framed, more: link }), { registry }))
      .props as Json).s1 as Json).fields,
    {
      title: null,
      dark: false,
      logo: { ...media, alt: "Logo", focal: { x: 0.5, y: 0.5 } },
      more: link,
    },
  );
  refused(
    parse(
      custom(pin, { logo: { ...media, url: "javascript:alert(1)" } }),
      { registry },
    ),
    "invalid_slide",
    "$.props.s1.fields.logo.url",
  );
  refused(
    parse(custom(pin, { logo: { media_id: "m1", alt: null } }), { registry }),
    "invalid_slide",
    "$.props.s1.fields.logo.url",
  );
  refused(
    parse(
      custom(pin, { more: { label: "x", href: "data:text/html,x" } }),
      { registry },
    ),
    "invalid_slide",
    "$.props.s1.fields.more.href",
  );
  refused(
    parse(
      one("custom", { heading: null, fields: {}, extra: 1 }, {
        definition: { key: "banner", version: 1, digest },
        component: pin,
      }, 3),
      { registry },
    ),
    "invalid_slide",
    "$.props.s1.extra",
  );
  // PAGE-008, PAGE-047: a pin outside format 3 or outside a custom section.
  refused(
    parse({ ...custom(pin), format: 2 }, { registry }),
    "invalid_slide",
    "$.sections[0].component",
  );
  refused(
    parse(one("hero", { heading: "H" }, { component: pin }, 3)),
    "invalid_slide",
    "$.sections[0].component",
  );
  // PAGE-010: a custom section always holds its definition.
  refused(
    parse(one("custom", { fields: {} }, { component: null }, 2)),
    "invalid_slide",
    "$.sections[0].definition",
  );
  // PAGE-008: in format 3 a custom section may leave its component null beside a pinned one.
  const mixed = custom(pin);
  (mixed.sections as Json[]).push({
    ...(mixed.sections as Json[])[0],
    id: "s2",
    component: null,
  });
  (mixed.props as Json).s2 = { heading: null, fields: {} };
  const both = accepted(parse(mixed, { registry }));
  assert.deepEqual(
    (both.sections as Json[]).map((s) => s.component),
    [pin, null],
  );
});

Deno.test("parsePageDocument reports the lowest page contract able to read a document (PUB-006, PAGE-057)", () => {
  const contract = (doc: unknown) => {
    const r = parse(doc);
    assert.ok(r.ok);
    return r.contract;
  };
  assert.equal(contract(one("search", {})), 1);
  assert.equal(contract(one("hero", { heading: "H", eyebrow: "E" })), 2);
  assert.equal(contract(one("shared", {}, { shared: { entry: "e" } })), 5);
});

Deno.test("page-document-v3.schema.json is generated from the vocabulary (run `deno task gen`)", async () => {
  const committed = await Deno.readTextFile(
    new URL("../../static/page-document-v3.schema.json", import.meta.url),
  );
  assert.equal(committed, pageDocumentSchemaText());
});
