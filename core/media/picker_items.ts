// The items a MediaPicker island offers: the newest files of the site, as plain JSON props.
import type { Db } from "../db/database.ts";
import { listMedia } from "./items.ts";

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
  return (page?.data ?? []).map((item) => ({
    id: item.id,
    url: item.url ?? "",
    file_name: item.file_name,
    kind: item.kind,
    alt: item.alt_texts[options.language] ?? null,
  }));
}
