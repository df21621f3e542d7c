// GEN-033: generation maps the media a rich-text field shows, in every language, to addresses,
// or to private-file markers for a private field, which the files route then serves.
import assert from "node:assert/strict";
import { richTextMedia } from "../../core/backend/generate/content.ts";

const a = "0b6f8f4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
const b = "1c7a9e5f-2d3e-4f60-9bac-1d2e3f4a5b6c";
const gone = "2d8bae60-3e4f-4071-8cbd-2e3f4a5b6c7d";
const media = new Map([
  [a, { url: "https://svc.example/media/s/o1.png", key: "o1.png" }],
  [b, { url: "https://svc.example/media/s/o2.jpg", key: "o2.jpg" }],
]);

Deno.test("GEN-033: a rich-text field's media map covers every language's HTML", () => {
  const en =
    `<p>x</p><figure data-figure="media" data-media="${a.toUpperCase()}" data-kind="image"></figure>`;
  const de =
    `<p><img data-media="${b}" alt="b"> <img data-media="${gone}" alt=""></p>`;
  assert.deepEqual(richTextMedia([en, de, null], media, false), {
    [a]: "https://svc.example/media/s/o1.png",
    [b]: "https://svc.example/media/s/o2.jpg",
  });
  // A private field's media are never given a public address.
  assert.deepEqual(richTextMedia([en, de], media, true), {
    [a]: "private-file:o1.png",
    [b]: "private-file:o2.jpg",
  });
  // Text that merely mentions the attribute is not an element's attribute.
  assert.deepEqual(
    richTextMedia([`<p>data-media="${a}"</p>`], media, true),
    {},
  );
});
