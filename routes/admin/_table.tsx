// Tables that may be wider than a phone scroll inside their card; such a region must be reachable
// by keyboard and named, or a keyboard user cannot scroll it (axe: scrollable-region-focusable).

/** The attributes of a `.table-wrap` that scrolls sideways: focusable, a named region. */
export function scrollRegion(label: string) {
  return { tabIndex: 0, role: "region", "aria-label": label } as const;
}
