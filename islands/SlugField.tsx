// This module is browser compatible.
// A slug input that follows its source field (the title) until the person types a slug of their own.
import { useEffect, useRef } from "preact/hooks";
import { island } from "../core/web/island.ts";

/** Props of the slug field. */
export interface SlugFieldProps extends Record<string, unknown> {
  id: string;
  name: string;
  value: string;
  readOnly: boolean;
  describedBy: string;
  invalid: boolean;
  /** The id of the input the slug follows; empty for none. */
  sourceId: string;
  /** Follow the source only while the slug is new (a new entry or language). */
  autoFill: boolean;
}

/** The slug of a title: lower-case letters of any script and digits, joined by single hyphens. */
export function slugify(title: string): string {
  return title.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "").slice(0, 120);
}

function SlugField(props: SlugFieldProps) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!props.autoFill || props.readOnly || !props.sourceId) return;
    const source = document.getElementById(props.sourceId) as
      | HTMLInputElement
      | null;
    const slug = input.current;
    if (!source || !slug) return;
    // Follows the source while the slug is what the source would make (or empty).
    let following = slug.value === "" || slug.value === slugify(source.value);
    const onSource = () => {
      if (following) slug.value = slugify(source.value);
    };
    const onSlug = () => {
      following = slug.value === "";
    };
    source.addEventListener("input", onSource);
    slug.addEventListener("input", onSlug);
    // Tells scripts and tests that typing a title now fills the slug.
    slug.dataset.follows = props.sourceId;
    return () => {
      source.removeEventListener("input", onSource);
      slug.removeEventListener("input", onSlug);
    };
  }, []);
  return (
    <input
      ref={input}
      id={props.id}
      name={props.name}
      value={props.value}
      readOnly={props.readOnly}
      aria-describedby={props.describedBy || undefined}
      aria-invalid={props.invalid ? "true" : undefined}
      autocomplete="off"
    />
  );
}

export default island("SlugField", SlugField);
