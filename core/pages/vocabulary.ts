// This module is browser compatible.
// The page-document vocabulary (spec 3 part 2.2) as data: the one source the parser, the JSON
// Schema and the admin's section forms are all derived from.

/** Page document formats this service reads (`PAGE_FORMATS`). */
export const PAGE_FORMATS = [2, 3] as const;

/** Limits the spec leaves open, chosen by Stave (docs/pages.md, "Limits"). */
export const PAGE_LIMITS = {
  /** Sections of one page, shared sections expanded. */
  sections: 60,
  /** Sections one shared section holds (spec 3 part 8). */
  sharedSections: 6,
  /** Characters of a short text (heading, label, name, title). */
  shortText: 300,
  /** Characters of a long text (body, paragraph, answer, quote). */
  longText: 10_000,
  /** Formatting runs of one paragraph. */
  runs: 64,
  /** Characters of an href or media url. */
  href: 2048,
  /** Characters of a section id. */
  sectionId: 64,
} as const;

/** Marks a formatting run may carry. */
export const RUN_MARKS = ["bold", "italic", "code"] as const;

/** Values of a section's optional `appearance`. */
export const APPEARANCE = {
  background: ["muted", "inverse", "accent"],
  spacing: ["compact", "roomy"],
  motion: ["reveal", "parallax"],
} as const;

/** Form field kinds. */
export const FORM_FIELD_KINDS = [
  "text",
  "email",
  "phone",
  "textarea",
  "select",
  "checkbox",
  "file",
] as const;

/** The image and document catalogue a file field's `accept` may name (empty allows all). */
export const FILE_CATALOGUE: readonly { type: string; extensions: string[] }[] =
  [
    { type: "image/jpeg", extensions: [".jpg", ".jpeg"] },
    { type: "image/png", extensions: [".png"] },
    { type: "image/gif", extensions: [".gif"] },
    { type: "image/webp", extensions: [".webp"] },
    { type: "image/avif", extensions: [".avif"] },
    { type: "application/pdf", extensions: [".pdf"] },
    { type: "text/plain", extensions: [".txt"] },
    { type: "text/csv", extensions: [".csv"] },
    { type: "application/rtf", extensions: [".rtf"] },
    { type: "application/msword", extensions: [".doc"] },
    {
      type:
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      extensions: [".docx"],
    },
    { type: "application/vnd.ms-excel", extensions: [".xls"] },
    {
      type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      extensions: [".xlsx"],
    },
    {
      type: "application/vnd.oasis.opendocument.text",
      extensions: [".odt"],
    },
    {
      type: "application/vnd.oasis.opendocument.spreadsheet",
      extensions: [".ods"],
    },
  ];

/** File field limits (spec 3 parts 2.2 and 8). */
export const FILE_LIMITS = {
  accept: 10,
  maxFiles: 5,
  maxBytes: 5_242_880,
} as const;

/** Model and field names of a latest-entries section. */
export const NAME_PATTERN = "^[a-z][a-z0-9_-]{0,63}$";
/** Form field names. */
export const FIELD_NAME_PATTERN = "^[a-z][a-z0-9_]{0,31}$";
/** Phone numbers of a contact section. */
export const PHONE_PATTERN = "^\\+?[0-9 ().-]{3,40}$";
/** One email address (never a mailto link). */
export const EMAIL_PATTERN =
  '^[^\\s@<>(),;:"]+@[^\\s@<>(),;:"]+\\.[^\\s@<>(),;:"]+$';
/** Section ids; delivery appends `.<n>` to the ids of expanded shared sections. */
export const SECTION_ID_PATTERN = "^[A-Za-z0-9_-]{1,64}(\\.[0-9]{1,2})?$";
/** Variants. */
export const VARIANT_PATTERN = "^[a-z][a-z0-9_-]{0,31}$";
/** Layouts: `default` or `key=value` pairs joined by `;`. */
export const LAYOUT_PATTERN =
  "^(default|[a-z][a-z0-9_]{0,31}=[a-z0-9_-]{1,32}(;[a-z][a-z0-9_]{0,31}=[a-z0-9_-]{1,32}){0,7})$";
/** Schemes and forms an href may take (never `javascript:` or `data:`). */
export const HREF_PATTERN =
  "^(https?://[^\\s]+|/[^\\s]*|#[^\\s]*|mailto:[^\\s]+|tel:[^\\s]+)$";
/** SHA-256 digests in lowercase hex. */
export const DIGEST_PATTERN = "^[0-9a-f]{64}$";

/** One prop of a section type or list item. */
export type PropSpec =
  | {
    kind: "text";
    required?: boolean;
    /** Left out when absent; explicit null or "" is `noncanonical_default`. */
    later?: boolean;
    max?: number;
    pattern?: string;
    /** Text that may span lines (bodies, answers); only a hint for editors. */
    long?: boolean;
  }
  | { kind: "paragraphs"; min: number; max: number }
  | { kind: "link"; required?: boolean; later?: boolean; https?: boolean }
  | { kind: "media"; required?: boolean }
  | { kind: "integer"; min: number; max: number }
  | { kind: "true_flag" }
  | { kind: "texts"; min: number; max: number }
  | { kind: "items"; min: number; max: number; item: ItemSpec }
  | { kind: "form_fields"; min: number; max: number }
  | { kind: "custom_fields" };

/** A closed list item, or a union of them chosen by `kind`. */
export type ItemSpec =
  | { kind: "object"; props: Record<string, PropSpec> }
  | { kind: "union"; variants: Record<string, Record<string, PropSpec>> };

const text = (
  options: Omit<Extract<PropSpec, { kind: "text" }>, "kind"> = {},
): PropSpec => ({ kind: "text", ...options });
const long = (
  options: Omit<Extract<PropSpec, { kind: "text" }>, "kind"> = {},
): PropSpec => ({ kind: "text", long: true, ...options });
const link = (
  options: Omit<Extract<PropSpec, { kind: "link" }>, "kind"> = {},
): PropSpec => ({ kind: "link", ...options });
const media = (required = false): PropSpec => ({ kind: "media", required });
const items = (
  min: number,
  max: number,
  props: Record<string, PropSpec>,
): PropSpec => ({ kind: "items", min, max, item: { kind: "object", props } });
const paragraphs: PropSpec = { kind: "paragraphs", min: 1, max: 12 };
const name = (required: boolean): PropSpec =>
  text({ required, pattern: NAME_PATTERN, max: 64 });

/** Every section type with its props, in the spec's order. */
export const SECTION_TYPES = {
  hero: {
    heading: text({ required: true }),
    subheading: long(),
    media: media(),
    link: link(),
    eyebrow: text({ later: true }),
    secondary_link: link({ later: true }),
  },
  rich_text: { heading: text(), paragraphs },
  text_media: { heading: text(), paragraphs, media: media() },
  feature_grid: {
    heading: text(),
    features: items(1, 12, { title: text(), body: long() }),
  },
  cta: {
    heading: text({ required: true }),
    body: long(),
    link: link({ required: true }),
    secondary_link: link({ later: true }),
  },
  cards: {
    heading: text(),
    items: items(1, 12, {
      title: text({ required: true }),
      body: long(),
      media: media(),
      link: link(),
    }),
  },
  stats: {
    heading: text(),
    items: items(1, 8, {
      value: text({ required: true }),
      label: text({ required: true }),
      note: text(),
    }),
  },
  faq: {
    heading: text(),
    items: items(1, 20, {
      question: text({ required: true }),
      answer: long({ required: true }),
    }),
  },
  testimonials: {
    heading: text(),
    items: items(1, 12, {
      quote: long({ required: true }),
      name: text({ required: true }),
      role: text(),
      media: media(),
    }),
  },
  media: {
    heading: text(),
    items: {
      kind: "items",
      min: 1,
      max: 24,
      item: {
        kind: "union",
        variants: {
          image: { media: media(true), caption: text() },
          video: {
            provider: text({
              required: true,
              pattern: "^(youtube|vimeo)$",
            }),
            video_id: text({
              required: true,
              pattern: "^[A-Za-z0-9_-]{1,64}$",
            }),
            title: text({ required: true }),
            poster: media(),
            caption: text(),
          },
        },
      },
    },
  },
  logos: {
    heading: text(),
    items: items(1, 24, {
      media: media(true),
      name: text({ required: true }),
      link: link(),
    }),
  },
  steps: {
    heading: text(),
    items: items(1, 12, { title: text({ required: true }), body: long() }),
  },
  pricing: {
    heading: text(),
    plans: items(1, 4, {
      name: text({ required: true }),
      price: text({ required: true }),
      period: text(),
      description: long(),
      features: { kind: "texts", min: 0, max: 12 },
      link: link(),
      highlighted: { kind: "true_flag" },
    }),
  },
  menu: {
    heading: text(),
    groups: items(1, 8, {
      title: text(),
      items: items(1, 30, {
        name: text({ required: true }),
        description: long(),
        price: text(),
      }),
    }),
  },
  contact: {
    heading: text(),
    body: long(),
    address: long(),
    hours: items(0, 14, {
      label: text({ required: true }),
      value: text({ required: true }),
    }),
    phone: text({ pattern: PHONE_PATTERN, max: 40 }),
    email: text({ pattern: EMAIL_PATTERN, max: 254 }),
    map_link: link({ https: true }),
    link: link(),
  },
  latest_entries: {
    heading: text(),
    model: name(true),
    title_field: name(true),
    cover_field: name(false),
    summary_field: name(false),
    date_field: name(false),
    limit: { kind: "integer", min: 1, max: 12 },
    empty_text: text({ max: 200 }),
  },
  form: {
    heading: text(),
    body: long(),
    fields: { kind: "form_fields", min: 1, max: 12 },
    consent: long(),
    submit_label: text({ required: true, max: 80 }),
    success_text: long({ required: true }),
  },
  custom: { heading: text(), fields: { kind: "custom_fields" } },
  search: { heading: text(), placeholder: text({ max: 80 }) },
  shared: {},
} as const satisfies Record<string, Record<string, PropSpec>>;

/** A section type's name. */
export type SectionType = keyof typeof SECTION_TYPES;

/** Section types in the spec's order. */
export const SECTION_TYPE_NAMES = Object.keys(SECTION_TYPES) as SectionType[];

/** Types a shared section may hold (docs/pages.md, "Shared sections"). */
export const SHARED_SECTION_TYPES: readonly SectionType[] = SECTION_TYPE_NAMES
  .filter((t) => t !== "shared" && t !== "custom" && t !== "form");

/** The page contract versions and what each added (docs/pages.md, "Contract versions"). */
export const PAGE_CONTRACT = {
  /** Format 2 sections without later fields. */
  base: 1,
  /** Later fields (`eyebrow`, `secondary_link`). */
  laterFields: 2,
  /** Format 3: custom sections pinning registered components. */
  customSections: 3,
  /** File fields in forms. */
  fileFields: 4,
  /** Shared sections. */
  sharedSections: 5,
} as const;

/** Codes a parse may refuse with (spec 3 part 7, page parser codes). */
export type PageErrorCode =
  | "unreadable_page"
  | "noncanonical_default"
  | "invalid_slide"
  | "unknown_section_definition"
  | "unknown_component_version"
  | "shared_section_unexpanded";
