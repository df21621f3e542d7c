// Changing a site's domain (spec 3 part 4.8): refused `managed_address_change_required` while the
// managed renderer serves or keeps a host for the site, whose address moves only through the
// address steps (check, switch, go back, remove); otherwise the domain changes and is audited.
import type { Db } from "../db/database.ts";
import type { Clock } from "../clock.ts";

const DOMAIN =
  /^(?=.{1,253}$)(?:localhost|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+)$/;

/** Why a domain change was refused. */
export type DomainRefusal =
  | { ok: false; code: "invalid_domain" }
  | { ok: false; code: "managed_address_change_required"; hosts: string[] }
  | { ok: false; code: "domain_taken" };

/** Sets the site's domain unless its managed renderer serves or keeps a host (DLV-012). */
export async function changeSiteDomain(
  ctx: { db: Db; clock: Clock; siteId: string; userId: string },
  rawDomain: string,
): Promise<{ ok: true; domain: string; changed: boolean } | DomainRefusal> {
  const domain = rawDomain.trim().toLowerCase();
  if (!DOMAIN.test(domain)) return { ok: false, code: "invalid_domain" };
  const site = await ctx.db.selectFrom("sites").select("domain")
    .where("id", "=", ctx.siteId).executeTakeFirstOrThrow();
  if (site.domain === domain) return { ok: true, domain, changed: false };
  const hosts = await ctx.db.selectFrom("managed_addresses").select("host")
    .where("site_id", "=", ctx.siteId).orderBy("role").execute();
  if (hosts.length > 0) {
    return {
      ok: false,
      code: "managed_address_change_required",
      hosts: hosts.map((h) => h.host),
    };
  }
  const taken = await ctx.db.selectFrom("sites").select("id")
    .where("domain", "=", domain).executeTakeFirst();
  if (taken) return { ok: false, code: "domain_taken" };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable("sites").set({ domain }).where("id", "=", ctx.siteId)
      .execute();
    await trx.insertInto("audit_entries").values({
      id: crypto.randomUUID(),
      site_id: ctx.siteId,
      actor: JSON.stringify({ kind: "person", userId: ctx.userId }),
      action: "site.domain_changed",
      target: JSON.stringify({ kind: "site", id: ctx.siteId }),
      details: JSON.stringify({ from: site.domain, to: domain }),
      created_at: ctx.clock.now(),
    }).execute();
  });
  return { ok: true, domain, changed: true };
}
