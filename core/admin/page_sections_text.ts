// Paragraphs of page sections as editable text: **bold**, *italic*, `code`, and blank lines
// between paragraphs, written from and read back into the page document's formatting runs.
import { RUN_MARKS } from "../pages/vocabulary.ts";

const ESCAPED = /[\\*`]/g;

/**
 * A paragraph (text or formatting runs) as the editor's markup. Marks are written where they
 * change between runs, so neighbouring runs never run their markers together ambiguously.
 */
export function paragraphMarkup(paragraph: unknown): string {
  if (typeof paragraph === "string") return paragraph.replace(ESCAPED, "\\$&");
  if (!Array.isArray(paragraph)) return "";
  const token = { bold: "**", italic: "*", code: "`" } as const;
  let on: readonly string[] = [];
  let out = "";
  const toggle = (next: readonly string[]) => {
    for (const mark of RUN_MARKS) {
      if (on.includes(mark) !== next.includes(mark)) out += token[mark];
    }
    on = next;
  };
  for (const run of paragraph) {
    const r = run as { text?: unknown; marks?: unknown };
    toggle(Array.isArray(r.marks) ? r.marks : []);
    out += String(r.text ?? "").replace(ESCAPED, "\\$&");
  }
  toggle([]);
  return out;
}

/** The editor's markup of one paragraph as text, or runs when it has marks. */
export function paragraphFromMarkup(
  markup: string,
): string | { text: string; marks: string[] }[] {
  const runs: { text: string; marks: string[] }[] = [];
  const on = { bold: false, italic: false, code: false };
  let text = "";
  const flush = () => {
    if (text === "") return;
    const marks = RUN_MARKS.filter((m) => on[m]);
    const last = runs.at(-1);
    if (last && last.marks.join() === marks.join()) last.text += text;
    else runs.push({ text, marks: [...marks] });
    text = "";
  };
  for (let i = 0; i < markup.length; i++) {
    const c = markup[i];
    if (c === "\\" && i + 1 < markup.length) {
      text += markup[++i];
    } else if (c === "`") {
      flush();
      on.code = !on.code;
    } else if (c === "*" && markup[i + 1] === "*") {
      flush();
      on.bold = !on.bold;
      i++;
    } else if (c === "*") {
      flush();
      on.italic = !on.italic;
    } else {
      text += c;
    }
  }
  flush();
  if (runs.length === 0) return "";
  if (runs.length === 1 && runs[0].marks.length === 0) return runs[0].text;
  return runs;
}

/** Paragraphs as the text area shows them, blank lines between. */
export function paragraphsText(value: unknown): string {
  return Array.isArray(value) ? value.map(paragraphMarkup).join("\n\n") : "";
}

/** The paragraphs of a text area: one per blank-line-separated block. */
export function paragraphsFrom(text: string): unknown[] {
  return text.replaceAll("\r\n", "\n").split(/\n[ \t]*\n/).map((p) => p.trim())
    .filter((p) => p !== "").map(paragraphFromMarkup);
}

/** The non-empty lines of a text area. */
export function linesFrom(text: string): string[] {
  return text.replaceAll("\r\n", "\n").split("\n").map((l) => l.trim())
    .filter((l) => l !== "");
}
