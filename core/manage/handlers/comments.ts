// Handlers of comment moderation (FORM-015): the queue lists comments on models the caller reads; a
// decision needs `review` on the comment's model and language.
import { decide } from "../../access/decide.ts";
import {
  commentsForModeration,
  moderateComment as decideComment,
  readComment,
} from "../../comments/mod.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/comments.ts";
import { defineHandler } from "../handler.ts";
import { decodeCursor, encodeCursor } from "./entries_support.ts";
import { requireAllowed } from "./require.ts";

/** `list-comments`: comments by status on the models the caller may review, oldest first. */
export const listComments = defineHandler(contract.listComments, {
  async run(ctx, { query }) {
    const { db } = ctx.services;
    const list = `comments:${query.status}:${query.item ?? ""}`;
    const after = query.cursor ? decodeCursor(query.cursor, list) : null;
    const models = await db.selectFrom("models").select("id").where(
      "site_id",
      "=",
      ctx.site.id,
    ).where("deleted_at", "is", null).execute();
    const readable = models.map((m) => m.id).filter((model) =>
      decide(ctx.authority, { action: "comments.read", model }).ok
    );
    const rows = await commentsForModeration(db, ctx.site.id, {
      status: query.status,
      item: query.item ?? null,
      models: readable,
      limit: query.limit + 1,
      after,
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      body: {
        data: page,
        next_cursor: rows.length > query.limit && last
          ? encodeCursor({ list, at: last.created_at, id: last.id })
          : null,
      },
    };
  },
});

/** `moderate-comment`: approve or reject; the same decision again is `409 conflict`. */
export const moderateComment = defineHandler(contract.moderateComment, {
  async run(ctx, { params, body }) {
    const { db, clock } = ctx.services;
    const found = await readComment(db, ctx.site.id, params.id);
    // A comment on a model the caller cannot read looks like no comment at all.
    if (
      !found ||
      !decide(ctx.authority, { action: "comments.read", model: found.model_id })
        .ok
    ) {
      return refuse(404, "not_found", "No comment with this id on this site");
    }
    requireAllowed(ctx, {
      action: "comments.moderate",
      model: found.model_id,
      languages: [found.locale],
    });
    const result = await decideComment(
      { db, clock, siteId: ctx.site.id, personId: ctx.authority.personId },
      params.id,
      body.decision,
    );
    if (!result.ok) {
      return refuse(
        409,
        "conflict",
        `The comment is already ${result.status}`,
        { status: result.status },
      );
    }
    return { body: { comment: result.comment } };
  },
});
