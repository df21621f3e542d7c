// The signed-in person's context on the request's site: their authority now and the lifecycle context the services take.
import type { Context } from "hono";
import type { PersonActor } from "../access/actor.ts";
import { type Authority, loadAuthority } from "../access/authority.ts";
import { modelValidator } from "../entries/model_validator.ts";
import type { LifecycleContext } from "../entries/types.ts";
import type { Services } from "../services.ts";
import type { SiteRecord } from "../sites/site_store.ts";
import type { AppEnv, SignedInUser } from "../web/env.ts";
import { refuse } from "../web/errors.ts";

/** Everything an admin page needs to call the same services the Management API calls. */
export interface AdminContext {
  services: Services;
  site: SiteRecord;
  user: SignedInUser;
  actor: PersonActor;
  /** The person's role on the site, read on this request (a role change applies at once). */
  authority: Authority;
  /** What the lifecycle service takes: this person as actor, model validation on. */
  lifecycle: LifecycleContext;
}

/**
 * Loads the person's authority on the site; a person without a role here (the session
 * middleware already checked membership, but a role can be removed in between) gets 403.
 */
export async function adminContext(c: Context<AppEnv>): Promise<AdminContext> {
  const user = c.var.user;
  if (!user) return refuse(401, "unauthenticated", "Sign in first");
  const { services, site } = c.var;
  const actor: PersonActor = { kind: "person", userId: user.id };
  const loaded = await loadAuthority(services.db, { siteId: site.id, actor });
  if (!loaded.ok) {
    return refuse(403, loaded.code, "You have no access to this site");
  }
  return {
    services,
    site,
    user,
    actor,
    authority: loaded.authority,
    lifecycle: {
      db: services.db,
      clock: services.clock,
      siteId: site.id,
      actor,
      authority: loaded.authority,
      validate: modelValidator(),
    },
  };
}
