// Unit tests of the editor's form codec: posted text to values, stored values to text.
import { deepEqual, equal } from "node:assert/strict";
import {
  type FieldControl,
  parseEntryForm,
  problemsByField,
  rawOf,
} from "./entry_form.ts";

function control(
  key: string,
  type: FieldControl["type"],
  extra: Partial<FieldControl> = {},
): FieldControl {
  return {
    key,
    label: key,
    type,
    required: false,
    localized: false,
    readOnly: false,
    hints: [],
    multiple: false,
    options: [],
    integer: false,
    targets: [],
    kinds: [],
    ...extra,
  };
}

Deno.test("parseEntryForm() reads each type, leaves empty fields out and never reads read-only ones", () => {
  const controls = [
    control("title", "text"),
    control("body", "rich_text"),
    control("count", "number"),
    control("done", "boolean"),
    control("when", "datetime"),
    control("tags", "relation", { multiple: true, targets: ["m1"] }),
    control("refs", "relation", { targets: ["m1", "m2"] }),
    control("gallery", "media", { multiple: true }),
    control("where", "point"),
    control("locked", "text", { readOnly: true }),
    control("empty", "text"),
  ];
  const parsed = parseEntryForm(controls, {
    "f.title": "Hello",
    "f.body": "<pre><code>a\r\nb</code></pre>",
    "f.count": "3",
    "present.done": "1",
    "f.when": "2026-11-23T10:30",
    "f.tags": ["t1", "t2"],
    "f.refs": "m2:e9",
    "f.gallery": "a1, a2",
    "f.where.lat": "52.5",
    "f.where.lon": "13.4",
    "f.locked": "changed",
    "f.empty": "",
  });
  deepEqual(parsed.problems, []);
  deepEqual(parsed.values, {
    title: "Hello",
    body: "<pre><code>a\nb</code></pre>",
    count: 3,
    done: false,
    when: "2026-11-23T10:30:00Z",
    tags: ["t1", "t2"],
    refs: { model: "m2", id: "e9" },
    gallery: ["a1", "a2"],
    where: { latitude: 52.5, longitude: 13.4 },
  });
  equal(parsed.raw.locked, undefined);
});

Deno.test("parseEntryForm() keeps what was typed and names the field when JSON or a number does not parse", () => {
  const parsed = parseEntryForm(
    [control("data", "json"), control("n", "number")],
    { "f.data": "{nope", "f.n": "abc" },
  );
  deepEqual(parsed.raw, { data: "{nope", n: "abc" });
  deepEqual(parsed.problems.map((p) => p.path), ["data", "n"]);
});

Deno.test("problemsByField() places nested paths on their top-level field with the full path", () => {
  deepEqual(
    problemsByField([
      { path: "seo.meta_title", message: "Too long" },
      { path: "faqs[2].question", message: "Required" },
      { path: "title", message: "Required" },
    ]),
    {
      seo: ["seo.meta_title: Too long"],
      faqs: ["faqs[2].question: Required"],
      title: ["Required"],
    },
  );
});

Deno.test("rawOf() shows stored values as the text of their controls", () => {
  equal(rawOf(control("j", "json"), { a: 1 }), '{\n  "a": 1\n}');
  equal(rawOf(control("b", "boolean"), true), "true");
  equal(
    rawOf(control("d", "datetime"), "2026-11-23T10:30:00Z"),
    "2026-11-23T10:30",
  );
  deepEqual(rawOf(control("r", "relation", { multiple: true }), ["x"]), ["x"]);
});
