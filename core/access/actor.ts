// Who is acting: a person, a management credential acting as its creator, or a plugin acting for a delegated person.
// This module is browser compatible.
import type { Scope } from "./scopes.ts";

/** A signed-in person acting through the admin. */
export interface PersonActor {
  kind: "person";
  userId: string;
}

/**
 * A management credential. It acts as its creator; `scopes` and `models` are what the
 * credential row said when it was authenticated (authority re-reads them).
 */
export interface CredentialActor {
  kind: "credential";
  credentialId: string;
  creatorId: string;
  scopes: readonly Scope[];
  /** Models the credential may touch; null reaches every model. */
  models: readonly string[] | null;
}

/** A plugin installation acting for the person of a delegation (spec 1 part 2.4). */
export interface PluginActor {
  kind: "plugin";
  installationId: string;
  name: string;
  version: string;
  delegatedUserId: string;
  /** Kept for audit only. */
  delegatedEmail: string;
  /** The plugin's reverse-domain id, copied into audit snapshots (spec 1 part 2.9). */
  pluginId?: string;
  /** The protocol version the installation speaks. */
  protocolVersion?: number;
  /** The delegation that authorised the act. */
  delegationId?: string;
}

/** Any actor; a value passed to services, never a fake user row. */
export type Actor = PersonActor | CredentialActor | PluginActor;

/** The person whose role applies to the actor: the person, the credential's creator, the delegated person. */
export function actingPersonId(actor: Actor): string {
  switch (actor.kind) {
    case "person":
      return actor.userId;
    case "credential":
      return actor.creatorId;
    case "plugin":
      return actor.delegatedUserId;
  }
}

/** A person actor. */
export function personActor(userId: string): PersonActor {
  return { kind: "person", userId };
}
