// GET /v1/_shared/{source}/{model}[/{slug}] on a grantee's host: the source-owned published public
// projection a shared-content grant adds, read with the source's own list and item reads but
// seeing only the granted public types, without token, preview, expansion, filters or sorting.
import type { Db } from "../db/database.ts";
import { invalid } from "./list_params.ts";
import { PUBLIC_QUERY_PARAMETERS } from "./query_parameters.ts";
import {
  listItems,
  type PublicAnswer,
  type PublicReadContext,
} from "./list.ts";
import { notFound } from "./context_refresh.ts";
import { loadPublicContext, type PublicContext } from "./request_context.ts";
import { readItem } from "./single.ts";

/**
 * The source's public context as the grantee may read it: the source site found by slug, and
 * only the public live types the source shares with the grantee now. Null when `modelSlug` is
 * not one of them (unknown site or type, private, never granted or revoked: the same 404).
 */
export async function sharedContext(
  db: Db,
  granteeSiteId: string,
  source: { slug: string; model: string },
): Promise<PublicContext | null> {
  const grants = await db.selectFrom("shared_content_grants as g")
    .innerJoin("sites as s", "s.id", "g.source_site_id")
    .select(["g.model_id", "s.id as source_id"])
    .where("g.grantee_site_id", "=", granteeSiteId)
    .where("s.slug", "=", source.slug).where("g.revoked_at", "is", null)
    .execute();
  if (grants.length === 0) return null;
  const granted = new Set(grants.map((g) => g.model_id));
  const context = await loadPublicContext(db, {
    site: { id: grants[0].source_id },
    tokenDigest: null,
    modelSlug: source.model,
  });
  if (!context) return null;
  const shared = (m: { id: string; isPublic: boolean }) =>
    m.isPublic && granted.has(m.id);
  context.heads = context.heads.filter(shared);
  context.definitions = new Map(
    [...context.definitions].filter(([, m]) => shared(m)),
  );
  context.token = null;
  return context;
}

/** Answers a shared list or item read of the grantee's request `ctx`. */
export async function readShared(
  ctx: PublicReadContext,
  path: { source: string; model: string; slug?: string },
  params: URLSearchParams,
): Promise<PublicAnswer> {
  const allowed: readonly string[] = path.slug === undefined
    ? PUBLIC_QUERY_PARAMETERS.shared
    : PUBLIC_QUERY_PARAMETERS.shared_item;
  for (const name of new Set(params.keys())) {
    if (!allowed.includes(name)) {
      invalid(
        `Unknown parameter "${name.slice(0, 64)}": shared content takes ${
          allowed.join(", ")
        }`,
      );
    }
  }
  const context = await sharedContext(ctx.db, ctx.siteId, {
    slug: path.source,
    model: path.model,
  });
  if (!context) throw notFound();
  const source: PublicReadContext = {
    ...ctx,
    siteId: context.site.id,
    token: null,
    context,
  };
  if (path.slug === undefined) {
    return await listItems(source, path.model, params);
  }
  const { preview: _preview, ...answer } = await readItem(
    source,
    { model: path.model, slug: path.slug },
    params,
  );
  return answer;
}
