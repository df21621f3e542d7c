// The ordered list of forward-only migrations; add a file and append it here.
import type { Migration } from "kysely/migration";
import * as m0001 from "./0001_platform.ts";

/** Every migration by name, applied in name order. */
export const migrations: Record<string, Migration> = {
  "0001_platform": m0001,
  "0010_models": await import("./0010_models.ts"),
  "0020_access": await import("./0020_access.ts"),
  "0030_entries": await import("./0030_entries.ts"),
  "0040_site_settings": await import("./0040_site_settings.ts"),
};
