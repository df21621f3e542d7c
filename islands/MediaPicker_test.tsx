import { equal, match } from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { MediaPicker } from "./MediaPicker.tsx";

const items = [
  {
    id: "a",
    url: "/media/s/a.png",
    file_name: "sunrise.png",
    kind: "image" as const,
    alt: "Sun",
  },
  {
    id: "b",
    url: "/media/s/b.pdf",
    file_name: "menu.pdf",
    kind: "document" as const,
    alt: null,
  },
];

Deno.test("MediaPicker renders a labelled select that works without script, offering only accepted kinds", () => {
  const html = renderToString(
    <MediaPicker
      name="cover"
      label="Cover image"
      value="a"
      items={items}
      kinds={["image"]}
    />,
  );
  match(html, /<label for="picker-cover">Cover image<\/label>/);
  match(html, /<select id="picker-cover" name="cover"/);
  match(html, /<option value(="")?>None<\/option>/);
  match(html, /<option value="a" selected>sunrise\.png<\/option>/);
  equal(html.includes("menu.pdf"), false);
});

Deno.test("MediaPicker leaves out None when required", () => {
  const html = renderToString(
    <MediaPicker
      name="file"
      label="File"
      value={null}
      items={items}
      required
    />,
  );
  equal(html.includes(">None<"), false);
  match(html, /menu\.pdf/);
});

Deno.test("MediaPicker with multiple posts the chosen ids first in their order, has no None, keeps a chosen item of another kind, and is disabled read-only", () => {
  const more = [...items, {
    id: "c",
    url: "/media/s/c.png",
    file_name: "harbour.png",
    kind: "image" as const,
    alt: null,
  }];
  const html = renderToString(
    <MediaPicker
      name="f.gallery"
      id="field-gallery"
      label="Gallery"
      hideLabel
      multiple
      value={["c", "b"]}
      items={more}
      kinds={["image"]}
      describedBy="hint-gallery"
    />,
  );
  equal(html.includes("<label"), false);
  match(
    html,
    /<select id="field-gallery" name="f.gallery" multiple size="3" aria-describedby="hint-gallery">/,
  );
  equal(html.includes(">None<"), false);
  match(
    html,
    /<option value="c" selected>harbour\.png<\/option><option value="b" selected>menu\.pdf<\/option><option value="a">sunrise\.png<\/option>/,
  );
  const locked = renderToString(
    <MediaPicker
      name="f.cover"
      label="Cover"
      value="a"
      items={items}
      readOnly
    />,
  );
  match(locked, /<select id="picker-f.cover" name="f.cover" disabled/);
});
