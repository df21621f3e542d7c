// Text of the page contract: paragraphs as plain text or formatting runs, and links.
import type { ComponentChildren } from "preact";

type Run = { text: string; marks: string[] };

/** One paragraph: a string or formatting runs (bold, italic, code). */
export function Paragraph({ value }: { value: unknown }) {
  if (typeof value === "string") return <p>{value}</p>;
  const runs = Array.isArray(value) ? value as Run[] : [];
  return (
    <p>
      {runs.map((r) => {
        let node: ComponentChildren = r.text;
        if (r.marks.includes("code")) node = <code>{node}</code>;
        if (r.marks.includes("italic")) node = <em>{node}</em>;
        if (r.marks.includes("bold")) node = <strong>{node}</strong>;
        return node;
      })}
    </p>
  );
}

/** A link of the page contract; addresses on other sites open as ordinary links. */
export interface LinkValue {
  label: string;
  href: string;
}

/** A link drawn as a button-like call to action or as plain text. */
export function Action(
  { link, kind = "primary" }: {
    link: LinkValue;
    kind?: "primary" | "secondary" | "text";
  },
) {
  const external = /^https?:\/\//.test(link.href);
  return (
    <a
      class={`btn btn-${kind}`}
      href={link.href}
      rel={external ? "noopener" : undefined}
    >
      {link.label}
    </a>
  );
}

/** A heading with its id, when the section has one. */
export function Heading(
  { text, id, level = 2 }: { text: unknown; id: string; level?: 1 | 2 | 3 },
) {
  if (typeof text !== "string" || !text) return null;
  const Tag = `h${level}` as "h2";
  return <Tag id={id}>{text}</Tag>;
}
