// Model labels in running text: a model is named in the plural ("Posts"), one entry in the singular.
// This module is browser compatible.

const KEEP = /(ss|us|is|news|series|species)$/i;

/**
 * One entry of a model named in the plural, in lower case: "Posts" reads "post", "Categories"
 * "category", "Boxes" "box". Models have no singular label of their own, so English rules cover
 * the common endings and a name they do not fit ("News", "Press") stays as it is.
 */
export function singularOf(name: string): string {
  const lower = name.trim().toLowerCase();
  if (KEEP.test(lower)) return lower;
  if (/[^aeiou]ies$/.test(lower)) return `${lower.slice(0, -3)}y`;
  if (/(ches|shes|xes|zes|sses)$/.test(lower)) return lower.slice(0, -2);
  if (lower.endsWith("s")) return lower.slice(0, -1);
  return lower;
}
