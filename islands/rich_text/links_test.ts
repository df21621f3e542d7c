// Link addresses typed into the rich-text editor: made into what the service's rich-text rules
// accept, or refused (issue 43: links in rich text).
import { equal } from "node:assert/strict";
import { RULES } from "../../core/models/rich_text_rules.ts";
import { safeLinkHref } from "./links.ts";

Deno.test("safeLinkHref() keeps https, http, mailto, tel and site paths, and completes bare domains and emails", () => {
  equal(
    safeLinkHref("https://example.com/a?b=1#c"),
    "https://example.com/a?b=1#c",
  );
  equal(safeLinkHref(" http://example.com "), "http://example.com");
  equal(safeLinkHref("mailto:team@example.com"), "mailto:team@example.com");
  equal(safeLinkHref("tel:+441234567890"), "tel:+441234567890");
  equal(safeLinkHref("/about"), "/about");
  equal(safeLinkHref("#part"), "#part");
  equal(safeLinkHref("example.com/guide"), "https://example.com/guide");
  equal(safeLinkHref("www.example.com"), "https://www.example.com");
  equal(safeLinkHref("team@example.com"), "mailto:team@example.com");
});

Deno.test("safeLinkHref() refuses what the service's sanitiser refuses", () => {
  for (
    const bad of [
      "javascript:alert(1)",
      "JavaScript:alert(1)",
      "data:text/html,<script>",
      "vbscript:x",
      "//evil.example/x",
      "https://exa mple.com",
      "",
      "   ",
      "relative/path",
    ]
  ) {
    equal(safeLinkHref(bad), null, bad);
  }
  // Whatever it answers, the server's rule for `a[href]` accepts (MOD-052: the write reads it strictly).
  for (const typed of ["example.com", "a@b.co", "/x", "https://x.y/z"]) {
    equal(RULES.a.attrs.href(safeLinkHref(typed)!), null, typed);
  }
});
