// This module is browser compatible.
// A small strict HTML tokenizer for rich text: tags, quoted attributes, text and a few entities.

/** A piece of HTML: text, an opening tag (with its attributes) or a closing tag. */
export type HtmlToken =
  | { kind: "text"; text: string }
  | {
    kind: "open";
    name: string;
    attrs: Map<string, string>;
    selfClosing: boolean;
  }
  | { kind: "close"; name: string };

/** The tokens, or the first thing that is not the strict HTML rich text is written in. */
export type ReadHtmlResult =
  | { ok: true; tokens: HtmlToken[] }
  | { ok: false; message: string; element?: string; attribute?: string };

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};
const ENTITY =
  /^&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{0,31}));/;
const TAG_NAME = /^[A-Za-z][A-Za-z0-9]*/;
const ATTR_NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*/;

/** Decodes `&amp;`-style entities; a bare `&` or an unknown entity is refused. */
export function decodeText(
  text: string,
): { ok: true; text: string } | { ok: false; message: string } {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const amp = text.indexOf("&", i);
    if (amp < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, amp);
    const m = ENTITY.exec(text.slice(amp, amp + 40));
    if (!m) {
      return {
        ok: false,
        message: `Unescaped "&" near "${
          text.slice(amp, amp + 12)
        }": write &amp;`,
      };
    }
    if (m[3] !== undefined) {
      const named = NAMED[m[3]];
      if (named === undefined) {
        return { ok: false, message: `Unknown entity "&${m[3]};"` };
      }
      out += named;
    } else {
      const code = m[1] !== undefined ? parseInt(m[1], 10) : parseInt(m[2], 16);
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
        return { ok: false, message: `Entity "${m[0]}" names no character` };
      }
      out += String.fromCodePoint(code);
    }
    i = amp + m[0].length;
  }
  return { ok: true, text: out };
}

/** Splits HTML into tokens; comments, doctypes, unquoted attributes and stray `<` are refused. */
export function readHtml(html: string): ReadHtmlResult {
  const tokens: HtmlToken[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    const end = lt < 0 ? html.length : lt;
    if (end > i) {
      const text = decodeText(html.slice(i, end));
      if (!text.ok) return text;
      tokens.push({ kind: "text", text: text.text });
    }
    if (lt < 0) break;
    const rest = html.slice(lt + 1);
    if (rest.startsWith("!") || rest.startsWith("?")) {
      return {
        ok: false,
        message:
          "Comments, doctypes and processing instructions are not allowed",
      };
    }
    if (rest.startsWith("/")) {
      const m = /^\/([A-Za-z][A-Za-z0-9]*)\s*>/.exec(rest);
      if (!m) {
        return {
          ok: false,
          message: `Cannot read closing tag near "${html.slice(lt, lt + 20)}"`,
        };
      }
      tokens.push({ kind: "close", name: m[1].toLowerCase() });
      i = lt + 1 + m[0].length;
      continue;
    }
    const name = TAG_NAME.exec(rest)?.[0];
    if (!name) {
      return {
        ok: false,
        message: `Unescaped "<" near "${html.slice(lt, lt + 12)}": write &lt;`,
      };
    }
    const tag = readAttributes(html, lt + 1 + name.length, name.toLowerCase());
    if (!tag.ok) return tag;
    tokens.push({
      kind: "open",
      name: name.toLowerCase(),
      attrs: tag.attrs,
      selfClosing: tag.selfClosing,
    });
    i = tag.next;
  }
  return { ok: true, tokens };
}

function readAttributes(
  html: string,
  start: number,
  element: string,
):
  | { ok: true; attrs: Map<string, string>; selfClosing: boolean; next: number }
  | { ok: false; message: string; element: string; attribute?: string } {
  const attrs = new Map<string, string>();
  let i = start;
  while (true) {
    const space = /^\s*/.exec(html.slice(i))?.[0].length ?? 0;
    i += space;
    if (html.startsWith(">", i)) {
      return { ok: true, attrs, selfClosing: false, next: i + 1 };
    }
    if (html.startsWith("/>", i)) {
      return { ok: true, attrs, selfClosing: true, next: i + 2 };
    }
    if (i >= html.length) {
      return {
        ok: false,
        message: `Element "${element}": tag is not closed`,
        element,
      };
    }
    if (space === 0) {
      return {
        ok: false,
        message:
          `Element "${element}": expected a space before the next attribute`,
        element,
      };
    }
    const name = ATTR_NAME.exec(html.slice(i))?.[0];
    if (!name) {
      return {
        ok: false,
        message: `Element "${element}": cannot read an attribute near "${
          html.slice(i, i + 12)
        }"`,
        element,
      };
    }
    const attribute = name.toLowerCase();
    if (attrs.has(attribute)) {
      return {
        ok: false,
        message:
          `Element "${element}": attribute "${attribute}" is given twice`,
        element,
        attribute,
      };
    }
    i += name.length;
    let value = "";
    const eq = /^\s*=\s*/.exec(html.slice(i));
    if (eq) {
      i += eq[0].length;
      const quote = html[i];
      if (quote !== '"' && quote !== "'") {
        return {
          ok: false,
          message:
            `Element "${element}": quote the value of attribute "${attribute}"`,
          element,
          attribute,
        };
      }
      const close = html.indexOf(quote, i + 1);
      if (close < 0) {
        return {
          ok: false,
          message:
            `Element "${element}": value of attribute "${attribute}" is not closed`,
          element,
          attribute,
        };
      }
      const decoded = decodeText(html.slice(i + 1, close));
      if (!decoded.ok) {
        return {
          ok: false,
          message:
            `Element "${element}", attribute "${attribute}": ${decoded.message}`,
          element,
          attribute,
        };
      }
      value = decoded.text;
      i = close + 1;
    }
    attrs.set(attribute, value);
  }
}
