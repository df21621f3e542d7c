// Property-based test of the page parser (PAGE-002): thousands of near-valid documents are each
// accepted and round-trip unchanged, or refused with a spec code and a JSON path, never thrown.
import assert from "node:assert/strict";
import fc from "fast-check";
import { parsePageDocument, SECTION_TYPE_NAMES } from "./mod.ts";
import { exampleFooter, exampleHomePage } from "./example.ts";

const CODES = new Set([
  "unreadable_page",
  "noncanonical_default",
  "invalid_slide",
  "unknown_section_definition",
  "unknown_component_version",
  "shared_section_unexpanded",
]);

const media = { media_id: "m1", url: "/a.jpg", alt: "A" };
const link = { label: "Go", href: "https://example.com" };

/** One valid props object per section type (custom needs a registry and is left to parse_test). */
const VALID: Record<string, Record<string, unknown>> = {
  hero: { heading: "H", subheading: "S", media, link, eyebrow: "E" },
  rich_text: {
    heading: null,
    paragraphs: ["a", [{ text: " b ", marks: ["italic"] }]],
  },
  text_media: { heading: "H", paragraphs: ["a"], media },
  feature_grid: { heading: "H", features: [{ title: "t", body: null }] },
  cta: { heading: "H", body: null, link, secondary_link: link },
  cards: {
    heading: null,
    items: [{ title: "t", body: "b", media, link: null }],
  },
  stats: { heading: null, items: [{ value: "1", label: "l", note: null }] },
  faq: { heading: null, items: [{ question: "q", answer: "a" }] },
  testimonials: {
    heading: null,
    items: [{ quote: "q", name: "n", role: null, media: null }],
  },
  media: {
    heading: null,
    items: [{
      kind: "image",
      media: {
        ...media,
        crop: { x: 0, y: 0, width: 1, height: 0.5 },
        focal: { x: 0.2, y: 0.3 },
      },
      caption: null,
    }],
  },
  logos: { heading: null, items: [{ media, name: "n", link: null }] },
  steps: { heading: null, items: [{ title: "t", body: null }] },
  pricing: {
    heading: null,
    plans: [{
      name: "n",
      price: "1",
      period: null,
      description: null,
      features: ["x"],
      link: null,
      highlighted: true,
    }],
  },
  menu: {
    heading: null,
    groups: [{
      title: "g",
      items: [{ name: "n", description: null, price: "3" }],
    }],
  },
  contact: {
    heading: null,
    body: null,
    address: null,
    hours: [{ label: "Mon", value: "9" }],
    phone: "+1 555",
    email: "a@b.de",
    map_link: link,
    link: null,
  },
  latest_entries: {
    heading: null,
    model: "posts",
    title_field: "title",
    cover_field: null,
    summary_field: null,
    date_field: null,
    limit: 3,
    empty_text: null,
  },
  form: {
    heading: null,
    body: null,
    fields: [
      {
        name: "a",
        kind: "text",
        label: "A",
        required: true,
        help: null,
        options: [],
      },
      {
        name: "b",
        kind: "select",
        label: "B",
        required: false,
        help: "h",
        options: ["x", "y"],
      },
      {
        name: "c",
        kind: "file",
        label: "C",
        required: false,
        help: null,
        options: [],
        accept: [".pdf"],
        max_files: 2,
        max_bytes: 100,
      },
    ],
    consent: "Yes",
    submit_label: "Send",
    success_text: "Thanks",
  },
  search: { heading: null, placeholder: "Find" },
  shared: {},
};

function docOf(types: string[]): Record<string, unknown> {
  const sections = types.map((type, i) => ({
    id: `s${i}`,
    type,
    variant: "default",
    layout: "default",
    component: null,
    ...(type === "shared" ? { shared: { entry: "e1" } } : {}),
  }));
  const props = Object.fromEntries(
    types.map((type, i) => [`s${i}`, structuredClone(VALID[type])]),
  );
  return { format: 2, sections, props };
}

const validDoc = fc.array(
  fc.constantFrom(...SECTION_TYPE_NAMES.filter((t) => t !== "custom")),
  { minLength: 0, maxLength: 8 },
).map(docOf);

/** Every path to a value inside `doc`, parents before children. */
function paths(
  value: unknown,
  at: (string | number)[] = [],
): (string | number)[][] {
  const out = [at];
  if (Array.isArray(value)) {
    value.forEach((v, i) => out.push(...paths(v, [...at, i])));
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(...paths(v, [...at, k]));
    }
  }
  return out;
}

type Mutation = [number, "delete" | "replace" | "add" | "blank", unknown];

function mutate(doc: unknown, mutations: Mutation[]): unknown {
  const copy = structuredClone(doc);
  for (const [pick, op, value] of mutations) {
    const all = paths(copy).filter((p) => p.length > 0);
    if (all.length === 0) continue;
    const path = all[pick % all.length];
    // deno-lint-ignore no-explicit-any -- walking arbitrary JSON by a path just read from it
    const parent = path.slice(0, -1).reduce<any>((o, k) => o[k], copy);
    const key = path[path.length - 1];
    if (op === "delete") {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
    } else if (op === "replace") parent[key] = value;
    else if (op === "blank") {
      parent[key] = typeof parent[key] === "string" ? "  " : null;
    } else if (!Array.isArray(parent)) parent[`k${pick % 5}`] = value;
    else parent.push(structuredClone(parent[0] ?? value));
  }
  return copy;
}

const mutation: fc.Arbitrary<Mutation> = fc.tuple(
  fc.nat(),
  fc.constantFrom("delete", "replace", "add", "blank"),
  fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(
      null,
      "",
      " x ",
      0,
      1.5,
      -1,
      13,
      true,
      false,
      [],
      {},
      "a".repeat(301),
    ),
  ),
) as fc.Arbitrary<Mutation>;

function checkOne(input: unknown): void {
  let result;
  try {
    result = parsePageDocument(input);
  } catch (e) {
    throw new Error(`Threw on ${JSON.stringify(input)}: ${e}`);
  }
  if (result.ok) {
    const again = parsePageDocument(result.value);
    assert.ok(again.ok, JSON.stringify(again));
    assert.deepEqual(again.value, result.value);
  } else {
    assert.ok(CODES.has(result.error.code), result.error.code);
    assert.match(result.error.detail.path, /^\$/);
    assert.ok(result.error.message.length > 0);
  }
}

Deno.test("parsePageDocument accepts generated valid documents unchanged (PAGE-002, PAGE-013)", () => {
  fc.assert(
    fc.property(validDoc, (doc) => {
      const result = parsePageDocument(doc);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.value, doc);
    }),
    { numRuns: 500 },
  );
});

Deno.test("parsePageDocument never throws on near-valid documents: accepted and stable, or refused with a code and path (PAGE-002)", () => {
  const seeds = fc.oneof(
    validDoc,
    fc.constantFrom(
      exampleHomePage("en", "f1") as unknown,
      exampleFooter("de") as unknown,
    ),
  );
  fc.assert(
    fc.property(
      seeds,
      fc.array(mutation, { minLength: 1, maxLength: 3 }),
      (doc, ms) => {
        checkOne(mutate(doc, ms));
      },
    ),
    { numRuns: 4000 },
  );
});

Deno.test("parsePageDocument never throws on arbitrary JSON (PAGE-002)", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => checkOne(value)),
    { numRuns: 1000 },
  );
});
