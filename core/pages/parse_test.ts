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

Deno.test("parsePageDocument reads the section structure (PAGE-007 to PAGE-011)", () => {
  const doc = one("search", {});
  delete (doc.sections as Json[])[0].component;
  refused(parse(doc), "invalid_slide", "$.sections[0].component");
  refused(
    parse(one("search", {}, { appearance: { background: "red" } })),
    "invalid_slide",
    "$.sections[0].appearance.background",
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

Deno.test("parsePageDocument enforces every section type's required props and item counts at the edge (PAGE-015 to PAGE-028)", () => {
  refused(parse(one("hero", {})), "invalid_slide", "$.props.s1.heading");
  refused(
    parse(one("hero", { heading: "H", secondary_link: link })),
    "invalid_slide",
    "$.props.s1.secondary_link",
  );
  accepted(parse(one("hero", { heading: "H", link, secondary_link: link })));
  accepted(parse(one("rich_text", { paragraphs: list(12, () => "p") })));
  refused(
    parse(one("rich_text", { paragraphs: list(13, () => "p") })),
    "invalid_slide",
    "$.props.s1.paragraphs",
  );
  refused(
    parse(one("text_media", { paragraphs: [] })),
    "invalid_slide",
    "$.props.s1.paragraphs",
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
  refused(
    parse(one("cta", { heading: "H" })),
    "invalid_slide",
    "$.props.s1.link",
  );
  refused(
    parse(one("cards", { items: [{ body: "b" }] })),
    "invalid_slide",
    "$.props.s1.items[0].title",
  );
  accepted(
    parse(one("stats", { items: list(8, () => ({ value: "1", label: "l" })) })),
  );
  refused(
    parse(one("stats", { items: list(9, () => ({ value: "1", label: "l" })) })),
    "invalid_slide",
    "$.props.s1.items",
  );
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
    parse(one("faq", { items: [{ question: "q", answer: "a", extra: 1 }] })),
    "invalid_slide",
    "$.props.s1.items[0].extra",
  );
  refused(
    parse(one("testimonials", { items: [{ quote: "q" }] })),
    "invalid_slide",
    "$.props.s1.items[0].name",
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
  refused(
    parse(one("media", { items: [{ kind: "audio", media }] })),
    "invalid_slide",
    "$.props.s1.items[0].kind",
  );
  accepted(
    parse(one("logos", { items: list(24, () => ({ media, name: "n" })) })),
  );
  refused(
    parse(one("logos", { items: list(25, () => ({ media, name: "n" })) })),
    "invalid_slide",
    "$.props.s1.items",
  );
  refused(
    parse(one("steps", { items: list(13, () => ({ title: "t" })) })),
    "invalid_slide",
    "$.props.s1.items",
  );
  const plan = { name: "P", price: "9" };
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

Deno.test("parsePageDocument checks contact, latest entries, search and shared props (PAGE-029 to PAGE-035)", () => {
  refused(
    parse(one("contact", { heading: "H" })),
    "invalid_slide",
    "$.props.s1",
  );
  accepted(parse(one("contact", { hours: [{ label: "Mon", value: "9-5" }] })));
  accepted(parse(one("contact", { phone: "+49 (30) 123.45-6" })));
  refused(
    parse(one("contact", { phone: "12" })),
    "invalid_slide",
    "$.props.s1.phone",
  );
  refused(
    parse(one("contact", { email: "mailto:a@b.de" })),
    "invalid_slide",
    "$.props.s1.email",
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
  const latest = { model: "posts", title_field: "title", limit: 12 };
  accepted(parse(one("latest_entries", latest)));
  refused(
    parse(one("latest_entries", { ...latest, limit: 13 })),
    "invalid_slide",
    "$.props.s1.limit",
  );
  refused(
    parse(one("latest_entries", { ...latest, model: "Posts" })),
    "invalid_slide",
    "$.props.s1.model",
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
  refused(
    parse(one("shared", {}, shared), { purpose: "deliver" }),
    "shared_section_unexpanded",
    "$.sections[0].type",
  );
});

Deno.test("parsePageDocument reads links and media references with crop and focal (PAGE-036 to PAGE-038)", () => {
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
  const crop = (c: Json) =>
    one("hero", { heading: "H", media: { ...media, crop: c } });
  accepted(parse(crop({ x: 0.5, y: 0, width: 0.5, height: 1 })));
  refused(
    parse(crop({ x: 0.8, y: 0, width: 0.5, height: 1 })),
    "invalid_slide",
    "$.props.s1.media.crop",
  );
  refused(
    parse(crop({ x: 0, y: 0, width: 0, height: 1 })),
    "invalid_slide",
    "$.props.s1.media.crop",
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

Deno.test("parsePageDocument reads form fields (PAGE-032, PAGE-039 to PAGE-044)", () => {
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
  refused(
    parse(form([f(), f()])),
    "invalid_slide",
    "$.props.s1.fields[1].name",
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
  refused(
    parse(form([f({ kind: "select", options: ["one"] })])),
    "invalid_slide",
    "$.props.s1.fields[0].options",
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
  const file = (extra: Json) => form([f({ kind: "file", ...extra })]);
  accepted(
    parse(
      file({ accept: ["image/png", ".pdf"], max_files: 5, max_bytes: 5242880 }),
    ),
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
    parse(form([f()], { recipient: "a@b.de" })),
    "invalid_slide",
    "$.props.s1.recipient",
  );
  refused(
    parse(form([f()], { submit_label: " " })),
    "invalid_slide",
    "$.props.s1.submit_label",
  );
  const consent = accepted(parse(form([f()])));
  assert.equal(((consent.props as Json).s1 as Json).consent, null);
});

Deno.test("parsePageDocument pins custom sections only through a registry (PAGE-033, PAGE-045 to PAGE-048)", async () => {
  const definition = {
    key: "banner",
    label: "Banner",
    description: "",
    variants: ["default"],
    props: { title: { kind: "text" }, dark: { kind: "toggle" } },
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
    props: { title: { kind: "text" }, dark: { kind: "toggle" } },
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
  });
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
  refused(
    parse(custom(pin, { title: { nested: true } }), { registry }),
    "invalid_slide",
    "$.props.s1.fields.title",
  );
  // A pin outside format 3 or outside a custom section.
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
  refused(
    parse(one("custom", { fields: {} }, { component: null }, 2)),
    "invalid_slide",
    "$.sections[0].definition",
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
