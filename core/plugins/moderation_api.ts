// Moderation commands a plugin drives for a delegated person (spec 1 part 4.1 rule 4, PAPI-033):
// each runs the service's own command with every ordinary check, exactly as an administrator's
// would, only attributed to the plugin acting for that person. `POST /media/{media_id}/remove`
// removes a library file through the library's one removal (refused `media_in_use` while any
// entry, readable or not, still uses it), audited `plugin.media.remove` in the same transaction;
// `POST /content/{instance_id}/restore` brings an entry back from Trash through the one lifecycle
// service (the person's `restore` permission, the workflow revision pin, the Trash state).
import type { Context } from "hono";
import { z } from "zod";
import { decide, readReach } from "../access/decide.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { ledgerAuditWriter } from "../entries/audit.ts";
import { isId } from "../entries/store.ts";
import { modelValidator, restoreEntry } from "../entries/mod.ts";
import { mediaStorageOf } from "../media/storage_of.ts";
import { removeMedia } from "../media/usage.ts";
import type { AppEnv } from "../web/env.ts";
import { outcomeWith, pluginRefusal } from "./api_support.ts";
import { outcomeOfLifecycle } from "./content_api.ts";
import { scopedItem } from "./scoped_item.ts";
import { useDelegation } from "./delegations.ts";
import { keyedCommand, refusedCommand } from "./keyed_command.ts";
import type { Capability } from "./protocol.ts";

/** Removing a library file is a media write, as the Management API's `media:write` scope is. */
const REMOVE_NEEDS: Capability[] = ["media:write"];

const removeBody = z.strictObject({
  delegation_id: z.string().min(1).max(64),
});

/** `POST /media/{media_id}/remove`: removes a file nothing uses, for the delegated person. */
export function removePluginMedia(
  c: Context<AppEnv>,
): Promise<Response> {
  const mediaId = c.req.param("media_id") ?? "";
  const { clock, db } = c.var.services;
  return keyedCommand(
    c,
    REMOVE_NEEDS,
    removeBody,
    async ({ body, installation, digest }) => {
      const delegation = await useDelegation(
        db,
        installation,
        body.delegation_id,
        undefined,
        REMOVE_NEEDS,
      );
      if (!delegation.ok) return refusedCommand(delegation);
      if (!decide(delegation.authority, { action: "media.delete" }).ok) {
        return refusedCommand(pluginRefusal(
          "requester_unauthorized",
          "The person this is for may not delete files from the library",
        ));
      }
      const missing = pluginRefusal(
        "content_not_found",
        "No such media item on this site",
      );
      if (!isId(mediaId)) return refusedCommand(missing);
      const actor = await snapshotActor(
        db,
        installation.siteId,
        delegation.actor,
      );
      // The plugin learns which entries use the file only where the person reads and the
      // grant reaches; the others are counted, never named.
      const canRead = (modelId: string) =>
        installation.modelIds.includes(modelId) &&
        readReach(delegation.authority, modelId) !== "none";
      const removed = await removeMedia(
        {
          db,
          storage: mediaStorageOf(c.var.services),
          imageLibrary: c.var.services.config.mediaImageLibrary,
          clock,
          siteId: installation.siteId,
          publicUrl: c.var.services.config.publicUrl,
          keyDigest: null,
        },
        mediaId,
        canRead,
        {
          alsoRecord: (tx) =>
            ledgerAuditWriter.write(tx, {
              id: crypto.randomUUID(),
              siteId: installation.siteId,
              actor,
              action: "plugin.media.remove",
              target: { kind: "media", media_id: mediaId },
              details: {
                idempotency_key_digest: digest,
              },
              at: clock.now(),
            }),
        },
      );
      if (!removed.ok && removed.code === "not_found") {
        return refusedCommand(missing);
      }
      if (!removed.ok) {
        const { ok: _ok, code, ...detail } = removed;
        return {
          applied: false,
          response: outcomeWith(
            "transition_refused",
            code === "media_in_use"
              ? "media_in_use: entries still use this file; remove it from them first"
              : `${code}: the library refused the removal`,
            { refusal: { code, ...detail } },
          ),
        };
      }
      return {
        applied: true,
        response: outcomeWith("transition_applied", "Removed", {
          result: { id: removed.id, storage_cleanup: removed.storage_cleanup },
        }),
      };
    },
  );
}

/** Bringing an entry back from Trash undoes a Trash move: the capability Trash needs. */
const RESTORE_NEEDS: Capability[] = ["content:delete"];

const restoreBody = z.strictObject({
  delegation_id: z.string().min(1).max(64),
  expected_workflow_revision: z.number().int().min(0),
});

/** `POST /content/{instance_id}/restore`: the whole entry back from Trash, for the delegated person. */
export function restorePluginContent(
  c: Context<AppEnv>,
): Promise<Response> {
  const { clock, db } = c.var.services;
  return keyedCommand(
    c,
    RESTORE_NEEDS,
    restoreBody,
    async ({ body, installation, digest }) => {
      const item = await scopedItem(
        db,
        installation,
        c.req.param("instance_id") ?? "",
      );
      if (!("instance" in item)) return refusedCommand(item);
      const delegation = await useDelegation(
        db,
        installation,
        body.delegation_id,
        item.group,
        RESTORE_NEEDS,
      );
      if (!delegation.ok) return refusedCommand(delegation);
      const outcome = await restoreEntry({
        db,
        clock,
        siteId: installation.siteId,
        actor: delegation.actor,
        validate: modelValidator(),
        trace: {
          idempotency_key_digest: digest,
          protocol_version: String(installation.protocolVersion),
        },
      }, {
        group_id: item.group.id,
        expected_workflow_revision: body.expected_workflow_revision,
      });
      if (!outcome.ok) {
        return refusedCommand(pluginRefusal(
          outcomeOfLifecycle(outcome.code),
          `The service refused the restore: ${outcome.code}`,
        ));
      }
      return {
        applied: true,
        response: outcomeWith("transition_applied", "Restored from Trash", {
          result: {
            instance_id: item.instance.id,
            group_id: outcome.group_id,
            state: outcome.state,
            revision: outcome.revision,
            current_version_id: outcome.current_version_id,
            published_version_id: outcome.published_version_id,
          },
        }),
      };
    },
  );
}
