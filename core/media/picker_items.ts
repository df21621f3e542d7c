// The items a MediaPicker island offers: the newest files of the site, as plain JSON props.
import { isId } from "../entries/store.ts";
import type { Db } from "../db/database.ts";
import { listMedia, type MediaItem, type MediaRow, toItem } from "./items.ts";

/** One item as islands/MediaPicker.tsx takes it. */
export interface PickerItem {
  id: string;
  url: string;
  file_name: string;
  kind: "image" | "document" | "audio" | "video" | "file";
  alt: string | null;
}

/** The newest `limit` files (at most 100) with the alt text of `language`, for a MediaPicker. */
export async function pickerItems(
  ctx: { db: Db; siteId: string; publicUrl: string },
  options: { language: string; limit?: number },
): Promise<PickerItem[]> {
  const page = await listMedia(ctx, {
    limit: Math.min(options.limit ?? 100, 100),
  });
  return (page?.data ?? []).map((item) => pickerItem(item, options.language));
}

function pickerItem(item: MediaItem, language: string): PickerItem {
  return {
    id: item.id,
    url: item.url ?? "",
    file_name: item.file_name,
    kind: item.kind,
    alt: item.alt_texts[language] ?? null,
  };
}

/**
 * The newest files and, whatever their age, the files `chosen` names that the site has: what
 * a picker must offer so that a value chosen long ago still shows and saves unchanged.
 */
export async function pickerItemsWith(
  ctx: { db: Db; siteId: string; publicUrl: string },
  options: { language: string; chosen: readonly string[] },
): Promise<PickerItem[]> {
  const newest = await pickerItems(ctx, { language: options.language });
  const known = new Set(newest.map((i) => i.id));
  const missing = [...new Set(options.chosen)].filter((id) =>
    !known.has(id) && isId(id)
  );
  if (missing.length === 0) return newest;
  const rows = await ctx.db.selectFrom("media_files").selectAll()
    .where("site_id", "=", ctx.siteId).where("id", "in", missing).execute();
  return [
    ...newest,
    ...rows.map((row) =>
      pickerItem(toItem(ctx.publicUrl, row as MediaRow), options.language)
    ),
  ];
}
