// This module is browser compatible.
// What a preview may carry besides its page (spec 3 part 4.8 rule 2): the published answers of
// its Latest entries sections, by their exact public list path, within fixed limits.
import type { PageDocument } from "../pages/mod.ts";

/** Limits of a preview's lists (TPL-008). */
export const PREVIEW_LIMITS = {
  lists: 24,
  listBytes: 256 * 1024,
  totalBytes: 1024 * 1024,
} as const;

/** The exact public list path a Latest entries section reads. */
export function latestEntriesPath(
  props: { model: string; limit: number },
  locale: string,
): string {
  const query = new URLSearchParams({
    locale,
    limit: String(props.limit),
  });
  return `/v1/${props.model}?${query}`;
}

/** Every list path the document's Latest entries sections read, each once, in order. */
export function listPathsOf(document: PageDocument, locale: string): string[] {
  const paths: string[] = [];
  for (const s of document.sections) {
    if (s.type !== "latest_entries") continue;
    const props = document.props[s.id] as { model: string; limit: number };
    const path = latestEntriesPath(props, locale);
    if (!paths.includes(path)) paths.push(path);
  }
  return paths;
}

/** Checks the lists' count and sizes; a refusal names the limit passed. */
export function checkPreviewLists(
  lists: Record<string, string>,
): { ok: true } | {
  ok: false;
  code: "preview_payload_too_large";
  limit: "lists" | "list_bytes" | "total_bytes";
} {
  const encoder = new TextEncoder();
  const sizes = Object.values(lists).map((t) => encoder.encode(t).length);
  if (sizes.length > PREVIEW_LIMITS.lists) {
    return { ok: false, code: "preview_payload_too_large", limit: "lists" };
  }
  if (sizes.some((s) => s > PREVIEW_LIMITS.listBytes)) {
    return {
      ok: false,
      code: "preview_payload_too_large",
      limit: "list_bytes",
    };
  }
  if (sizes.reduce((a, b) => a + b, 0) > PREVIEW_LIMITS.totalBytes) {
    return {
      ok: false,
      code: "preview_payload_too_large",
      limit: "total_bytes",
    };
  }
  return { ok: true };
}

/**
 * The `lists` of a page view: each Latest entries section gets the answer held at its exact
 * path, and an error (never an empty list) when none is held, as a 404 from the API would.
 */
export function viewLists(
  document: PageDocument,
  locale: string,
  lists: Record<string, string>,
): Record<string, { ok: true; items: unknown[] } | { ok: false }> {
  const out: Record<string, { ok: true; items: unknown[] } | { ok: false }> =
    {};
  for (const s of document.sections) {
    if (s.type !== "latest_entries") continue;
    const path = latestEntriesPath(
      document.props[s.id] as { model: string; limit: number },
      locale,
    );
    const held = Object.hasOwn(lists, path) ? lists[path] : null;
    let items: unknown = null;
    try {
      items = held === null
        ? null
        : (JSON.parse(held) as { data?: unknown }).data;
    } catch {
      items = null;
    }
    out[s.id] = Array.isArray(items) ? { ok: true, items } : { ok: false };
  }
  return out;
}
