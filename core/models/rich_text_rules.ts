// This module is browser compatible.
// The rich-text allow-list: elements, what each may hold, and the attributes each takes.
import { MEDIA_KINDS, UUID } from "./field_constants.ts";

/** Size and shape limits of rich text (spec 2 part 2.3 item 8 and part 8). */
export const RICH_TEXT_LIMITS = {
  bytes: 256 * 1024,
  columns: 12,
  rows: 200,
  galleryMin: 2,
  galleryMax: 24,
} as const;

/** Checks an attribute value; answers what was expected, or null when it is fine. */
export type Check = (value: string) => string | null;
/** What an element may hold and which attributes it takes. */
export interface Rule {
  children: ReadonlySet<string>;
  text: boolean;
  attrs: Record<string, Check>;
  required?: string[];
}

const oneOf = (...allowed: string[]): Check => (v) =>
  allowed.includes(v) ? null : `expected one of ${allowed.join(", ")}`;
const matches = (re: RegExp, what: string): Check => (v) =>
  re.test(v) ? null : `expected ${what}`;
const intIn = (min: number, max: number): Check => (v) =>
  /^\d{1,6}$/.test(v) && +v >= min && +v <= max
    ? null
    : `expected a whole number from ${min} to ${max}`;
const upTo = (n: number): Check => (v) =>
  v.length <= n ? null : `expected at most ${n} characters`;
const href: Check = (v) => {
  if ([...v].some((c) => c.trim() === "" || c < " ")) {
    return "expected an address without spaces";
  }
  if (/^(https?:\/\/|mailto:|tel:)/i.test(v)) {
    return URL.canParse(v) ? null : "expected a valid address";
  }
  return /^(\/(?!\/)|#|\?)/.test(v)
    ? null
    : "expected an https, http, mailto or tel address, or a path on this site";
};
const uuid = matches(UUID, "a media id (UUID)");

const set = (...names: string[]) => new Set(names);
const INLINE = [
  "#text",
  "a",
  "strong",
  "em",
  "u",
  "s",
  "code",
  "sub",
  "sup",
  "br",
];
const inline: Rule = { children: set(...INLINE), text: true, attrs: {} };
const cell = (extra: Record<string, Check>): Rule => ({
  children: set(...INLINE, "p"),
  text: true,
  attrs: {
    colspan: intIn(1, RICH_TEXT_LIMITS.columns),
    rowspan: intIn(1, RICH_TEXT_LIMITS.rows),
    ...extra,
  },
});
/** Elements without content or closing tag. */
export const VOID = set("br", "hr", "img");
/** The allow-list: every element rich text may use, but figures. */
export const RULES: Record<string, Rule> = {
  "#root": {
    children: set(
      "p",
      "h2",
      "h3",
      "h4",
      "h5",
      "h6",
      "ul",
      "ol",
      "blockquote",
      "pre",
      "hr",
      "table",
      "figure",
    ),
    text: false,
    attrs: {},
  },
  p: inline,
  h2: inline,
  h3: inline,
  h4: inline,
  h5: inline,
  h6: inline,
  strong: inline,
  em: inline,
  u: inline,
  s: inline,
  sub: inline,
  sup: inline,
  a: {
    children: set(...INLINE.filter((n) => n !== "a")),
    text: true,
    attrs: {
      href,
      title: upTo(300),
      target: oneOf("_blank"),
      rel: matches(
        /^(noopener|noreferrer|nofollow|ugc|sponsored)( (noopener|noreferrer|nofollow|ugc|sponsored))*$/,
        "rel words such as noopener",
      ),
    },
    required: ["href"],
  },
  code: { children: set("#text"), text: true, attrs: {} },
  br: { children: set(), text: false, attrs: {} },
  hr: { children: set(), text: false, attrs: {} },
  ul: { children: set("li"), text: false, attrs: {} },
  ol: { children: set("li"), text: false, attrs: { start: intIn(1, 999999) } },
  li: { children: set(...INLINE, "p", "ul", "ol"), text: true, attrs: {} },
  blockquote: { children: set("p", "ul", "ol"), text: false, attrs: {} },
  pre: {
    children: set("#text", "code"),
    text: true,
    attrs: {
      "data-language": matches(/^[A-Za-z0-9+#-]{1,30}$/, "a language name"),
    },
  },
  table: { children: set("thead", "tbody"), text: false, attrs: {} },
  thead: { children: set("tr"), text: false, attrs: {} },
  tbody: { children: set("tr"), text: false, attrs: {} },
  tr: { children: set("th", "td"), text: false, attrs: {} },
  th: cell({ scope: oneOf("row", "col", "rowgroup", "colgroup") }),
  td: cell({}),
  figcaption: inline,
  img: {
    children: set(),
    text: false,
    attrs: { "data-media": uuid, alt: upTo(1000) },
    required: ["data-media"],
  },
};
/** Figures by kind: built-in media, gallery and embed, and plugin blocks. */
export const FIGURES: Record<
  string,
  {
    attrs: Record<string, Check>;
    required: string[];
    children: ReadonlySet<string>;
  }
> = {
  media: {
    attrs: {
      "data-figure": oneOf("media"),
      "data-media": uuid,
      "data-kind": oneOf(...MEDIA_KINDS),
    },
    required: ["data-media", "data-kind"],
    children: set("figcaption"),
  },
  gallery: {
    attrs: { "data-figure": oneOf("gallery") },
    required: [],
    children: set("img", "figcaption"),
  },
  embed: {
    attrs: {
      "data-figure": oneOf("embed"),
      "data-provider": matches(/^[a-z0-9][a-z0-9-]{0,39}$/, "a provider id"),
      "data-url": matches(/^https:\/\//, "an https address"),
      "data-title": upTo(300),
    },
    required: ["data-provider", "data-url", "data-title"],
    children: set("figcaption"),
  },
  block: {
    attrs: {
      "data-block": matches(
        /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/,
        "a block id",
      ),
      "data-type": matches(
        /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/,
        "a block type",
      ),
      "data-version": intIn(1, 999999),
      "data-values": (v) => {
        try {
          const parsed = JSON.parse(v);
          return typeof parsed === "object" && parsed !== null &&
              !Array.isArray(parsed)
            ? null
            : "expected JSON text of an object";
        } catch {
          return "expected JSON text of an object";
        }
      },
    },
    required: ["data-block", "data-type", "data-version", "data-values"],
    children: set(),
  },
};
