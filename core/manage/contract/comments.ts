// Contract of comment moderation (FORM-015; spec 2 part 4.3 "moderation"): the queue, and one
// decision per comment. A repeated decision answers `conflict`.
import { z } from "zod";
import { operation } from "./operation.ts";

const comment = z.strictObject({
  id: z.uuid(),
  item: z.uuid().describe("The commented item (translation group)"),
  model_id: z.string(),
  locale: z.string(),
  parent: z.uuid().nullable().describe(
    "The approved comment this one answers",
  ),
  author: z.string(),
  body: z.string(),
  status: z.enum(["pending", "approved", "rejected"]),
  created_at: z.string(),
  moderated_at: z.string().nullable(),
  up: z.int().min(0),
  down: z.int().min(0),
});

/** `GET /comments`. */
export const listComments = operation({
  name: "list-comments",
  description:
    "Oldest first. Only comments on items of models the credential may read are listed; deciding needs `review` on the item's model and language.",
  method: "GET",
  path: "/comments",
  summary: "List visitors' comments by status: the moderation queue by default",
  tag: "comments",
  scope: "content:read",
  key: null,
  status: 200,
  params: z.strictObject({}),
  query: z.strictObject({
    status: z.enum(["pending", "approved", "rejected"]).default("pending"),
    item: z.uuid().optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    cursor: z.string().max(300).optional(),
  }),
  answer: z.strictObject({
    data: z.array(comment),
    next_cursor: z.string().nullable(),
  }),
});

/** `POST /comments/{id}/moderate`. */
export const moderateComment = operation({
  name: "moderate-comment",
  description:
    "Approving shows the comment in `/v1/_comments`; rejecting hides it again. Sending the decision the comment already has answers `409 conflict` with its `status`, so a retried moderation never hides a later change.",
  method: "POST",
  path: "/comments/{id}/moderate",
  summary: "Approve or reject a visitor's comment",
  tag: "comments",
  scope: "content:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: z.strictObject({ id: z.uuid() }),
  body: z.strictObject({ decision: z.enum(["approve", "reject"]) }),
  answer: z.strictObject({ comment }),
  errors: ["not_found", "conflict", "missing_permission", "locale_denied"],
});

/** The comment operations, in docs order. */
export const COMMENT_OPERATIONS = [listComments, moderateComment] as const;
