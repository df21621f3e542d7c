// This module is browser compatible.
// Writes the rich-text editor's DOM as the service's canonical rich-text HTML (docs/models.md, "Rich text").
import { FIGURES, RULES, VOID } from "../../core/models/rich_text_rules.ts";

const FIGURE_ATTRS = new Set(
  Object.values(FIGURES).flatMap((f) => Object.keys(f.attrs)),
);

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(
    />/g,
    "&gt;",
  ).replace(/\u00a0/g, "&nbsp;");
}

function escapeAttr(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(
    /</g,
    "&lt;",
  ).replace(/>/g, "&gt;");
}

function allowed(tag: string, name: string): boolean {
  if (tag === "figure") return FIGURE_ATTRS.has(name);
  return Object.hasOwn(RULES[tag]?.attrs ?? {}, name);
}

function attributes(el: Element): string {
  const tag = el.tagName.toLowerCase();
  let out = "";
  for (const attr of Array.from(el.attributes)) {
    if (!allowed(tag, attr.name)) continue;
    out += ` ${attr.name}="${escapeAttr(attr.value)}"`;
  }
  return out;
}

function children(el: Node): string {
  return Array.from(el.childNodes).map(write).join("");
}

/** A list item holding one paragraph (and maybe nested lists) is written without the `p`. */
function listItem(el: Element): string {
  const kids = Array.from(el.childNodes).filter((n) =>
    !(n.nodeType === 3 && (n.textContent ?? "").trim() === "")
  );
  const paragraphs = kids.filter((n) =>
    n.nodeType === 1 && (n as Element).tagName === "P"
  );
  const rest = kids.filter((n) => !paragraphs.includes(n));
  const onlyLists = rest.every((n) =>
    n.nodeType === 1 && ["UL", "OL"].includes((n as Element).tagName)
  );
  if (paragraphs.length === 1 && kids[0] === paragraphs[0] && onlyLists) {
    return `<li>${children(paragraphs[0])}${rest.map(write).join("")}</li>`;
  }
  return `<li>${kids.map(write).join("")}</li>`;
}

function write(node: Node): string {
  if (node.nodeType === 3) return escapeText(node.textContent ?? "");
  if (node.nodeType !== 1) return "";
  const el = node as Element;
  const tag = el.tagName.toLowerCase();
  if (tag === "li") return listItem(el);
  if (tag === "pre") {
    // The editor writes `pre > code.language-x`; canonical text keeps the language on `pre`.
    const code = el.querySelector("code");
    const language = el.getAttribute("data-language") ??
      (code?.className.match(/language-(\S+)/)?.[1] ?? null);
    const lang = language ? ` data-language="${escapeAttr(language)}"` : "";
    return `<pre${lang}><code>${escapeText(el.textContent ?? "")}</code></pre>`;
  }
  if (tag === "colgroup" || tag === "col") return "";
  if (!Object.hasOwn(RULES, tag) && tag !== "figure") return children(el);
  if (VOID.has(tag)) return `<${tag}${attributes(el)}>`;
  return `<${tag}${attributes(el)}>${children(el)}</${tag}>`;
}

/** The canonical HTML of an editor document; an empty document (one empty paragraph) is "". */
export function toCanonical(root: ParentNode): string {
  const html = Array.from(root.childNodes).map(write).join("");
  return html === "<p></p>" ? "" : html;
}

/** Parses HTML in the browser and answers its canonical form. */
export function canonicalHtml(html: string): string {
  const template = document.createElement("template");
  template.innerHTML = html;
  return toCanonical(template.content);
}
