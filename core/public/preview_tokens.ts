// Preview tokens `sv_prev_…`: serve the current draft of one root item for 30 minutes.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { randomToken, sha256Hex } from "../auth/secrets.ts";
import { isId } from "../entries/store.ts";

/** How long a preview token answers (spec 3 part 8). */
export const PREVIEW_TOKEN_LIFE_MS = 30 * 60 * 1000;
const PREVIEW_TOKEN = /^sv_prev_[A-Za-z0-9_-]{43}$/;

/** What a preview link is minted for. */
export interface MintPreviewOptions {
  siteId: string;
  groupId: string;
  personId: string | null;
  /**
   * The related-draft grant: the link's expanded relations show the saved drafts its creator may
   * read now instead of published values. Needs a person.
   */
  relatedDrafts?: boolean;
}

/** Mints a token for one group when an editor opens a preview; the clear text is answered once. */
export async function mintPreviewToken(
  ctx: { db: Db; clock: Clock },
  options: MintPreviewOptions,
): Promise<{ token: string; expiresAt: Date }> {
  if (options.relatedDrafts && options.personId === null) {
    throw new Error(
      "A related-draft grant needs the person opening the preview",
    );
  }
  const token = randomToken("sv_prev_");
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + PREVIEW_TOKEN_LIFE_MS);
  await ctx.db.insertInto("preview_tokens").values({
    digest: await sha256Hex(token),
    site_id: options.siteId,
    group_id: options.groupId,
    created_by: options.personId,
    created_at: now,
    expires_at: expiresAt,
    draft_grant_id: options.relatedDrafts ? crypto.randomUUID() : null,
  }).execute();
  return { token, expiresAt };
}

/** A live preview link: the group it previews and its related-draft grant, if it carries one. */
export interface VerifiedPreview {
  groupId: string;
  draftGrant: DraftGrant | null;
}

/** A related-draft grant: its id (named by continuation cursors) and the person it reads as. */
export interface DraftGrant {
  id: string;
  personId: string;
}

/** The live preview a token of this site opens, or null when it cannot be verified. */
export async function verifyPreviewToken(
  ctx: { db: Db; clock: Clock },
  siteId: string,
  token: string,
): Promise<VerifiedPreview | null> {
  if (!PREVIEW_TOKEN.test(token)) return null;
  const row = await ctx.db.selectFrom("preview_tokens")
    .select([
      "site_id",
      "group_id",
      "expires_at",
      "created_by",
      "draft_grant_id",
    ])
    .where("digest", "=", await sha256Hex(token)).executeTakeFirst();
  if (!row || row.site_id !== siteId || row.expires_at <= ctx.clock.now()) {
    return null;
  }
  return { groupId: row.group_id, draftGrant: grantOf(row) };
}

/**
 * The live related-draft grant `id` of this site, for a continuation cursor that names it; null
 * once its link expired (or never on this site).
 */
export async function liveDraftGrant(
  ctx: { db: Db; clock: Clock },
  siteId: string,
  id: string,
): Promise<(DraftGrant & { groupId: string }) | null> {
  if (!isId(id)) return null;
  const row = await ctx.db.selectFrom("preview_tokens")
    .select([
      "site_id",
      "group_id",
      "expires_at",
      "created_by",
      "draft_grant_id",
    ])
    .where("draft_grant_id", "=", id).executeTakeFirst();
  if (!row || row.site_id !== siteId || row.expires_at <= ctx.clock.now()) {
    return null;
  }
  const grant = grantOf(row);
  return grant && { ...grant, groupId: row.group_id };
}

function grantOf(
  row: { created_by: string | null; draft_grant_id: string | null },
): DraftGrant | null {
  return row.draft_grant_id && row.created_by
    ? { id: row.draft_grant_id, personId: row.created_by }
    : null;
}
