// What expanding relations and deciding their visibility need to know about one request.
import type { Db } from "../db/database.ts";
import type { ReadableModels } from "./read_context.ts";
import type { SiteTokenScope } from "./site_tokens.ts";

/** A related-draft grant resolved for one request: whose drafts of which types it reaches. */
export interface DraftReach {
  grantId: string;
  personId: string;
  /** Model ids the person reads every item of. */
  all: ReadonlySet<string>;
  /** Model ids the person reads only their own items of. */
  own: ReadonlySet<string>;
}

/** What expansion and visibility need about the request. */
export interface ReadScope {
  db: Db;
  now: Date;
  siteId: string;
  locale: string;
  token: SiteTokenScope | null;
  /** Readable models: heads of all, definitions of the model itself and its relation targets. */
  models: ReadableModels;
  /** A preview link's related-draft grant: relations show the drafts it reaches. */
  drafts?: DraftReach;
}
