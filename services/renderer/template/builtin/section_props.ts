// The props every section component of the built-in template receives.
import type { PageSection } from "../../../../core/pages/mod.ts";
import type { PageView } from "../mod.ts";

/** What every section component receives. */
export interface SectionProps {
  section: PageSection;
  // deno-lint-ignore no-explicit-any
  props: Record<string, any>;
  view: PageView;
  /** The section's heading id, for `aria-labelledby`. */
  headingId: string;
}
