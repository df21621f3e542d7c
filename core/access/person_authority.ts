// The authority of a signed-in person, loaded and checked against one system permission.
import type { Db } from "../db/database.ts";
import {
  type Authority,
  type AuthorityRefusalCode,
  loadAuthority,
} from "./authority.ts";
import { decide, type Decision } from "./decide.ts";
import type { SystemPermission } from "./permissions.ts";

/**
 * Loads the person's authority on the site now and asks `decide()` for `permission`: the
 * authority when allowed, else the refusal (`site_access_denied`, `missing_permission`...).
 */
export async function personHolding(
  db: Db,
  options: { siteId: string; personId: string; permission: SystemPermission },
): Promise<
  | { ok: true; authority: Authority }
  | { ok: false; code: AuthorityRefusalCode }
  | Exclude<Decision, { ok: true }>
> {
  const loaded = await loadAuthority(db, {
    siteId: options.siteId,
    actor: { kind: "person", userId: options.personId },
  });
  if (!loaded.ok) return { ok: false, code: loaded.code };
  const decision = decide(loaded.authority, { action: options.permission });
  return decision.ok ? { ok: true, authority: loaded.authority } : decision;
}
