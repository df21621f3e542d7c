// GET /v1/_comments?item=<id>[&locale=][&order=oldest|newest|best][&limit=][&cursor=]: an item's
// approved comments, one page at a time (FORM-014; parameters are Stave's, docs/forms.md).
import type { Context } from "hono";
import { sql } from "kysely";
import {
  approvedComments,
  COMMENT_LIMITS,
  COMMENT_ORDERS,
  type CommentCursor,
  type CommentOrder,
} from "../../../core/comments/mod.ts";
import { publicJson } from "../../../core/public/answer.ts";
import {
  localePlanOrRefuse,
  requestedLocale,
} from "../../../core/public/read_context.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";

const PARAMETERS = new Set(["item", "locale", "order", "limit", "cursor"]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function invalid(message: string): never {
  return refuse(400, "public_filter_invalid", message);
}

function encodeCursor(cursor: CommentCursor): string {
  return btoa(JSON.stringify(cursor)).replaceAll("+", "-").replaceAll("/", "_")
    .replaceAll("=", "");
}

function decodeCursor(text: string, order: CommentOrder): CommentCursor {
  try {
    const value = JSON.parse(
      atob(text.replaceAll("-", "+").replaceAll("_", "/")),
    ) as CommentCursor;
    if (
      value.order === order && Number.isInteger(value.score) &&
      typeof value.at === "string" && !Number.isNaN(Date.parse(value.at)) &&
      typeof value.id === "string" && UUID.test(value.id)
    ) return value;
  } catch {
    // Refused below.
  }
  return invalid(
    "Invalid cursor: send back next_cursor with the same order",
  );
}

export const handler = {
  async GET(c: Context<AppEnv>) {
    const query = new URL(c.req.url).searchParams;
    for (const name of new Set(query.keys())) {
      if (!PARAMETERS.has(name)) {
        invalid(`Unknown parameter "${name.slice(0, 64)}"`);
      }
      if (query.getAll(name).length > 1) invalid(`"${name}" is repeated`);
    }
    const item = query.get("item");
    if (item === null || !UUID.test(item)) {
      invalid("item must be the id of a published item");
    }
    const locale = requestedLocale(
      localePlanOrRefuse(c.var.publicContext),
      query.get("locale"),
    );
    const order = (query.get("order") ?? "oldest") as CommentOrder;
    if (!COMMENT_ORDERS.includes(order)) {
      invalid("order is oldest, newest or best");
    }
    const limitText = query.get("limit") ??
      String(COMMENT_LIMITS.pageDefault);
    const limit = Number(limitText);
    if (
      !/^[0-9]{1,3}$/.test(limitText) || limit < 1 ||
      limit > COMMENT_LIMITS.pageMax
    ) {
      invalid(`limit is 1 to ${COMMENT_LIMITS.pageMax}`);
    }
    const cursorText = query.get("cursor");
    const cursor = cursorText === null ? null : decodeCursor(cursorText, order);
    const { db } = c.var.services;
    // Only a published item of a public type has comments to show; anything else looks missing.
    const published = await db.selectFrom("public_items as p")
      .innerJoin(
        "models as m",
        (j) =>
          j.on(sql<boolean>`m.id::text = p.model_id and m.site_id = p.site_id`),
      )
      .select("p.model_id").where("p.site_id", "=", c.var.site.id)
      .where("p.group_id", "=", item!).where("p.requested_locale", "=", locale)
      .where("m.is_public", "=", true).where("m.deleted_at", "is", null)
      .executeTakeFirst();
    if (!published) {
      refuse(
        404,
        "not_found",
        "No published item has this id in this language",
      );
    }
    const page = await approvedComments(db, c.var.site.id, {
      item: item!,
      locale,
      order,
      limit,
      cursor,
    });
    return publicJson(c, {
      body: {
        data: page.comments,
        next_cursor: page.next ? encodeCursor(page.next) : null,
      },
      tags: [`comments:${item}`],
    }, { cache: "public" });
  },
};
