// Handler of the related-from write: the related-from service with the credential as actor.
import { writeRelatedFrom } from "../../entries/related_from_write.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/related_from.ts";
import { defineHandler } from "../handler.ts";
import {
  lifecycleOf,
  readableGroup,
  refuseWith,
  requireDecision,
} from "./entries_support.ts";

/** `put-entry-related-from`: one command across the linking entries, pinned to the list read. */
export const putEntryRelatedFrom = defineHandler(contract.putEntryRelatedFrom, {
  async run(ctx, { params, body }) {
    await readableGroup(ctx, params.id);
    requireDecision(ctx.authority, {
      action: "entries.update",
      model: body.model_id,
      owner: ctx.authority.personId,
    });
    const result = await writeRelatedFrom(lifecycleOf(ctx), {
      group_id: params.id,
      ...body,
    });
    if (!result.ok) {
      switch (result.code) {
        case "invalid_request": {
          const issues =
            (result as { problems: { path: string; message: string }[] })
              .problems.map((p) => ({
                path: `body.${p.path}`,
                message: p.message,
              }));
          return refuse(
            400,
            "invalid_request",
            `Invalid ${issues[0].path}: ${issues[0].message}`,
            { issues },
          );
        }
        case "relation_changed_concurrently":
          return refuse(
            409,
            "relation_changed_concurrently",
            "The entries linking here are not the ones in expected_ids: read related-from again",
            { current_ids: (result as { current_ids: string[] }).current_ids },
          );
        case "not_found":
          if ("ids" in result) {
            return refuse(
              404,
              "not_found",
              "Entries in set are not readable entries of the model, or lack the language",
              { ids: result.ids },
            );
          }
          return refuseWith({ ok: false, code: "not_found" });
        default:
          return refuseWith({ ...result });
      }
    }
    return {
      body: {
        id: result.group_id,
        model_id: result.model_id,
        field: result.field,
        locale: result.locale,
        ids: result.ids,
        hidden: result.hidden,
        written: result.written.map((c) => ({
          id: c.group_id,
          locale: c.locale,
          version_id: c.version_id,
          change: c.change,
        })),
      },
    };
  },
});
