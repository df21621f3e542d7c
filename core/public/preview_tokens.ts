// Preview tokens `sv_prev_…`: serve the current draft of one root item for 30 minutes.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { randomToken, sha256Hex } from "../auth/secrets.ts";

/** How long a preview token answers (spec 3 part 8). */
export const PREVIEW_TOKEN_LIFE_MS = 30 * 60 * 1000;
const PREVIEW_TOKEN = /^sv_prev_[A-Za-z0-9_-]{43}$/;

/** Mints a token for one group when an editor opens a preview; the clear text is answered once. */
export async function mintPreviewToken(
  ctx: { db: Db; clock: Clock },
  options: { siteId: string; groupId: string; personId: string | null },
): Promise<{ token: string; expiresAt: Date }> {
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
  }).execute();
  return { token, expiresAt };
}

/** The group a live token of this site previews, or null when it cannot be verified. */
export async function verifyPreviewToken(
  ctx: { db: Db; clock: Clock },
  siteId: string,
  token: string,
): Promise<string | null> {
  if (!PREVIEW_TOKEN.test(token)) return null;
  const row = await ctx.db.selectFrom("preview_tokens")
    .select(["site_id", "group_id", "expires_at"])
    .where("digest", "=", await sha256Hex(token)).executeTakeFirst();
  if (!row || row.site_id !== siteId || row.expires_at <= ctx.clock.now()) {
    return null;
  }
  return row.group_id;
}
