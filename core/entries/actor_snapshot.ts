// Freezes who acted into a plain value for workflow events, versions and the audit ledger.
import type { Actor } from "../access/actor.ts";
import type { Db } from "../db/database.ts";

/** Who acted, frozen at the time of the act so later changes cannot erase attribution. */
export type ActorSnapshot =
  | { kind: "person"; person_id: string; email: string }
  | {
    kind: "credential";
    credential_id: string;
    name: string;
    creator_id: string;
    creator_email: string;
  }
  | {
    kind: "plugin";
    installation_id: string;
    name: string;
    version: string;
    person_id: string;
    person_email: string;
    plugin_id?: string;
    protocol_version?: number;
    delegation_id?: string;
  };

async function emailOf(db: Db, userId: string): Promise<string> {
  const row = await db.selectFrom("users").select("email").where(
    "id",
    "=",
    userId,
  )
    .executeTakeFirst();
  if (!row) {
    throw new Error(`Cannot snapshot actor: user "${userId}" does not exist`);
  }
  return row.email;
}

/**
 * The actor as it is now: a person's id and email; a credential's id, name and its
 * creator's email; a plugin installation's id, name and version with the delegating
 * person's id and email. Stored as JSON with no foreign key, so it outlives what it names.
 */
export async function snapshotActor(
  db: Db,
  siteId: string,
  actor: Actor,
): Promise<ActorSnapshot> {
  switch (actor.kind) {
    case "person":
      return {
        kind: "person",
        person_id: actor.userId,
        email: await emailOf(db, actor.userId),
      };
    case "credential": {
      const row = await db.selectFrom("management_credentials")
        .innerJoin("users", "users.id", "management_credentials.creator_id")
        .select(["management_credentials.name", "users.email", "users.id"])
        .where("management_credentials.id", "=", actor.credentialId)
        .where("management_credentials.site_id", "=", siteId)
        .executeTakeFirst();
      if (!row) {
        throw new Error(
          `Cannot snapshot actor: credential "${actor.credentialId}" is not on site "${siteId}"`,
        );
      }
      return {
        kind: "credential",
        credential_id: actor.credentialId,
        name: row.name,
        creator_id: row.id,
        creator_email: row.email,
      };
    }
    case "plugin":
      return {
        kind: "plugin",
        installation_id: actor.installationId,
        name: actor.name,
        version: actor.version,
        person_id: actor.delegatedUserId,
        person_email: actor.delegatedEmail,
        ...(actor.pluginId === undefined ? {} : { plugin_id: actor.pluginId }),
        ...(actor.protocolVersion === undefined
          ? {}
          : { protocol_version: actor.protocolVersion }),
        ...(actor.delegationId === undefined
          ? {}
          : { delegation_id: actor.delegationId }),
      };
  }
}
