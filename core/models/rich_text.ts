// This module is browser compatible.
// Checks rich text against its strict allow-list of elements and attributes, and lists what it names.
import type { MediaKind } from "./field_types.ts";
import { readHtml } from "./rich_text_reader.ts";
import {
  type Check,
  FIGURES,
  RICH_TEXT_LIMITS,
  type Rule,
  RULES,
  VOID,
} from "./rich_text_rules.ts";

export { RICH_TEXT_LIMITS } from "./rich_text_rules.ts";

/** The first thing wrong with a rich document, naming the element or attribute. */
export interface RichTextProblem {
  code: "rich_text_invalid" | "rich_text_too_large";
  message: string;
  element?: string;
  attribute?: string;
}

/** A plugin block stored as `figure[data-block]`; the plugins area checks it is registered. */
export interface RichBlockRef {
  block: string;
  type: string;
  version: number;
  values: Record<string, unknown>;
}

/** What a rich document names and whether it holds anything a reader would see. */
export interface RichTextReport {
  problem: RichTextProblem | null;
  media: { id: string; kind: MediaKind }[];
  blocks: RichBlockRef[];
  hasContent: boolean;
}

interface Frame {
  name: string;
  rule: Rule;
  figure?: string;
  images?: number;
  captioned?: boolean;
  table?: { rows: number; width: number; carry: number[] };
}

/** Reads rich text strictly; `embedOrigins` are the exact https origins an administrator allows. */
export function checkRichText(
  html: string,
  options: { embedOrigins?: readonly string[] } = {},
): RichTextReport {
  const report: RichTextReport = {
    problem: null,
    media: [],
    blocks: [],
    hasContent: false,
  };
  const bytes = new TextEncoder().encode(html).length;
  if (bytes > RICH_TEXT_LIMITS.bytes) {
    report.problem = {
      code: "rich_text_too_large",
      message:
        `Rich text holds ${bytes} bytes: at most ${RICH_TEXT_LIMITS.bytes} are allowed`,
    };
    return report;
  }
  const read = readHtml(html);
  if (!read.ok) {
    const { message, element, attribute } = read;
    report.problem = { code: "rich_text_invalid", message, element, attribute };
    return report;
  }
  const stack: Frame[] = [{ name: "#root", rule: RULES["#root"] }];
  const fail = (message: string, element?: string, attribute?: string) => {
    report.problem = { code: "rich_text_invalid", message, element, attribute };
    return report;
  };
  for (const token of read.tokens) {
    const top = stack[stack.length - 1];
    if (token.kind === "text") {
      if (token.text.trim() === "") continue;
      if (!top.rule.text) {
        return fail(
          `Text must sit inside a block such as p, not directly in "${
            top.name === "#root" ? "the document" : top.name
          }"`,
          top.name === "#root" ? undefined : top.name,
        );
      }
      report.hasContent = true;
      continue;
    }
    if (token.kind === "close") {
      if (top.name !== token.name) {
        return fail(
          top.name === "#root"
            ? `Closing tag "${token.name}" has no opening tag`
            : `Element "${top.name}" is not closed before "</${token.name}>"`,
          top.name === "#root" ? token.name : top.name,
        );
      }
      const error = closeFrame(top);
      if (error) return fail(error, top.name);
      stack.pop();
      continue;
    }
    const name = token.name;
    const allowed = top.figure
      ? FIGURES[top.figure].children
      : top.rule.children;
    if (!RULES[name] && name !== "figure") {
      return fail(`Element "${name}" is not allowed`, name);
    }
    if (!allowed.has(name) || (top.captioned && top.figure)) {
      return fail(
        `Element "${name}" is not allowed inside "${
          top.name === "#root" ? "the document" : top.name
        }"`,
        name,
      );
    }
    let frame: Frame;
    if (name === "figure") {
      const kind = token.attrs.has("data-block")
        ? "block"
        : token.attrs.get("data-figure") ?? "";
      const figure = FIGURES[kind];
      if (!figure) {
        return fail(
          `Element "figure" needs data-figure (media, gallery or embed) or data-block`,
          "figure",
          "data-figure",
        );
      }
      const error = checkAttrs(
        name,
        token.attrs,
        figure.attrs,
        figure.required,
      );
      if (error) return fail(error.message, name, error.attribute);
      const embed = kind === "embed"
        ? embedProblem(
          token.attrs.get("data-url") ?? "",
          options.embedOrigins ?? [],
        )
        : null;
      if (embed) return fail(embed, name, "data-url");
      if (kind === "media") {
        report.media.push({
          id: (token.attrs.get("data-media") ?? "").toLowerCase(),
          kind: token.attrs.get("data-kind") as MediaKind,
        });
      }
      if (kind === "block") {
        const attr = (n: string) => token.attrs.get(n) ?? "";
        report.blocks.push({
          block: attr("data-block"),
          type: attr("data-type"),
          version: +attr("data-version"),
          values: JSON.parse(attr("data-values")),
        });
      }
      frame = { name, rule: RULES["#root"], figure: kind, images: 0 };
    } else {
      const rule = RULES[name];
      const error = checkAttrs(
        name,
        token.attrs,
        rule.attrs,
        rule.required ?? [],
      );
      if (error) return fail(error.message, name, error.attribute);
      frame = { name, rule };
    }
    if (name === "img") {
      top.images = (top.images ?? 0) + 1;
      report.media.push({
        id: (token.attrs.get("data-media") ?? "").toLowerCase(),
        kind: "image",
      });
    }
    if (name === "figcaption") top.captioned = true;
    if (name === "table") frame.table = { rows: 0, width: 0, carry: [] };
    const tableError = countCells(stack, name, token.attrs);
    if (tableError) return fail(tableError, name);
    if (name === "hr" || name === "figure" || name === "table") {
      report.hasContent = true;
    }
    if (VOID.has(name)) continue;
    if (token.selfClosing) {
      return fail(
        `Element "${name}" cannot close itself: write <${name}></${name}>`,
        name,
      );
    }
    stack.push(frame);
  }
  if (stack.length > 1) {
    fail(
      `Element "${stack[stack.length - 1].name}" is not closed`,
      stack[stack.length - 1].name,
    );
  }
  return report;
}

function checkAttrs(
  element: string,
  attrs: Map<string, string>,
  allowed: Record<string, Check>,
  required: string[],
): { message: string; attribute: string } | null {
  for (const [attribute, value] of attrs) {
    const check = allowed[attribute];
    if (!check) {
      return {
        message:
          `Element "${element}": attribute "${attribute}" is not allowed`,
        attribute,
      };
    }
    const problem = check(value);
    if (problem) {
      return {
        message: `Element "${element}", attribute "${attribute}": ${problem}`,
        attribute,
      };
    }
  }
  const missing = required.find((a) => !attrs.has(a));
  return missing
    ? {
      message: `Element "${element}" needs attribute "${missing}"`,
      attribute: missing,
    }
    : null;
}

function embedProblem(url: string, origins: readonly string[]): string | null {
  if (!URL.canParse(url)) return `Embed address "${url}" cannot be read`;
  const parsed = new URL(url);
  if (parsed.href !== url) {
    return `Embed address "${url}" is not canonical: write "${parsed.href}"`;
  }
  return origins.includes(parsed.origin)
    ? null
    : `Embed origin "${parsed.origin}" is not among the origins an administrator allows`;
}

function countCells(
  stack: Frame[],
  name: string,
  attrs: Map<string, string>,
): string | null {
  const table = [...stack].reverse().find((f) => f.table)?.table;
  if (!table) return null;
  if (name === "tr") {
    table.rows++;
    table.width = table.carry[table.rows - 1] ?? 0;
    return table.rows > RICH_TEXT_LIMITS.rows
      ? `A table holds at most ${RICH_TEXT_LIMITS.rows} rows`
      : null;
  }
  if (name !== "th" && name !== "td") return null;
  const colspan = +(attrs.get("colspan") ?? 1);
  const rowspan = +(attrs.get("rowspan") ?? 1);
  table.width += colspan;
  for (let k = 1; k < rowspan; k++) {
    table.carry[table.rows - 1 + k] = (table.carry[table.rows - 1 + k] ?? 0) +
      colspan;
  }
  return table.width > RICH_TEXT_LIMITS.columns
    ? `A table holds at most ${RICH_TEXT_LIMITS.columns} columns`
    : null;
}

function closeFrame(frame: Frame): string | null {
  if (frame.figure !== "gallery") return null;
  const n = frame.images ?? 0;
  const { galleryMin, galleryMax } = RICH_TEXT_LIMITS;
  return n < galleryMin || n > galleryMax
    ? `A gallery holds ${galleryMin} to ${galleryMax} images, got ${n}`
    : null;
}
