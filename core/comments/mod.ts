// Visitor comments (spec 3 part 4.1; FORM-001, FORM-014, FORM-015): `comment.submit` stores a
// comment as `pending`, a moderator approves or rejects it, `/v1/_comments` serves approved ones,
// and `comment.react` keeps one up or down vote per visitor. Shapes are Stave's (docs/forms.md).
import { sql } from "kysely";
import { z } from "zod";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { RateWindow } from "../kv/rate_window.ts";
import { canonicalJson } from "../pages/mod.ts";
import { getSettings } from "../sites/settings.ts";

/** Limits of visitor comments (Stave's; docs/forms.md). */
export const COMMENT_LIMITS = {
  authorChars: 80,
  bodyChars: 4000,
  /** Comments one visitor address may send per window. */
  perAddress: 5,
  /** Comments one item (in one language) accepts per window. */
  perItem: 100,
  /** Reactions one visitor address may send per window. */
  reactionsPerAddress: 60,
  windowMs: 10 * 60_000,
  /** Approved comments one `/v1/_comments` page holds at most; 20 when `limit` is absent. */
  pageMax: 50,
  pageDefault: 20,
} as const;

const LOCALE = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);
const KEY = z.string().regex(/^[A-Za-z0-9_-]{16,64}$/);

/** The closed `comment.submit` envelope. */
export const CommentEnvelope = z.strictObject({
  action: z.literal("comment.submit"),
  item: z.uuid(),
  locale: LOCALE,
  key: KEY,
  /** The approved comment this one answers; replies are one level deep. */
  parent: z.uuid().nullable().default(null),
  author: z.string().trim().min(1).max(COMMENT_LIMITS.authorChars),
  body: z.string().trim().min(1).max(COMMENT_LIMITS.bodyChars),
  /** The honeypot: people leave it empty. */
  website: z.string().max(2048).default(""),
});

/** The closed `comment.react` envelope; `none` takes the visitor's reaction back. */
export const ReactionEnvelope = z.strictObject({
  action: z.literal("comment.react"),
  comment: z.uuid(),
  /** A random key the visitor's browser keeps: one reaction per key and comment. */
  visitor: KEY,
  reaction: z.enum(["up", "down", "none"]),
});

/** What the comment services need. */
export interface CommentContext {
  db: Db;
  kv: Deno.Kv;
  clock: Clock;
  siteId: string;
  /** The visitor's network address, for the per-address windows. */
  address: string;
}

/** What a visitor gets back for a comment (the first answer again on a replay). */
export interface CommentReceipt {
  id: string;
  status: "pending";
  received_at: string;
  message: string;
}

const RECEIPT_MESSAGE =
  "Thank you: your comment appears once a moderator approves it";

/** A refusal of a visitor's comment or reaction. */
export type CommentRefusal =
  | { ok: false; code: "comment_target_not_found" }
  | { ok: false; code: "comments_closed" }
  | { ok: false; code: "comment_not_found" }
  | { ok: false; code: "comment_key_reused" }
  | { ok: false; code: "interaction_invalid"; path: string; message: string }
  | { ok: false; code: "rate_limited"; retryAfterSeconds: number };

/** A published item that takes comments now, or why not. */
export async function commentTarget(
  ctx: { db: Db; clock: Clock; siteId: string },
  item: string,
  locale: string,
): Promise<
  | { ok: true; modelId: string }
  | { ok: false; code: "comment_target_not_found" | "comments_closed" }
> {
  const row = await ctx.db.selectFrom("public_items as p")
    .innerJoin(
      "models as m",
      (j) =>
        j.on(sql<boolean>`m.id::text = p.model_id and m.site_id = p.site_id`),
    )
    .select(["p.model_id", "p.published_at", "m.slug", "m.is_public"])
    .where("p.site_id", "=", ctx.siteId).where("p.group_id", "=", item)
    .where("p.requested_locale", "=", locale).where("m.deleted_at", "is", null)
    .executeTakeFirst();
  // A private type's items look like no item at all to a visitor.
  if (!row || !row.is_public) {
    return { ok: false, code: "comment_target_not_found" };
  }
  const settings = (await getSettings(ctx, "comments")).document;
  const open = settings.enabled &&
    settings.models.some((m) =>
      m === row.slug || m.toLowerCase() === row.model_id
    );
  const closesAt = settings.close_after_days === null
    ? Infinity
    : new Date(row.published_at).getTime() +
      settings.close_after_days * 86_400_000;
  if (!open || ctx.clock.now().getTime() >= closesAt) {
    return { ok: false, code: "comments_closed" };
  }
  return { ok: true, modelId: row.model_id };
}

/** Checks and stores one comment as `pending`; a filled honeypot gets a receipt and stores nothing. */
export async function submitComment(
  ctx: CommentContext,
  envelope: z.output<typeof CommentEnvelope>,
): Promise<
  { ok: true; receipt: CommentReceipt; replayed: boolean } | CommentRefusal
> {
  const keyDigest = await sha256Hex(
    canonicalJson(["comment", ctx.siteId, envelope.key]),
  );
  const valuesDigest = await sha256Hex(canonicalJson({
    item: envelope.item,
    locale: envelope.locale,
    parent: envelope.parent,
    author: envelope.author,
    body: envelope.body,
  }));
  const replay = await firstAnswer(ctx, keyDigest, valuesDigest);
  if (replay) return replay;

  const target = await commentTarget(ctx, envelope.item, envelope.locale);
  if (!target.ok) return target;
  if (envelope.parent !== null) {
    const parent = await ctx.db.selectFrom("comments").select("parent_id")
      .where("site_id", "=", ctx.siteId).where("id", "=", envelope.parent)
      .where("item_id", "=", envelope.item)
      .where("locale", "=", envelope.locale)
      .where("status", "=", "approved").executeTakeFirst();
    if (!parent) {
      return {
        ok: false,
        code: "interaction_invalid",
        path: "parent",
        message: "The parent is not an approved comment on this item",
      };
    }
    if (parent.parent_id !== null) {
      return {
        ok: false,
        code: "interaction_invalid",
        path: "parent",
        message: "Replies are one level deep: answer the first comment",
      };
    }
  }
  const limited = await throttle(ctx, [
    [["comment-address", ctx.siteId, ctx.address], COMMENT_LIMITS.perAddress],
    [
      ["comment-item", ctx.siteId, envelope.item, envelope.locale],
      COMMENT_LIMITS.perItem,
    ],
  ]);
  if (limited) return limited;

  const now = ctx.clock.now();
  const id = crypto.randomUUID();
  const receipt: CommentReceipt = {
    id,
    status: "pending",
    received_at: now.toISOString(),
    message: RECEIPT_MESSAGE,
  };
  // A bot that filled the hidden field gets an ordinary receipt; nothing is kept.
  if (envelope.website.trim() !== "") {
    return { ok: true, replayed: false, receipt };
  }
  try {
    await ctx.db.insertInto("comments").values({
      id,
      site_id: ctx.siteId,
      model_id: target.modelId,
      item_id: envelope.item,
      locale: envelope.locale,
      parent_id: envelope.parent,
      author: envelope.author,
      body: envelope.body,
      status: "pending",
      key_digest: keyDigest,
      values_digest: valuesDigest,
      created_at: now,
      moderated_at: null,
      moderated_by: null,
    }).execute();
  } catch (e) {
    // A concurrent first comment under the same key won the race.
    const again = await firstAnswer(ctx, keyDigest, valuesDigest);
    if (again) return again;
    throw e;
  }
  return { ok: true, replayed: false, receipt };
}

async function firstAnswer(
  ctx: CommentContext,
  keyDigest: string,
  valuesDigest: string,
): Promise<
  | { ok: true; receipt: CommentReceipt; replayed: true }
  | { ok: false; code: "comment_key_reused" }
  | null
> {
  const first = await ctx.db.selectFrom("comments").select([
    "id",
    "values_digest",
    "created_at",
  ]).where("site_id", "=", ctx.siteId).where("key_digest", "=", keyDigest)
    .executeTakeFirst();
  if (!first) return null;
  if (first.values_digest !== valuesDigest) {
    return { ok: false, code: "comment_key_reused" };
  }
  return {
    ok: true,
    replayed: true,
    receipt: {
      id: first.id,
      status: "pending",
      received_at: new Date(first.created_at).toISOString(),
      message: RECEIPT_MESSAGE,
    },
  };
}

/** Sets, changes or takes back one visitor's reaction to an approved comment. */
export async function reactToComment(
  ctx: CommentContext,
  envelope: z.output<typeof ReactionEnvelope>,
): Promise<
  | {
    ok: true;
    reaction: { id: string; up: number; down: number; reaction: string };
  }
  | CommentRefusal
> {
  const comment = await ctx.db.selectFrom("comments").select("id")
    .where("site_id", "=", ctx.siteId).where("id", "=", envelope.comment)
    .where("status", "=", "approved").executeTakeFirst();
  if (!comment) return { ok: false, code: "comment_not_found" };
  const limited = await throttle(ctx, [
    [
      ["comment-react", ctx.siteId, ctx.address],
      COMMENT_LIMITS.reactionsPerAddress,
    ],
  ]);
  if (limited) return limited;
  const visitor = await sha256Hex(
    canonicalJson(["comment-visitor", ctx.siteId, envelope.visitor]),
  );
  const counts = await ctx.db.transaction().execute(async (tx) => {
    await tx.deleteFrom("comment_reactions").where(
      "comment_id",
      "=",
      comment.id,
    ).where("visitor_digest", "=", visitor).execute();
    if (envelope.reaction !== "none") {
      await tx.insertInto("comment_reactions").values({
        comment_id: comment.id,
        visitor_digest: visitor,
        reaction: envelope.reaction,
      }).execute();
    }
    // Counted from the rows, so two visitors reacting at once never lose a vote.
    const row = await sql<{ up: number; down: number }>`
      update comments set
        up = (select count(*) from comment_reactions r
              where r.comment_id = ${comment.id} and r.reaction = 'up'),
        down = (select count(*) from comment_reactions r
                where r.comment_id = ${comment.id} and r.reaction = 'down')
      where id = ${comment.id}
      returning up, down
    `.execute(tx);
    return row.rows[0];
  });
  return {
    ok: true,
    reaction: {
      id: comment.id,
      up: Number(counts.up),
      down: Number(counts.down),
      reaction: envelope.reaction,
    },
  };
}

async function throttle(
  ctx: CommentContext,
  windows: (readonly [readonly string[], number])[],
): Promise<CommentRefusal | null> {
  const rate = new RateWindow(ctx.kv, { clock: ctx.clock });
  for (const [key, limit] of windows) {
    const decision = await rate.hit(
      key.join("\n"),
      limit,
      COMMENT_LIMITS.windowMs,
    );
    if (!decision.allowed) {
      return {
        ok: false,
        code: "rate_limited",
        retryAfterSeconds: decision.retryAfterSeconds,
      };
    }
  }
  return null;
}

/** The orders `/v1/_comments` serves (FORM-014). */
export const COMMENT_ORDERS = ["oldest", "newest", "best"] as const;
/** One order of approved comments. */
export type CommentOrder = typeof COMMENT_ORDERS[number];

/** An approved comment as visitors see it. */
export interface PublicComment {
  id: string;
  parent: string | null;
  author: string;
  body: string;
  created_at: string;
  up: number;
  down: number;
}

/** Where the next page starts: the last comment's sort key. */
export interface CommentCursor {
  order: CommentOrder;
  score: number;
  at: string;
  id: string;
}

/** One page of an item's approved comments in `order`, after `cursor`. */
export async function approvedComments(
  db: Db,
  siteId: string,
  query: {
    item: string;
    locale: string;
    order: CommentOrder;
    limit: number;
    cursor: CommentCursor | null;
  },
): Promise<{ comments: PublicComment[]; next: CommentCursor | null }> {
  const c = query.cursor;
  const after = c === null
    ? sql<boolean>`true`
    : query.order === "oldest"
    ? sql<boolean>`(created_at, id) > (${new Date(c.at)}, ${c.id})`
    : query.order === "newest"
    ? sql<boolean>`(created_at, id) < (${new Date(c.at)}, ${c.id})`
    : sql<
      boolean
    >`(down - up, created_at, id) > (${-c.score}, ${new Date(c.at)}, ${c.id})`;
  const orderBy = query.order === "oldest"
    ? sql`created_at asc, id asc`
    : query.order === "newest"
    ? sql`created_at desc, id desc`
    : sql`down - up asc, created_at asc, id asc`;
  const rows = await sql<{
    id: string;
    parent_id: string | null;
    author: string;
    body: string;
    created_at: Date;
    up: number;
    down: number;
  }>`
    select id, parent_id, author, body, created_at, up, down from comments
    where site_id = ${siteId} and item_id = ${query.item}
      and locale = ${query.locale} and status = 'approved' and ${after}
    order by ${orderBy}
    limit ${query.limit + 1}
  `.execute(db);
  const page = rows.rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    comments: page.map((r) => ({
      id: r.id,
      parent: r.parent_id,
      author: r.author,
      body: r.body,
      created_at: new Date(r.created_at).toISOString(),
      up: Number(r.up),
      down: Number(r.down),
    })),
    next: rows.rows.length > query.limit && last
      ? {
        order: query.order,
        score: Number(last.up) - Number(last.down),
        at: new Date(last.created_at).toISOString(),
        id: last.id,
      }
      : null,
  };
}

/** A comment as moderators see it. */
export interface ModeratedComment extends PublicComment {
  item: string;
  model_id: string;
  locale: string;
  status: "pending" | "approved" | "rejected";
  moderated_at: string | null;
}

/** The moderation queue and history, oldest first; `models` limits it to what the reader reads. */
export async function commentsForModeration(
  db: Db,
  siteId: string,
  query: {
    status: "pending" | "approved" | "rejected";
    item: string | null;
    models: readonly string[];
    limit: number;
    after: { at: string; id: string } | null;
  },
): Promise<ModeratedComment[]> {
  if (query.models.length === 0) return [];
  let q = db.selectFrom("comments").selectAll().where("site_id", "=", siteId)
    .where("status", "=", query.status)
    .where("model_id", "in", [...query.models]);
  if (query.item !== null) q = q.where("item_id", "=", query.item);
  if (query.after !== null) {
    const after = query.after;
    q = q.where(
      sql<boolean>`(created_at, id) > (${new Date(after.at)}, ${after.id})`,
    );
  }
  const rows = await q.orderBy("created_at", "asc").orderBy("id", "asc")
    .limit(query.limit).execute();
  return rows.map(moderated);
}

/** One comment by id, or null. */
export async function readComment(
  db: Db,
  siteId: string,
  id: string,
): Promise<ModeratedComment | null> {
  const row = await db.selectFrom("comments").selectAll().where(
    "site_id",
    "=",
    siteId,
  ).where("id", "=", id).executeTakeFirst();
  return row ? moderated(row) : null;
}

function moderated(r: {
  id: string;
  parent_id: string | null;
  author: string;
  body: string;
  created_at: Date;
  up: number;
  down: number;
  item_id: string;
  model_id: string;
  locale: string;
  status: "pending" | "approved" | "rejected";
  moderated_at: Date | null;
}): ModeratedComment {
  return {
    id: r.id,
    parent: r.parent_id,
    author: r.author,
    body: r.body,
    created_at: new Date(r.created_at).toISOString(),
    up: Number(r.up),
    down: Number(r.down),
    item: r.item_id,
    model_id: r.model_id,
    locale: r.locale,
    status: r.status,
    moderated_at: r.moderated_at
      ? new Date(r.moderated_at).toISOString()
      : null,
  };
}

/**
 * Approves or rejects a comment. The same decision twice is `conflict` (spec 2 part 4.3: a
 * repeated moderation answers `conflict`), so a retry never hides a moderator's later change.
 */
export async function moderateComment(
  ctx: { db: Db; clock: Clock; siteId: string; personId: string | null },
  id: string,
  decision: "approve" | "reject",
): Promise<
  | { ok: true; comment: ModeratedComment }
  | { ok: false; code: "conflict"; status: string }
> {
  const status = decision === "approve" ? "approved" : "rejected";
  const row = await ctx.db.updateTable("comments").set({
    status,
    moderated_at: ctx.clock.now(),
    moderated_by: ctx.personId,
  }).where("site_id", "=", ctx.siteId).where("id", "=", id)
    .where("status", "!=", status).returningAll().executeTakeFirst();
  if (!row) {
    const now = await readComment(ctx.db, ctx.siteId, id);
    return { ok: false, code: "conflict", status: now?.status ?? "gone" };
  }
  return { ok: true, comment: moderated(row) };
}
