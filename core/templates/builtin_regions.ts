// The chrome regions the built-in template declares: what a site without an accepted template
// may fill under Settings → Navigation, and what the renderer's built-in template draws.
// This module is browser compatible.

/** One declared region: its key and the label the admin shows. */
export interface DeclaredRegion {
  key: string;
  label: string;
}

/** The built-in template's regions, in the order it draws them. */
export const BUILT_IN_REGIONS: readonly DeclaredRegion[] = [
  { key: "footer", label: "Footer columns" },
];
