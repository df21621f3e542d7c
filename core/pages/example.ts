// This module is browser compatible.
// The demo site's home page and shared footer as page documents in English and German; the
// documentation's complete example and many tests read the same documents.
import type { PageDocument } from "./parse.ts";

type Locale = "en" | "de";

const T = {
  en: {
    heroHeading: "Content that stays in shape",
    heroSub:
      "Model your content, write it in every language, publish it through one fast API.",
    start: "Start writing",
    docs: "Read the docs",
    eyebrow: "Headless CMS",
    featuresHeading: "Why teams choose Stave",
    features: [
      ["Typed models", "Fields, relations and validation you define once."],
      ["Every language", "Per-language slugs with a fallback you choose."],
      ["Fast reads", "Published answers straight from PostgreSQL."],
    ],
    cardsHeading: "Where to go next",
    cards: [
      ["Guides", "Step by step from first model to live site.", "/posts"],
      ["API reference", "Every route of the public read API.", "/docs"],
    ],
    more: "Learn more",
    faqHeading: "Questions",
    faq: [
      [
        "Can editors preview drafts?",
        "Yes. A preview link shows the current draft for 30 minutes.",
      ],
      [
        "Does Stave render my site?",
        "Your front end renders pages from the page documents Stave serves.",
      ],
    ],
    formHeading: "Contact us",
    formBody: "Tell us about your project; we answer within two working days.",
    name: "Your name",
    email: "Email address",
    topic: "Topic",
    topics: ["Sales", "Support", "Press"],
    message: "Message",
    consent: "I agree that Stave stores my message to answer it.",
    send: "Send message",
    thanks: "Thank you. We will be in touch soon.",
    footerHeading: "Stave",
    footerBody: "A headless CMS for teams who write in more than one language.",
    contact: "Get in touch",
  },
  de: {
    heroHeading: "Inhalte, die in Form bleiben",
    heroSub:
      "Modellieren Sie Inhalte, schreiben Sie in jeder Sprache, veröffentlichen Sie über eine schnelle API.",
    start: "Jetzt schreiben",
    docs: "Dokumentation lesen",
    eyebrow: "Headless CMS",
    featuresHeading: "Warum Teams Stave wählen",
    features: [
      [
        "Typisierte Modelle",
        "Felder, Beziehungen und Prüfungen einmal festlegen.",
      ],
      [
        "Jede Sprache",
        "Eigene Adressen je Sprache mit wählbarer Rückfallsprache.",
      ],
      ["Schnelles Lesen", "Veröffentlichte Antworten direkt aus PostgreSQL."],
    ],
    cardsHeading: "Wie es weitergeht",
    cards: [
      [
        "Anleitungen",
        "Schritt für Schritt vom ersten Modell zur Website.",
        "/posts",
      ],
      ["API-Referenz", "Jede Route der öffentlichen Lese-API.", "/docs"],
    ],
    more: "Mehr erfahren",
    faqHeading: "Fragen",
    faq: [
      [
        "Können Redakteure Entwürfe ansehen?",
        "Ja. Ein Vorschaulink zeigt den aktuellen Entwurf 30 Minuten lang.",
      ],
      [
        "Stellt Stave meine Website dar?",
        "Ihr Frontend stellt Seiten aus den Seitendokumenten dar, die Stave ausliefert.",
      ],
    ],
    formHeading: "Kontakt",
    formBody:
      "Erzählen Sie uns von Ihrem Projekt; wir antworten innerhalb von zwei Werktagen.",
    name: "Ihr Name",
    email: "E-Mail-Adresse",
    topic: "Thema",
    topics: ["Vertrieb", "Unterstützung", "Presse"],
    message: "Nachricht",
    consent:
      "Ich bin einverstanden, dass Stave meine Nachricht zur Beantwortung speichert.",
    send: "Nachricht senden",
    thanks: "Danke. Wir melden uns bald.",
    footerHeading: "Stave",
    footerBody:
      "Ein Headless CMS für Teams, die in mehr als einer Sprache schreiben.",
    contact: "Kontakt aufnehmen",
  },
} as const;

const plain = (id: string, type: string) => ({
  id,
  type,
  variant: "default",
  layout: "default",
  component: null,
});

/** A library image the hero shows: its media id and delivery URL. */
export interface ExampleImage {
  media_id: string;
  url: string;
}

/**
 * The demo home page; `footer` is the entry id of the shared footer section, if any, and
 * `hero` a library image (without one the hero names a static picture no preview can present).
 */
export function exampleHomePage(
  locale: Locale,
  footer?: string,
  hero?: ExampleImage,
): PageDocument {
  const t = T[locale];
  const sections: Record<string, unknown>[] = [
    { ...plain("hero", "hero"), layout: "media_side=end" },
    {
      ...plain("features", "feature_grid"),
      appearance: { background: "muted" },
    },
    plain("next", "cards"),
    plain("questions", "faq"),
    { ...plain("contact", "form"), appearance: { spacing: "roomy" } },
  ];
  if (footer) {
    sections.push({ ...plain("footer", "shared"), shared: { entry: footer } });
  }
  const props: Record<string, Record<string, unknown>> = {
    hero: {
      heading: t.heroHeading,
      subheading: t.heroSub,
      media: {
        media_id: hero?.media_id ?? "demo-hero",
        url: hero?.url ?? "/_static/demo/hero.svg",
        alt: null,
        focal: { x: 0.5, y: 0.4 },
      },
      link: { label: t.start, href: "/admin" },
      eyebrow: t.eyebrow,
      secondary_link: { label: t.docs, href: "#docs" },
    },
    features: {
      heading: t.featuresHeading,
      features: t.features.map(([title, body]) => ({ title, body })),
    },
    next: {
      heading: t.cardsHeading,
      items: t.cards.map(([title, body, href]) => ({
        title,
        body,
        media: null,
        link: { label: t.more, href },
      })),
    },
    questions: {
      heading: t.faqHeading,
      items: t.faq.map(([question, answer]) => ({ question, answer })),
    },
    contact: {
      heading: t.formHeading,
      body: t.formBody,
      fields: [
        field("name", "text", t.name, true),
        field("email", "email", t.email, true),
        { ...field("topic", "select", t.topic, false), options: [...t.topics] },
        field("message", "textarea", t.message, true),
      ],
      consent: t.consent,
      submit_label: t.send,
      success_text: t.thanks,
    },
  };
  if (footer) props.footer = {};
  return {
    format: 2,
    sections: sections as unknown as PageDocument["sections"],
    props,
  };
}

/** The demo's shared footer: the sections of one shared_section entry. */
export function exampleFooter(locale: Locale): PageDocument {
  const t = T[locale];
  return {
    format: 2,
    sections: [
      { ...plain("about", "rich_text"), appearance: { background: "inverse" } },
      plain("reach", "cta"),
    ] as unknown as PageDocument["sections"],
    props: {
      about: { heading: t.footerHeading, paragraphs: [t.footerBody] },
      reach: {
        heading: t.contact,
        body: null,
        link: { label: t.formHeading, href: "#contact" },
      },
    },
  };
}

function field(name: string, kind: string, label: string, required: boolean) {
  return { name, kind, label, required, help: null, options: [] as string[] };
}
