// The ordered list of forward-only migrations; add a file and append it here.
import type { Migration } from "kysely/migration";
import * as m0001 from "./0001_platform.ts";

/** Every migration by name, applied in name order. */
export const migrations: Record<string, Migration> = {
  "0001_platform": m0001,
};
