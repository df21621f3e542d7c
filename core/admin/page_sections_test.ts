// The page editor's section forms: every section type's form, read back unchanged, refusals placed
// on their control, and the paragraph markup that keeps formatting runs (issue 15, point 7).
import { deepEqual, equal, ok } from "node:assert/strict";
import fc from "fast-check";
import { exampleFooter, exampleHomePage } from "../pages/example.ts";
import { parsePageDocument } from "../pages/parse.ts";
import { SECTION_TYPE_NAMES, type SectionType } from "../pages/vocabulary.ts";
import {
  type FormNode,
  sectionPropNodes,
  structureNodes,
} from "./page_sections.ts";
import {
  placeErrors,
  readSectionProps,
  readStructure,
  withRowAdded,
} from "./page_sections_read.ts";
import { paragraphFromMarkup, paragraphMarkup } from "./page_sections_text.ts";
import {
  duplicateSection,
  freshSectionId,
  moveSection,
  putSection,
  removeSection,
} from "./page_editor.ts";

/** What a browser posts for these controls: each name once, rows counted, boxes when checked. */
function posted(nodes: FormNode[]): Record<string, string> {
  const form: Record<string, string> = {};
  const walk = (list: FormNode[]) => {
    for (const n of list) {
      if (n.node === "input") {
        if (n.control !== "checkbox" || n.value !== "") form[n.name] = n.value;
      } else {
        if (n.list) form[`${n.name}.count`] = String(n.list.count);
        walk(n.children);
      }
    }
  };
  walk(nodes);
  return form;
}

const keep = (id: string, kept: unknown) =>
  (kept as { media_id?: string } | null)?.media_id === id
    ? kept as Record<string, unknown>
    : { media_id: id, url: `/media/${id}.png`, alt: null };

function documents() {
  return [
    exampleHomePage("en", "footer-entry", {
      media_id: "b7c5a3c0-0000-4000-8000-000000000001",
      url: "/media/x.png",
    }),
    exampleHomePage("de"),
    exampleFooter("en"),
  ].map((d) => {
    const parsed = parsePageDocument(d);
    ok(parsed.ok, JSON.stringify(parsed));
    return parsed.value;
  });
}

Deno.test("every section of the demo pages reads back from its form unchanged, structure included (PAGE editor)", () => {
  for (const doc of documents()) {
    doc.sections.forEach((section, i) => {
      const props = doc.props[section.id];
      const nodes = sectionPropNodes(section.type, props, section.id);
      const read = readSectionProps(section.type, posted(nodes), {
        resolveMedia: keep,
        before: props,
      });
      deepEqual(read, props, section.id);
      const structure = readStructure(
        section.type,
        posted(structureNodes(
          {
            id: section.id,
            type: section.type,
            variant: section.variant,
            layout: section.layout,
            appearance: { ...section.appearance },
            ...(section.shared ? { shared: section.shared } : {}),
          },
          i,
          section.shared
            ? [{ value: section.shared.entry, label: "Footer" }]
            : [],
        )),
      );
      const { document } = putSection(doc, {
        replacing: section.id,
        at: i,
        structure,
        props: read,
      });
      const again = parsePageDocument(document);
      ok(again.ok, JSON.stringify(again));
      deepEqual(again.value, doc, section.id);
    });
  }
});

Deno.test("an empty form of every section type is read and judged by the parser: a refusal always lands on a control or the section (PAGE editor)", () => {
  for (const type of SECTION_TYPE_NAMES) {
    if (type === "custom" || type === "shared") continue;
    const nodes = sectionPropNodes(type, {}, "s1");
    const props = readSectionProps(type, posted(nodes), {
      resolveMedia: keep,
      before: {},
    });
    const doc = {
      format: 2,
      sections: [{
        id: "s1",
        type,
        variant: "default",
        layout: "default",
        component: null,
      }],
      props: { s1: props },
    };
    const parsed = parsePageDocument(doc);
    if (parsed.ok) continue;
    const unplaced = placeErrors(nodes, [{
      path: parsed.error.detail.path,
      message: parsed.error.message,
    }]);
    // Only a rule over the whole section (contact's "one way to reach") has no one control.
    ok(
      unplaced.length === 0 || parsed.error.detail.path === "$.props.s1",
      `${type}: ${parsed.error.detail.path}`,
    );
  }
});

Deno.test("text limits show in the form and are judged at the edge: 300 characters saved, 301 refused on that control (PAGE editor)", () => {
  const nodes = sectionPropNodes("cta", {}, "c");
  const heading = nodes.find((n) => n.name === "f.heading");
  ok(heading && heading.node === "input");
  equal(heading.max, 300);
  equal(heading.hint, "Required · Up to 300 characters");
  const judge = (text: string) => {
    const props = readSectionProps("cta", {
      "f.heading": text,
      "f.link.label": "Go",
      "f.link.href": "/go",
    }, { resolveMedia: keep, before: {} });
    return parsePageDocument({
      format: 2,
      sections: [{
        id: "c",
        type: "cta",
        variant: "default",
        layout: "default",
        component: null,
      }],
      props: { c: props },
    });
  };
  ok(judge("x".repeat(300)).ok);
  const refused = judge("x".repeat(301));
  ok(!refused.ok);
  const unplaced = placeErrors(nodes, [{
    path: refused.error.detail.path,
    message: refused.error.message,
  }]);
  equal(unplaced.length, 0);
  equal(heading.error, '"heading" is at most 300 characters');
});

Deno.test("list rows: added blank rows are kept only while editing, removed rows leave, union rows keep their kind (PAGE editor)", () => {
  const props: Record<string, unknown> = {
    heading: "Gallery",
    items: [{ kind: "image", media: null, caption: "Sea" }],
  };
  ok(withRowAdded(props, "f.items", "video"));
  equal((props.items as unknown[]).length, 2);
  const nodes = sectionPropNodes("media", props, "g");
  const form = posted(nodes);
  equal(form["f.items.count"], "2");
  equal(form["f.items.1.kind"], "video");
  deepEqual(
    readSectionProps("media", form, { resolveMedia: keep, before: {} }).items,
    [{ kind: "image", media: null, caption: "Sea" }],
  );
  form["f.items.1.provider"] = "vimeo";
  form["f.items.1.video_id"] = "123";
  form["f.items.1.title"] = "Tour";
  form["f.items.0._remove"] = "1";
  deepEqual(
    readSectionProps("media", form, { resolveMedia: keep, before: {} }).items,
    [{
      kind: "video",
      provider: "vimeo",
      video_id: "123",
      title: "Tour",
      poster: null,
      caption: null,
    }],
  );
  // Nested lists: a menu group's items.
  const menu: Record<string, unknown> = {
    groups: [{ title: "Mains", items: [] }],
  };
  ok(withRowAdded(menu, "f.groups.0.items", ""));
  deepEqual((menu.groups as { items: unknown[] }[])[0].items, [{}]);
  equal(withRowAdded(menu, "f.nothing.here", ""), false);
});

Deno.test("paragraph markup keeps bold, italic and code runs, and any text round-trips (PAGE editor)", () => {
  const runs = [
    { text: "Plain ", marks: [] },
    { text: "bold", marks: ["bold"] },
    { text: " and ", marks: [] },
    { text: "both", marks: ["bold", "italic"] },
    { text: " x*y `z` \\", marks: ["code"] },
  ];
  const markup = paragraphMarkup(runs);
  deepEqual(paragraphFromMarkup(markup), runs);
  fc.assert(
    fc.property(fc.string({ minLength: 1 }), (text) => {
      deepEqual(paragraphFromMarkup(paragraphMarkup(text)), text);
    }),
  );
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          text: fc.string({ minLength: 1 }),
          marks: fc.subarray(["bold", "italic", "code"] as string[]),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      (list) => {
        // Neighbours with the same marks merge; a lone unmarked run is stored as text.
        const merged: { text: string; marks: string[] }[] = [];
        for (const r of list) {
          const last = merged.at(-1);
          if (last && last.marks.join() === r.marks.join()) last.text += r.text;
          else merged.push({ ...r, marks: [...r.marks] });
        }
        const expected = merged.length === 1 && merged[0].marks.length === 0
          ? merged[0].text
          : merged;
        deepEqual(paragraphFromMarkup(paragraphMarkup(list)), expected);
      },
    ),
  );
});

Deno.test("section list changes: move, duplicate with a fresh id, remove with its props (PAGE editor)", () => {
  const [doc] = documents();
  const ids = (d: { sections: { id: string }[] }) =>
    d.sections.map((s) => s.id);
  deepEqual(ids(moveSection(doc, "questions", 0)!), [
    "questions",
    "hero",
    "features",
    "next",
    "contact",
    "footer",
  ]);
  deepEqual(ids(moveSection(doc, "hero", 99)!).at(-1), "hero");
  equal(moveSection(doc, "nope", 0), null);
  const copy = duplicateSection(doc, "features")!;
  equal(copy.id, "features-copy");
  deepEqual(ids(copy.document).slice(1, 3), ["features", "features-copy"]);
  deepEqual(copy.document.props["features-copy"], doc.props.features);
  equal(duplicateSection(copy.document, "features")!.id, "features-copy-2");
  const removed = removeSection(doc, "next")!;
  ok(!ids(removed).includes("next"));
  ok(!("next" in removed.props));
  ok(parsePageDocument(removed).ok);
  equal(freshSectionId(doc, "hero"), "hero-2");
  equal(freshSectionId(doc, "faq"), "faq");
  // The original is never changed in place.
  deepEqual(ids(doc), [
    "hero",
    "features",
    "next",
    "questions",
    "contact",
    "footer",
  ]);
});

Deno.test("a renamed section carries its props, and a shared reference offers the shared items (PAGE editor)", () => {
  const [doc] = documents();
  const index = doc.sections.findIndex((s) => s.id === "questions");
  const { document } = putSection(doc, {
    replacing: "questions",
    at: index,
    structure: {
      id: "faq",
      type: "faq",
      variant: "default",
      layout: "default",
      appearance: {},
    },
    props: doc.props.questions,
  });
  const parsed = parsePageDocument(document);
  ok(parsed.ok);
  equal(parsed.value.sections[index].id, "faq");
  deepEqual(parsed.value.props.faq, doc.props.questions);
  const shared = structureNodes(
    {
      id: "footer",
      type: "shared" as SectionType,
      variant: "default",
      layout: "default",
      appearance: {},
      shared: { entry: "abc" },
    },
    5,
    [{ value: "abc", label: "Footer" }],
  );
  const select = shared.find((n) => n.name === "s.shared");
  ok(select && select.node === "input");
  equal(select.path, "$.sections[5].shared.entry");
  deepEqual(select.options?.map((o) => o.value), ["", "abc"]);
});
