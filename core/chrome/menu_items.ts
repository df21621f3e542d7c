// The stored shape of a menu: items, their children, and the one place each leads to.
import { z } from "zod";

const label = z.record(z.string(), z.string().max(200));
const leaf = z.strictObject({
  id: z.string().min(1).max(64),
  label,
  /** The linked entry's group id; its live address in the served language becomes `href`. */
  entry: z.string().uuid().optional(),
  /** An address instead of an entry: a path on this site or an https address. */
  href: z.string().max(2048).optional(),
  /** A model id: the list of that type's published items (a Blog list), at `/<type>`. */
  list: z.string().uuid().optional(),
  /**
   * An archive: a type's items with one value of a select field (a category), or linking to
   * one entry through a relation field (a tag, by the entry's group id).
   */
  archive: z.strictObject({
    model: z.string().uuid(),
    field: z.string().min(1).max(64),
    value: z.string().min(1).max(255),
  }).optional(),
});
/** Where an item leads; an item with none is a heading over its children. */
export const LINK_KINDS = ["entry", "href", "list", "archive"] as const;
const item = leaf.extend({ children: z.array(leaf).max(50).default([]) });
/** The stored items of a menu: each leads to at most one place; an item without one is a heading. */
export const MENU_ITEMS = z.array(item).max(100).superRefine((items, ctx) => {
  items.forEach((top, i) =>
    [top, ...top.children].forEach((leaf, j) => {
      const path = j === 0 ? [i] : [i, "children", j - 1];
      const kinds = LINK_KINDS.filter((k) => leaf[k] !== undefined);
      if (kinds.length > 1) {
        ctx.addIssue({
          code: "custom",
          path,
          message: `An item leads to one place: choose one of ${
            kinds.join(", ")
          }`,
        });
      }
    })
  );
});
/** Stored menu items. */
export type MenuItems = z.infer<typeof MENU_ITEMS>;
/** One stored item without its children. */
export type MenuLeaf = z.infer<typeof leaf>;
