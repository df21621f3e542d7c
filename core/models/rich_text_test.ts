import { deepEqual, equal, ok } from "node:assert/strict";
import { checkRichText, RICH_TEXT_LIMITS } from "./rich_text.ts";

const M1 = "0b0b0b0b-0000-4000-8000-000000000001";
const EMBEDS = ["https://www.youtube.com"];

function problem(html: string) {
  const p = checkRichText(html, { embedOrigins: EMBEDS }).problem;
  return p && { element: p.element, attribute: p.attribute, code: p.code };
}

function table(columns: number, rows: number): string {
  const row = `<tr>${"<td>x</td>".repeat(columns)}</tr>`;
  return `<table><tbody>${row.repeat(rows)}</tbody></table>`;
}

function gallery(images: number): string {
  return `<figure data-figure="gallery">${
    `<img data-media="${M1}" alt="a">`.repeat(images)
  }<figcaption>Trip</figcaption></figure>`;
}

Deno.test("checkRichText() accepts the allow-listed document: blocks, inline marks, links, lists, code, tables", () => {
  const html = [
    "<h2>Title &amp; more</h2>",
    '<p>Some <strong>bold</strong>, <em>em</em>, <a href="https://x.test/a?b=1" title="t" target="_blank" rel="noopener noreferrer">link</a>,',
    ' <a href="/local">local</a>, <code>x &lt; y</code><br/>&#x1F600;&nbsp;ok</p>',
    '<ol start="3"><li>one<ul><li><p>nested</p></li></ul></li></ol>',
    "<blockquote><p>quote</p></blockquote>",
    '<pre data-language="ts"><code>let a = 1;</code></pre><hr>',
    '<table><thead><tr><th scope="col" colspan="2">h</th></tr></thead><tbody><tr><td>a</td><td rowspan="2">b</td></tr><tr><td>c</td></tr></tbody></table>',
  ].join("\n");
  const report = checkRichText(html);
  equal(report.problem, null);
  ok(report.hasContent);
});

Deno.test("checkRichText() refuses elements and attributes outside the allow-list, naming them (MOD-052)", () => {
  deepEqual(problem("<p>x</p><script>alert(1)</script>"), {
    element: "script",
    attribute: undefined,
    code: "rich_text_invalid",
  });
  deepEqual(problem('<p onclick="x()">x</p>'), {
    element: "p",
    attribute: "onclick",
    code: "rich_text_invalid",
  });
  deepEqual(problem('<p style="color:red">x</p>'), {
    element: "p",
    attribute: "style",
    code: "rich_text_invalid",
  });
  deepEqual(problem('<p><a href="javascript:alert(1)">x</a></p>'), {
    element: "a",
    attribute: "href",
    code: "rich_text_invalid",
  });
  deepEqual(problem('<p><a href="//evil.test">x</a></p>'), {
    element: "a",
    attribute: "href",
    code: "rich_text_invalid",
  });
  deepEqual(problem("<p><a>x</a></p>"), {
    element: "a",
    attribute: "href",
    code: "rich_text_invalid",
  });
  deepEqual(problem("<h1>x</h1>"), {
    element: "h1",
    attribute: undefined,
    code: "rich_text_invalid",
  });
  deepEqual(problem("<p><p>x</p></p>"), {
    element: "p",
    attribute: undefined,
    code: "rich_text_invalid",
  });
  deepEqual(problem('<p><img data-media="' + M1 + '"></p>'), {
    element: "img",
    attribute: undefined,
    code: "rich_text_invalid",
  });
});

Deno.test("checkRichText() reads strictly: unclosed, misnested, comments, stray < and &, unquoted values", () => {
  equal(problem("<p>x")?.element, "p");
  equal(problem("<p><strong>x</p></strong>")?.element, "strong");
  equal(problem("</p>")?.element, "p");
  ok(problem("<!-- c --><p>x</p>"));
  ok(problem("<p>a < b</p>"));
  ok(problem("<p>Tom & Jerry</p>"));
  ok(problem("<p>&copy;</p>"));
  equal(problem("<p><a href=x>y</a></p>")?.attribute, "href");
  equal(problem('<p title="a" title="b">x</p>')?.attribute, "title");
  equal(problem("Loose text")?.element, undefined);
  ok(problem("Loose text"));
  equal(problem("<p/>")?.element, "p");
});

Deno.test("checkRichText() takes 256 KiB of HTML and refuses one byte more (MOD-052)", () => {
  const wrap = (n: number) => `<p>${"a".repeat(n - 7)}</p>`;
  equal(checkRichText(wrap(RICH_TEXT_LIMITS.bytes)).problem, null);
  equal(
    checkRichText(wrap(RICH_TEXT_LIMITS.bytes + 1)).problem?.code,
    "rich_text_too_large",
  );
  equal(new TextEncoder().encode(wrap(RICH_TEXT_LIMITS.bytes)).length, 262144);
});

Deno.test("checkRichText() takes tables of 12 columns and 200 rows, refusing 13 and 201 (MOD-053)", () => {
  equal(problem(table(12, 200)), null);
  deepEqual(problem(table(13, 1)), {
    element: "td",
    attribute: undefined,
    code: "rich_text_invalid",
  });
  deepEqual(problem(table(1, 201)), {
    element: "tr",
    attribute: undefined,
    code: "rich_text_invalid",
  });
  equal(
    problem('<table><tbody><tr><td colspan="12">a</td></tr></tbody></table>'),
    null,
  );
  equal(
    problem(
      '<table><tbody><tr><td colspan="11">a</td><td colspan="2">b</td></tr></tbody></table>',
    )?.element,
    "td",
  );
  const spanned =
    '<table><tbody><tr><td rowspan="2" colspan="6">a</td><td colspan="6">b</td></tr><tr><td colspan="7">c</td></tr></tbody></table>';
  equal(
    problem(spanned)?.element,
    "td",
    "a cell spanning rows takes its columns in the next row too",
  );
});

Deno.test("checkRichText() takes galleries of 2 to 24 images and refuses 1 and 25 (MOD-054)", () => {
  equal(problem(gallery(2)), null);
  equal(problem(gallery(24)), null);
  equal(problem(gallery(1))?.element, "figure");
  equal(problem(gallery(25))?.element, "figure");
  const report = checkRichText(gallery(2));
  deepEqual(report.media, [{ id: M1, kind: "image" }, {
    id: M1,
    kind: "image",
  }]);
});

Deno.test("checkRichText() stores media blocks by id and kind, and lists them for the site check (MOD-055)", () => {
  const report = checkRichText(
    `<figure data-figure="media" data-media="${M1.toUpperCase()}" data-kind="document"><figcaption>File</figcaption></figure>`,
  );
  equal(report.problem, null);
  deepEqual(report.media, [{ id: M1, kind: "document" }]);
  equal(
    problem(`<figure data-figure="media" data-media="${M1}"></figure>`)
      ?.attribute,
    "data-kind",
  );
  equal(
    problem(
      `<figure data-figure="media" data-media="nope" data-kind="image"></figure>`,
    )?.attribute,
    "data-media",
  );
  equal(
    problem(
      `<figure data-figure="media" data-media="${M1}" data-kind="image"><figcaption>a</figcaption><figcaption>b</figcaption></figure>`,
    )?.element,
    "figcaption",
  );
  equal(
    problem("<figure><figcaption>x</figcaption></figure>")?.attribute,
    "data-figure",
  );
});

Deno.test("checkRichText() takes embeds from allowed https origins only, as canonical addresses (MOD-056)", () => {
  const embed = (url: string) =>
    `<figure data-figure="embed" data-provider="youtube" data-url="${url}" data-title="Talk"></figure>`;
  equal(problem(embed("https://www.youtube.com/watch?v=1")), null);
  deepEqual(problem(embed("https://evil.test/x")), {
    element: "figure",
    attribute: "data-url",
    code: "rich_text_invalid",
  });
  equal(problem(embed("http://www.youtube.com/x"))?.attribute, "data-url");
  equal(problem(embed("https://WWW.youtube.com/x"))?.attribute, "data-url");
  equal(
    checkRichText(embed("https://www.youtube.com/watch?v=1")).problem
      ?.attribute,
    "data-url",
    "no origins allowed when none are given",
  );
});

Deno.test("checkRichText() reads plugin blocks as figure data-block, data-type, data-version, data-values (PEXT-028)", () => {
  const block = (attrs: string) => `<figure ${attrs}></figure>`;
  const report = checkRichText(
    block(
      `data-block="acme.cta" data-type="button" data-version="2" data-values='{"label":"Go"}'`,
    ),
  );
  equal(report.problem, null);
  deepEqual(report.blocks, [{
    block: "acme.cta",
    type: "button",
    version: 2,
    values: { label: "Go" },
  }]);
  equal(
    problem(
      block(
        `data-block="acme.cta" data-type="button" data-version="0" data-values="{}"`,
      ),
    )?.attribute,
    "data-version",
  );
  equal(
    problem(
      block(
        `data-block="acme.cta" data-type="button" data-version="1" data-values="[1]"`,
      ),
    )?.attribute,
    "data-values",
  );
  equal(
    problem(block(`data-block="acme.cta" data-type="button" data-version="1"`))
      ?.attribute,
    "data-values",
  );
});

Deno.test("checkRichText() counts a document with only empty paragraphs as empty", () => {
  equal(checkRichText("<p> </p>\n<p>&nbsp;</p>").hasContent, false);
  equal(checkRichText("").hasContent, false);
  equal(checkRichText("<hr>").hasContent, true);
});
