// The media library as a signed-in person uses it in the admin: the context, and what they may do.
import { loadAuthority } from "../access/authority.ts";
import { decide, readReach } from "../access/decide.ts";
import type { SystemPermission } from "../access/permissions.ts";
import type { Services } from "../services.ts";
import type { MediaContext } from "./items.ts";
import { keylessMediaContext } from "./storage_of.ts";

/** What the person may do in the library, and how usage filters what they may read. */
export interface PersonMedia {
  ctx: MediaContext;
  may: { upload: boolean; update: boolean; delete: boolean };
  canRead: (modelId: string) => boolean;
}

/** Loads the person's authority on the site; null when they have no access to it. */
export async function personMedia(
  services: Services,
  siteId: string,
  personId: string,
): Promise<PersonMedia | null> {
  const loaded = await loadAuthority(services.db, {
    siteId,
    actor: { kind: "person", userId: personId },
  });
  if (!loaded.ok) return null;
  const authority = loaded.authority;
  const holds = (permission: SystemPermission) =>
    decide(authority, { action: permission }).ok;
  return {
    ctx: keylessMediaContext(services, siteId),
    may: {
      upload: holds("media:upload"),
      update: holds("media:update"),
      delete: holds("media:delete"),
    },
    canRead: (modelId) => readReach(authority, modelId) !== "none",
  };
}
