// The demo site's words: post titles in English and German, the topics their bodies are drawn
// from, the authors and the internal notes. Kept apart from the seeding code so the text reads
// like a small real publication (issue 17 point 7) and the code stays short.

/** A post's titles; `de` is null for posts that exist only in English. */
export interface DemoPostText {
  en: string;
  de: string | null;
}

/** One title pair per post, in publication order; the topic of post `i` is `DEMO_TOPICS[i % 8]`. */
export const DEMO_POST_TITLES: DemoPostText[] = [
  {
    en: "Caching at the edge without stale pages",
    de: "Caching am Netzrand ohne veraltete Seiten",
  },
  {
    en: "Schema migrations you can undo",
    de: "Schema-Migrationen, die sich rückgängig machen lassen",
  },
  {
    en: "A review workflow editors actually use",
    de: "Ein Freigabeablauf, den die Redaktion wirklich nutzt",
  },
  {
    en: "When a page has no German version yet",
    de: "Wenn es eine Seite noch nicht auf Deutsch gibt",
  },
  {
    en: "Small islands of JavaScript on quiet pages",
    de: "Kleine JavaScript-Inseln auf ruhigen Seiten",
  },
  {
    en: "Linking posts to tags without orphans",
    de: "Beiträge mit Schlagwörtern verknüpfen, ohne Waisen",
  },
  {
    en: "The index that halved our list times",
    de: "Der Index, der unsere Listen doppelt so schnell machte",
  },
  {
    en: "Previewing drafts on the real site",
    de: "Entwürfe auf der echten Website ansehen",
  },
  {
    en: "What an ETag saves on a busy morning",
    de: "Was ein ETag an einem vollen Morgen spart",
  },
  {
    en: "Renaming a field while the site stays up",
    de: "Ein Feld umbenennen, während die Website läuft",
  },
  {
    en: "Proposals: suggesting changes without overwriting",
    de: "Vorschläge: Änderungen anregen, ohne zu überschreiben",
  },
  {
    en: "Choosing a fallback language for every market",
    de: "Eine Rückfallsprache für jeden Markt wählen",
  },
  { en: "Hydrating only the search box", de: "Nur das Suchfeld hydrieren" },
  {
    en: "Related articles from links editors already made",
    de: "Verwandte Artikel aus Verknüpfungen der Redaktion",
  },
  {
    en: "Reading a query plan over coffee",
    de: "Einen Abfrageplan beim Kaffee lesen",
  },
  {
    en: "Sharing a preview link with a client",
    de: "Einen Vorschaulink mit der Kundschaft teilen",
  },
  {
    en: "Kept answers and the cost of a publish",
    de: "Gespeicherte Antworten und der Preis einer Veröffentlichung",
  },
  {
    en: "Moving from a spreadsheet to structured content",
    de: "Von der Tabelle zu strukturierten Inhalten",
  },
  {
    en: "Scheduling the Monday newsletter",
    de: "Den Newsletter am Montag planen",
  },
  {
    en: "Translating slugs, not just titles",
    de: "Slugs übersetzen, nicht nur Titel",
  },
  {
    en: "A rich-text editor that saves clean HTML",
    de: "Ein Texteditor, der sauberes HTML speichert",
  },
  {
    en: "Many tags, one post, and a limit of five",
    de: "Viele Schlagwörter, ein Beitrag und höchstens fünf",
  },
  {
    en: "Full-text search in two languages",
    de: "Volltextsuche in zwei Sprachen",
  },
  {
    en: "Checking a page on a phone before it goes live",
    de: "Eine Seite vor dem Start auf dem Handy prüfen",
  },
  {
    en: "Sync tokens for apps that work offline",
    de: "Sync-Tokens für Apps, die offline funktionieren",
  },
  {
    en: "Importing ten years of archive posts",
    de: "Zehn Jahre Archivbeiträge importieren",
  },
  {
    en: "Who may publish, and who may only suggest",
    de: "Wer veröffentlichen darf und wer nur vorschlagen",
  },
  {
    en: "Dates, numbers and the reader's language",
    de: "Datum, Zahlen und die Sprache der Lesenden",
  },
  {
    en: "Forms that work before the script arrives",
    de: "Formulare, die schon vor dem Skript funktionieren",
  },
  {
    en: "Deleting a tag that fifty posts still use",
    de: "Ein Schlagwort löschen, das noch fünfzig Beiträge nutzen",
  },
  {
    en: "Cursor pages that stay fast on page fifty",
    de: "Cursor-Seiten, die auch auf Seite fünfzig schnell bleiben",
  },
  {
    en: "Comparing two versions side by side",
    de: "Zwei Fassungen nebeneinander vergleichen",
  },
  {
    en: "Purging one answer instead of the whole site",
    de: "Eine Antwort verwerfen statt der ganzen Website",
  },
  {
    en: "Backups we actually restored",
    de: "Sicherungen, die wir wirklich zurückgespielt haben",
  },
  { en: "Restoring last week's wording", de: null },
  { en: "Right-to-left text in a left-to-right admin", de: null },
  { en: "Keyboard first: editing without a mouse", de: null },
  { en: "Menus built from the content tree", de: null },
  { en: "Why we sort text byte by byte", de: null },
  { en: "Alt text as part of the review", de: null },
  { en: "Warming the cache after a deploy", de: null },
  { en: "Splitting one model into two", de: null },
  { en: "An editorial calendar for a small team", de: null },
  { en: "Launching a third language", de: null },
];

/** What a topic's posts are about: a heading and paragraphs, in both languages. */
export interface DemoTopic {
  en: { heading: string; paragraphs: string[] };
  de: { heading: string; paragraphs: string[] };
}

export const DEMO_TOPICS: DemoTopic[] = [
  {
    en: {
      heading: "Fast by default",
      paragraphs: [
        "A reader should never wait for a database on a page nobody changed. We keep each answer with a fingerprint, and a publish throws away exactly the answers it touched.",
        "The browser helps too: with an ETag it asks whether its copy is still good, and a short answer saying so costs almost nothing to send.",
        "Caching is only worth it if editors never see an old page after they press Publish, so every rule starts from that promise.",
      ],
    },
    de: {
      heading: "Schnell von Anfang an",
      paragraphs: [
        "Niemand sollte auf eine Datenbank warten, wenn sich an einer Seite nichts geändert hat. Wir bewahren jede Antwort mit einem Fingerabdruck auf, und eine Veröffentlichung verwirft genau die Antworten, die sie betrifft.",
        "Auch der Browser hilft: Mit einem ETag fragt er, ob seine Kopie noch gilt, und die kurze Antwort darauf kostet fast nichts.",
        "Caching lohnt sich nur, wenn die Redaktion nach dem Veröffentlichen nie eine alte Seite sieht; jede Regel beginnt bei diesem Versprechen.",
      ],
    },
  },
  {
    en: {
      heading: "Changing the shape of content",
      paragraphs: [
        "Content models change as a site grows: a field is added, renamed or split. Every change runs as a migration that can be reviewed before it touches a single entry.",
        "We test each migration against a copy of real data first, and a change that would lose values is refused with the names of the entries it would hurt.",
        "A migration is finished only when the old shape is gone from the code as well as from the database.",
      ],
    },
    de: {
      heading: "Die Form von Inhalten ändern",
      paragraphs: [
        "Inhaltsmodelle wachsen mit der Website: Ein Feld kommt hinzu, wird umbenannt oder geteilt. Jede Änderung läuft als Migration, die sich prüfen lässt, bevor sie einen Eintrag berührt.",
        "Wir testen jede Migration zuerst an einer Kopie echter Daten; eine Änderung, die Werte verlieren würde, wird mit den Namen der betroffenen Einträge abgelehnt.",
        "Eine Migration ist erst fertig, wenn die alte Form aus dem Code und aus der Datenbank verschwunden ist.",
      ],
    },
  },
  {
    en: {
      heading: "How the newsroom works",
      paragraphs: [
        "Writers save drafts as often as they like; nothing reaches readers until someone with the right to publish says so.",
        "A colleague who may not publish can still propose a change. The author sees it beside the current text and takes it, edits it or declines it.",
        "Every version is kept, so a wording from last week is one click away, and the history says who changed what.",
      ],
    },
    de: {
      heading: "Wie die Redaktion arbeitet",
      paragraphs: [
        "Autorinnen und Autoren speichern Entwürfe so oft sie wollen; zu den Lesenden gelangt nichts, bevor jemand mit dem Recht dazu veröffentlicht.",
        "Wer nicht veröffentlichen darf, kann trotzdem eine Änderung vorschlagen. Sie erscheint neben dem aktuellen Text und wird übernommen, bearbeitet oder abgelehnt.",
        "Jede Fassung bleibt erhalten: Eine Formulierung von letzter Woche ist einen Klick entfernt, und der Verlauf zeigt, wer was geändert hat.",
      ],
    },
  },
  {
    en: {
      heading: "Many languages, one site",
      paragraphs: [
        "Not every article is translated on day one. A German reader then sees the English text, marked as such, instead of an empty page.",
        "Each language keeps its own address, so a translated post gets a slug in its own words and search engines see both.",
        "Fallbacks are a setting, not a habit of the code: a site that would rather show nothing can say so.",
      ],
    },
    de: {
      heading: "Viele Sprachen, eine Website",
      paragraphs: [
        "Nicht jeder Artikel ist am ersten Tag übersetzt. Wer Deutsch liest, sieht dann den englischen Text, gekennzeichnet, statt einer leeren Seite.",
        "Jede Sprache hat ihre eigene Adresse: Ein übersetzter Beitrag bekommt einen Slug in eigenen Worten, und Suchmaschinen finden beide.",
        "Rückfallsprachen sind eine Einstellung, keine Gewohnheit des Codes: Eine Website, die lieber nichts zeigt, kann das festlegen.",
      ],
    },
  },
  {
    en: {
      heading: "JavaScript only where it helps",
      paragraphs: [
        "Pages are rendered on the server and work before any script loads. Where a page needs interaction, a small island takes over just that part.",
        "A form posts and answers like any form; with the island loaded, it also shows progress and keeps what you typed when something fails.",
        "Fewer scripts mean faster phones, fewer things to break and a page that still reads well on a slow train.",
      ],
    },
    de: {
      heading: "JavaScript nur, wo es hilft",
      paragraphs: [
        "Seiten entstehen auf dem Server und funktionieren, bevor ein Skript lädt. Wo eine Seite Interaktion braucht, übernimmt eine kleine Insel genau diesen Teil.",
        "Ein Formular sendet und antwortet wie jedes Formular; mit geladener Insel zeigt es zusätzlich den Fortschritt und behält Eingaben, wenn etwas schiefgeht.",
        "Weniger Skripte heißen schnellere Handys, weniger Fehlerquellen und eine Seite, die sich auch im langsamen Zug gut liest.",
      ],
    },
  },
  {
    en: {
      heading: "Content that points to content",
      paragraphs: [
        "A post links to its tags, a page to the sections it shares. Those links are checked when you save, so a reader never follows one into nothing.",
        "The other direction is free: ask for a tag and you get the posts that name it, newest first, without anyone keeping a second list.",
        "Deleting something others still point to asks first and tells you exactly who would be left holding a broken link.",
      ],
    },
    de: {
      heading: "Inhalte, die auf Inhalte zeigen",
      paragraphs: [
        "Ein Beitrag verweist auf seine Schlagwörter, eine Seite auf gemeinsame Abschnitte. Die Verweise werden beim Speichern geprüft, damit niemand ins Leere klickt.",
        "Die Gegenrichtung gibt es geschenkt: Zu einem Schlagwort kommen die Beiträge, die es nennen, die neuesten zuerst, ohne dass jemand eine zweite Liste pflegt.",
        "Wer etwas löschen will, auf das noch andere zeigen, wird zuerst gefragt und erfährt genau, wo ein Verweis ins Leere liefe.",
      ],
    },
  },
  {
    en: {
      heading: "Measured, not guessed",
      paragraphs: [
        "Every list the site shows is backed by an index chosen for it, and the benchmark says how long a page takes at ten thousand and at a million entries.",
        "When a list got slow we read the query plan before changing anything; most of the time one missing index was the whole story.",
        "Numbers go into the repository with the machine and the command that produced them, so anyone can run them again.",
      ],
    },
    de: {
      heading: "Gemessen, nicht geraten",
      paragraphs: [
        "Hinter jeder Liste der Website steht ein eigens gewählter Index, und der Benchmark zeigt, wie lange eine Seite bei zehntausend und bei einer Million Einträgen braucht.",
        "Als eine Liste langsam wurde, lasen wir zuerst den Abfrageplan; meistens war ein fehlender Index die ganze Geschichte.",
        "Die Zahlen kommen mit Rechner und Befehl ins Repository, damit sie jeder wiederholen kann.",
      ],
    },
  },
  {
    en: {
      heading: "See it before readers do",
      paragraphs: [
        "A preview shows the draft exactly as the live site will, on the real pages, to people holding a short-lived link.",
        "Preview links expire on their own and can be withdrawn at once; they never open anything but the drafts they were made for.",
        "Checking a page on a phone, with real images and alt text, catches more mistakes than any spell checker.",
      ],
    },
    de: {
      heading: "Sehen, bevor es die Lesenden sehen",
      paragraphs: [
        "Eine Vorschau zeigt den Entwurf genau so, wie ihn die Website zeigen wird, auf den echten Seiten, für alle mit einem kurzlebigen Link.",
        "Vorschaulinks laufen von selbst ab und lassen sich sofort zurückziehen; sie öffnen nie mehr als die Entwürfe, für die sie gedacht sind.",
        "Eine Seite auf dem Handy zu prüfen, mit echten Bildern und Alternativtexten, findet mehr Fehler als jede Rechtschreibprüfung.",
      ],
    },
  },
];

/** The people whose names stand above the posts; post `i` is by author `i % 4`. */
export const DEMO_AUTHORS: {
  slug: string;
  name: string;
  bio: { en: string; de: string };
}[] = [
  {
    slug: "mara-lindqvist",
    name: "Mara Lindqvist",
    bio: {
      en: "Editor in chief; writes about how the newsroom works.",
      de: "Chefredakteurin; schreibt über die Arbeit der Redaktion.",
    },
  },
  {
    slug: "tomas-ferreira",
    name: "Tomás Ferreira",
    bio: {
      en: "Back-end engineer with a soft spot for query plans.",
      de: "Backend-Entwickler mit einer Schwäche für Abfragepläne.",
    },
  },
  {
    slug: "aiko-tanaka",
    name: "Aiko Tanaka",
    bio: {
      en: "Designs the admin and tests every page on a phone.",
      de: "Gestaltet die Verwaltung und prüft jede Seite auf dem Handy.",
    },
  },
  {
    slug: "jonas-weber",
    name: "Jonas Weber",
    bio: {
      en: "Looks after translations and the German edition.",
      de: "Kümmert sich um Übersetzungen und die deutsche Ausgabe.",
    },
  },
];

/** Internal notes: private to editors and scoped tokens. */
export const DEMO_NOTES: { title: string; text: string }[] = [
  {
    title: "Launch checklist",
    text:
      "Redirects for the old archive, alt text on every cover, and a last look on a phone.",
  },
  {
    title: "Style guide questions",
    text:
      "Do we write “e-mail” or “email”? Decide before the German edition copies either.",
  },
  {
    title: "Photo credits to confirm",
    text:
      "The harbour and forest covers are ours; ask about the grid before we print it.",
  },
];
