// Whether a page's media can be presented, for previews (spec 3 part 4.3, PUB-037): a preview
// never shows a page with a picture missing. The spec names the reasons; what each one means
// here is Stave's (docs/pages.md "Previews").
import type { Db } from "../db/database.ts";
import type { ValueProblem } from "../models/validate_values.ts";
import { type PageDocument, parsePageDocument } from "./parse.ts";

/** Why a page's media cannot be presented (PUB-037). */
export type MediaReason =
  | "page_media_unavailable"
  | "media_presentation_unreadable"
  | "media_presentation_revision_unavailable"
  | "media_presentation_mismatch"
  | "media_size_missing";

/** The first media reference that cannot be presented, with where it is and why. */
export interface MediaProblem {
  reason: MediaReason;
  path: string;
  media_id: string;
  message: string;
}

interface Reference {
  path: string;
  media_id: string;
  url: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every media reference `{ media_id, url, alt }` of a document, with its JSON path. */
export function mediaReferences(document: PageDocument): Reference[] {
  const found: Reference[] = [];
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, `${path}[${i}]`));
      return;
    }
    if (value === null || typeof value !== "object") return;
    const o = value as Record<string, unknown>;
    if (
      typeof o.media_id === "string" && typeof o.url === "string" && "alt" in o
    ) {
      found.push({ path, media_id: o.media_id, url: o.url });
      return;
    }
    for (const [k, v] of Object.entries(o)) walk(v, `${path}.${k}`);
  };
  walk(document.props, "$.props");
  return found;
}

/** The stored object a delivery URL names (`…/media/<site>/<object>.<format>`), or null. */
function objectOf(url: string, siteId: string): string | null {
  const path = url.replace(/^https?:\/\/[^/]+/, "");
  const m = /^\/media\/([0-9a-f-]{36})\/([0-9a-f-]{36})\.[a-z0-9]+$/.exec(path);
  return m && m[1] === siteId ? m[2] : null;
}

/**
 * Checks each reference against the library, in document order; null when every one can be
 * presented. One query for the items and one for their language originals.
 */
export async function checkPageMedia(
  db: Db,
  siteId: string,
  document: PageDocument,
): Promise<MediaProblem | null> {
  const refs = mediaReferences(document);
  if (refs.length === 0) return null;
  const ids = [
    ...new Set(refs.map((r) => r.media_id).filter((id) => UUID.test(id))),
  ];
  const items = ids.length === 0 ? [] : await db.selectFrom("media_files")
    .select(["id", "kind", "object_id", "width", "height", "external"])
    .where("site_id", "=", siteId).where("id", "in", ids).execute();
  const originals = ids.length === 0 ? [] : await db.selectFrom(
    "media_originals",
  ).select(["media_id", "object_id"]).where("site_id", "=", siteId)
    .where("media_id", "in", ids).execute();
  const byId = new Map(items.map((i) => [i.id, i]));
  const objects = new Map<string, string>();
  for (const i of items) objects.set(i.object_id, i.id);
  for (const o of originals) objects.set(o.object_id, o.media_id);
  // Objects of other items this page names, to tell a wrong file from a replaced one.
  const named = refs.map((r) => objectOf(r.url, siteId)).filter((o) =>
    o !== null && !objects.has(o)
  ) as string[];
  const foreign = named.length === 0 ? new Set<string>() : new Set(
    (await db.selectFrom("media_files").select("object_id")
      .where("site_id", "=", siteId).where("object_id", "in", named).execute())
      .map((r) => r.object_id),
  );
  for (const ref of refs) {
    const item = byId.get(ref.media_id);
    const problem = (reason: MediaReason, message: string): MediaProblem => ({
      reason,
      path: ref.path,
      media_id: ref.media_id,
      message,
    });
    if (!item) {
      return problem(
        "page_media_unavailable",
        "The media item is not in the library (deleted, or never uploaded)",
      );
    }
    if (item.kind !== "image") {
      return problem(
        "media_presentation_unreadable",
        `The media item is a ${item.kind}, not an image`,
      );
    }
    if (item.width === null || item.height === null) {
      return problem(
        "media_size_missing",
        "The image has no stored width and height",
      );
    }
    // An external (reference) item is served from its source's URL as stored.
    if (item.external) continue;
    const object = objectOf(ref.url, siteId);
    const owner = object === null ? undefined : objects.get(object);
    if (
      object === null || foreign.has(object) ||
      (owner !== undefined && owner !== item.id)
    ) {
      return problem(
        "media_presentation_mismatch",
        "The reference's url is not a file of this media item",
      );
    }
    if (owner === undefined) {
      return problem(
        "media_presentation_revision_unavailable",
        "The reference names a file the media item no longer has (it was replaced): choose the image again",
      );
    }
  }
  return null;
}

/**
 * Refuses, at save and publish, a page whose media reference names a library item that is not
 * an image (`unsupported_media_kind`, ENT-031): a page section draws its media as a picture,
 * with crop and focal point, so a video, document or other file there cannot be presented.
 * Ids that are not library items (demo placeholders) are left to the preview's check.
 */
export async function checkPageMediaKinds(
  db: Db,
  request: { siteId: string; values: Record<string, unknown>; locale: string },
): Promise<ValueProblem[]> {
  const parsed = parsePageDocument(request.values.slides ?? null);
  if (!parsed.ok) return [];
  const refs = mediaReferences(parsed.value).filter((r) =>
    UUID.test(r.media_id)
  );
  if (refs.length === 0) return [];
  const rows = await db.selectFrom("media_files").select(["id", "kind"])
    .where("site_id", "=", request.siteId)
    .where("id", "in", [...new Set(refs.map((r) => r.media_id))]).execute();
  const kinds = new Map(rows.map((r) => [r.id, r.kind as string]));
  return refs.flatMap((ref) => {
    const kind = kinds.get(ref.media_id);
    if (kind === undefined || kind === "image") return [];
    return [{
      path: `slides${ref.path.slice(1)}`,
      code: "unsupported_media_kind",
      message:
        `The media item "${ref.media_id}" is a ${kind}; a page shows only images here`,
      locale: request.locale,
    }];
  });
}
