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
  match(html, /<option selected value="a">sunrise\.png<\/option>/);
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
