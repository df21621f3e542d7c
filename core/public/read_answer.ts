// What every public read takes (who reads, where) and answers (a body and its cache tags).
import type { Db } from "../db/database.ts";
import type { PublicContext } from "./request_context.ts";
import type { SiteTokenScope } from "./site_tokens.ts";

/** Who reads, where: the context of every public read. */
export interface PublicReadContext {
  db: Db;
  now: Date;
  siteId: string;
  token: SiteTokenScope | null;
  /** What the /v1 middleware read in its one statement (site, policy, models). */
  context: PublicContext;
  /** Origin of media delivery URLs (`PUBLIC_URL`); absent gives site-relative URLs. */
  publicUrl?: string;
}

/** A public answer and the cache tags of what it shows. */
export interface PublicAnswer {
  body: Record<string, unknown>;
  /** Each tag once (`uniqueTags()` in answer.ts where they can repeat). */
  tags: string[];
}
