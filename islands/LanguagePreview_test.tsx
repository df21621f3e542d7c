import { equal, match } from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import {
  describeLanguage,
  languageLabel,
  LanguagePreview,
} from "./LanguagePreview.tsx";

Deno.test("describeLanguage() greets by base language and admits unknown ones", () => {
  equal(describeLanguage("de-AT").greeting, "Hallo");
  equal(describeLanguage("FR").name, "Français");
  equal(describeLanguage("tlh").greeting, null);
  equal(describeLanguage("tlh").name, "tlh");
});

Deno.test("languageLabel() tells regional variants apart and leaves unknown codes as they are", () => {
  equal(languageLabel("de"), "Deutsch");
  equal(languageLabel("de-AT"), "Deutsch (de-AT)");
  equal(languageLabel("tlh-QO"), "tlh-QO");
});

Deno.test("LanguagePreview renders one root, the default language pressed and buttons disabled until hydrated", () => {
  const html = renderToString(
    <LanguagePreview languages={["en", "tlh"]} defaultLanguage="tlh" />,
  );
  match(html, /^<section class="card language-preview">.*<\/section>$/);
  match(
    html,
    /<button type="button" lang="tlh" aria-pressed="true" disabled>tlh<\/button>/,
  );
  match(
    html,
    /<p role="status" class="greeting"><span lang="tlh">…<\/span> <span class="muted">tlh \(tlh\): no greeting known<\/span><\/p>/,
  );
});
