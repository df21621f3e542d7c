import { equal, throws } from "node:assert/strict";
import fc from "fast-check";
import { checkUrlText, textProblem } from "./request_text.ts";

Deno.test("URL text: a parsed URL without % never hides NUL or a lone surrogate, so the check may skip it", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: "binary", maxLength: 40 }),
      (path, query) => {
        const url = new URL(`http://localhost/${path}?${query}`);
        if (url.pathname.includes("%") || url.search.includes("%")) return;
        for (const part of (url.pathname + url.search).split(/[/?&=]/)) {
          equal(
            textProblem(decodeURIComponent(part.replaceAll("+", " "))),
            null,
          );
        }
        checkUrlText(url);
      },
    ),
    { numRuns: 5000 },
  );
});

Deno.test("URL text: NUL, lone surrogates and bad percent-encoding are refused wherever they are", () => {
  for (
    const bad of [
      "/v1/a%00b",
      "/v1/posts?tag=%00",
      "/v1/posts?filter[x]=%ED%A0%80",
      "/v1/posts?q=%E0%A4%A",
      "/%FF",
    ]
  ) {
    throws(() => checkUrlText(new URL(`http://localhost${bad}`)), bad);
  }
  checkUrlText(new URL("http://localhost/v1/posts?fields=title,published_at"));
});
