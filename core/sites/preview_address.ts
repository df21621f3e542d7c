// A site's front-end preview address: where the admin's Preview sends an editor when the site
// is served by its own front end rather than the built-in renderer. The preview token travels in
// the body of a form POST to this address, never in its URL (docs/admin.md, "Preview").
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";

/** Longest address accepted, in characters. */
export const PREVIEW_ADDRESS_MAX = 2048;

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Why an address cannot be the preview address, or null when it can: an absolute https address
 * (http only on this machine) without user, password, query or fragment, at most 2,048 characters.
 */
export function previewAddressProblem(text: string): string | null {
  if (text.length > PREVIEW_ADDRESS_MAX) {
    return `The address is longer than ${PREVIEW_ADDRESS_MAX} characters`;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "Enter a whole address such as https://www.example.com/api/preview";
  }
  if (
    url.protocol !== "https:" &&
    !(url.protocol === "http:" && LOCAL_HOSTS.has(url.hostname))
  ) {
    return "The address must start with https:// (http:// only for localhost)";
  }
  if (url.username || url.password) {
    return "The address may not hold a user name or password";
  }
  if (url.search || url.hash || text.endsWith("?") || text.endsWith("#")) {
    return "The address may not hold a query (?…) or fragment (#…): the preview's details are posted to it";
  }
  return null;
}

/** The site's preview address, or null when none is set. */
export async function getPreviewAddress(
  db: Db,
  siteId: string,
): Promise<string | null> {
  const row = await db.selectFrom("site_preview_addresses").select("url")
    .where("site_id", "=", siteId).executeTakeFirst();
  return row?.url ?? null;
}

/** Sets (or with null, clears) the site's preview address; the caller checks the permission. */
export async function setPreviewAddress(
  ctx: { db: Db; clock: Clock; siteId: string; personId: string | null },
  url: string | null,
): Promise<
  { ok: true } | { ok: false; code: "input_invalid"; message: string }
> {
  if (url === null) {
    await ctx.db.deleteFrom("site_preview_addresses")
      .where("site_id", "=", ctx.siteId).execute();
    return { ok: true };
  }
  const problem = previewAddressProblem(url);
  if (problem) return { ok: false, code: "input_invalid", message: problem };
  const now = ctx.clock.now();
  await ctx.db.insertInto("site_preview_addresses").values({
    site_id: ctx.siteId,
    url,
    updated_by: ctx.personId,
    updated_at: now,
  }).onConflict((oc) =>
    oc.column("site_id").doUpdateSet({
      url,
      updated_by: ctx.personId,
      updated_at: now,
    })
  ).execute();
  return { ok: true };
}
