// This module is browser compatible.
// An island on the admin home: pick one of the site's languages and see a greeting in it.
import { useEffect, useState } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** Props: the site's language codes, the default first, as plain JSON. */
export type LanguagePreviewProps = {
  languages: string[];
  defaultLanguage: string;
};

// A fixed table rather than Intl.DisplayNames: the server's and the browser's ICU data may
// differ, and the hydrated text must match what the server rendered.
const GREETINGS: Readonly<Record<string, { name: string; greeting: string }>> =
  {
    cs: { name: "Čeština", greeting: "Dobrý den" },
    da: { name: "Dansk", greeting: "Hej" },
    de: { name: "Deutsch", greeting: "Hallo" },
    en: { name: "English", greeting: "Hello" },
    es: { name: "Español", greeting: "Hola" },
    fi: { name: "Suomi", greeting: "Hei" },
    fr: { name: "Français", greeting: "Bonjour" },
    it: { name: "Italiano", greeting: "Ciao" },
    ja: { name: "日本語", greeting: "こんにちは" },
    nl: { name: "Nederlands", greeting: "Hallo" },
    pl: { name: "Polski", greeting: "Dzień dobry" },
    pt: { name: "Português", greeting: "Olá" },
    sv: { name: "Svenska", greeting: "Hej" },
  };

/** The name and greeting of a language code, by its base language (`de-AT` -> `de`). */
export function describeLanguage(
  code: string,
): { name: string; greeting: string | null } {
  const known = GREETINGS[code.split("-")[0].toLowerCase()];
  return known ?? { name: code, greeting: null };
}

/** A button's label: the language's name, with the code when it names a regional variant. */
export function languageLabel(code: string): string {
  const { name } = describeLanguage(code);
  return name !== code && code.includes("-") ? `${name} (${code})` : name;
}

/**
 * Buttons for each language and a live line greeting in the chosen one. The buttons are
 * rendered disabled and enabled once hydrated, so they never look usable without script.
 */
export function LanguagePreview(
  { languages, defaultLanguage }: LanguagePreviewProps,
) {
  const [selected, setSelected] = useState(defaultLanguage);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const { name, greeting } = describeLanguage(selected);
  return (
    <section class="card language-preview">
      <h2>Language preview</h2>
      <div role="group" aria-label="Languages" class="buttons">
        {languages.map((code) => (
          <button
            key={code}
            type="button"
            lang={code}
            aria-pressed={code === selected ? "true" : "false"}
            disabled={!hydrated}
            onClick={() => setSelected(code)}
          >
            {languageLabel(code)}
          </button>
        ))}
      </div>
      <p role="status" class="greeting">
        <span lang={selected}>{greeting ?? "…"}</span>{" "}
        <span class="muted">
          {name} ({selected}){greeting === null ? ": no greeting known" : ""}
        </span>
      </p>
    </section>
  );
}

export default island("LanguagePreview", LanguagePreview);
