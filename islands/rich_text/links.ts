// This module is browser compatible.
// Link addresses in rich text: what an editor types made into an address the service's
// rich-text rules accept (https, http, mailto, tel, or a path on this site), and the span of a link.
import type { MarkType, ResolvedPos } from "@tiptap/pm/model";
import { RULES } from "../../core/models/rich_text_rules.ts";

/**
 * The address to store for what was typed, or null when the service would refuse it: a bare
 * domain gets `https://`, an email address `mailto:`; `javascript:` and other schemes are refused.
 */
export function safeLinkHref(typed: string): string | null {
  const text = typed.trim();
  if (text === "") return null;
  let href = text;
  if (/^[^\s@/:]+@[^\s@/:]+\.[a-z]{2,}$/i.test(text)) href = `mailto:${text}`;
  else if (/^(www\.)?[a-z0-9-]+(\.[a-z0-9-]+)+(\/\S*)?$/i.test(text)) {
    href = `https://${text}`;
  }
  return RULES.a.attrs.href(href) === null ? href : null;
}

/** The document range of the link mark around a cursor position, or null outside a link. */
export function linkRange(
  $pos: ResolvedPos,
  type: MarkType,
): { from: number; to: number } | null {
  const parent = $pos.parent;
  const start = $pos.start();
  const mark = type.isInSet($pos.marks()) ??
    type.isInSet(parent.childAfter($pos.parentOffset).node?.marks ?? []);
  if (!mark) return null;
  // The runs of neighbouring children carrying this very link; the cursor's run is the link.
  const runs: { from: number; to: number }[] = [];
  let offset = 0;
  for (let i = 0; i < parent.childCount; i++) {
    const child = parent.child(i);
    const end = offset + child.nodeSize;
    if (mark.isInSet(child.marks)) {
      const last = runs.at(-1);
      if (last && last.to === offset) last.to = end;
      else runs.push({ from: offset, to: end });
    }
    offset = end;
  }
  const run = runs.find((r) =>
    $pos.parentOffset >= r.from && $pos.parentOffset <= r.to
  );
  return run ? { from: start + run.from, to: start + run.to } : null;
}
