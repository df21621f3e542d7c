// The seam for plugin media sources (spec 2 parts 2.4, 4.3; MED-035 to MED-040): built once the
// plugin protocol lands. TODO(#11): implement `MediaSourceProvider` over installed plugins and mount
// GET /media/sources, GET /media/sources/{installationId}/{sourceId}/items and POST .../import.
import type { MediaItem } from "./items.ts";

/** How a source's item may enter the library. */
export type MediaSourceMode = "copy" | "reference";

/** One source a plugin installation offers (`GET /media/sources`). */
export interface MediaSource {
  installation_id: string;
  source_id: string;
  label: string;
  modes: MediaSourceMode[];
}

/** One item of a source's page (at most 24 per page, MED-036). */
export interface MediaSourceItem {
  id: string;
  title: string;
  file_name: string;
  type: string;
  size: number | null;
  thumbnail_url: string | null;
  attribution: unknown;
}

/**
 * What the plugin side must provide. Import then reuses this library:
 * - `copy`: `fetchBytes` and then `uploadMedia()` (core/media/upload.ts), so every upload check
 *   applies (`executable_file`, settings, duplicates) and `attribution` is stored;
 * - `reference`: a `media_files` row with `external = true`, the source's delivery URL and no
 *   bytes; `updateMedia`/`replaceMedia` already refuse it (`media_external_bytes_unavailable`)
 *   and `removeMedia` already deletes only the row.
 */
export interface MediaSourceProvider {
  listSources(siteId: string): Promise<MediaSource[]>;
  listItems(
    source: MediaSource,
    options: { q?: string; cursor?: string },
  ): Promise<{ items: MediaSourceItem[]; next_cursor: string | null }>;
  fetchBytes(
    source: MediaSource,
    itemId: string,
  ): Promise<{ bytes: Uint8Array; fileName: string } | null>;
}

/** The answer of an import, as upload answers it. */
export type MediaImportAnswer = MediaItem & { reused?: true };
