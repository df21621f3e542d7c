// The one-line link text of the admin menu editor: a path, an https address, an entry id,
// `list:<type>` or `archive:<type>/<field>/<value>`, read to and from stored menu items.
import type { StoredModel } from "../models/store_rows.ts";
import type { MenuItems } from "./menus.ts";

type Leaf = Omit<MenuItems[number], "children">;
/** Where one item leads, as stored (no key for a heading). */
export type LeafLink = Pick<Leaf, "entry" | "href" | "list" | "archive">;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The editor's text for a stored item's link (types by slug; a deleted type by its id). */
export function linkText(
  leaf: LeafLink,
  models: readonly Pick<StoredModel, "id" | "slug">[],
): string {
  const slug = (id: string) => models.find((m) => m.id === id)?.slug ?? id;
  if (leaf.list !== undefined) return `list:${slug(leaf.list)}`;
  if (leaf.archive !== undefined) {
    const a = leaf.archive;
    return `archive:${slug(a.model)}/${a.field}/${a.value}`;
  }
  return leaf.entry ?? leaf.href ?? "";
}

/** Reads the editor's text; an empty text is a heading. */
export function parseLinkText(
  text: string,
  models: readonly Pick<StoredModel, "id" | "slug">[],
): { ok: true; link: LeafLink } | { ok: false; message: string } {
  const typeId = (slug: string) =>
    models.find((m) => m.slug === slug || m.id === slug)?.id;
  if (text === "") return { ok: true, link: {} };
  if (UUID.test(text)) return { ok: true, link: { entry: text.toLowerCase() } };
  if (text.startsWith("list:")) {
    const id = typeId(text.slice(5));
    return id
      ? { ok: true, link: { list: id } }
      : { ok: false, message: `No content type "${text.slice(5)}"` };
  }
  if (text.startsWith("archive:")) {
    const parts = text.slice(8).split("/");
    if (parts.length !== 3 || parts.some((p) => p === "")) {
      return {
        ok: false,
        message: "Write an archive as archive:<type>/<field>/<value>",
      };
    }
    const id = typeId(parts[0]);
    if (!id) return { ok: false, message: `No content type "${parts[0]}"` };
    return {
      ok: true,
      link: { archive: { model: id, field: parts[1], value: parts[2] } },
    };
  }
  return { ok: true, link: { href: text } };
}
